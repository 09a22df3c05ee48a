-- Replays are paced (docs/api.md, Replaying a time range): a replay's notifications fall due
-- WEBHOOK_REPLAY_RATE a second, after those of the registration's earlier replays. This is where
-- the next one may fall due; null: no replay paced yet.
ALTER TABLE "notification_registrations" ADD COLUMN "next_replay_at" TIMESTAMPTZ(3);
-- One replay of a registration at a time, on every instance, without a transaction held while
-- it runs: the replay's turn lasts until it ends, or this time passes (an instance that died).
ALTER TABLE "notification_registrations" ADD COLUMN "replaying_until" TIMESTAMPTZ(3);
