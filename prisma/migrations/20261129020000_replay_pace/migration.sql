-- Replays are paced (docs/api.md, Replaying a time range): a replay's notifications fall due
-- WEBHOOK_REPLAY_RATE a second, after those of the registration's earlier replays. This is where
-- the next one may fall due; null: no replay paced yet.
ALTER TABLE "notification_registrations" ADD COLUMN "next_replay_at" TIMESTAMPTZ(3);
