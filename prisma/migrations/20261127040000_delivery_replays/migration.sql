-- Replays of a time range (docs/decisions.md, "Replay"): a replayed notification is a new
-- delivery of the same event (the same webhook-id), pointing at the delivery it replays, so
-- that the delivery log shows it as a replay and the range is judged by the originals alone.
ALTER TABLE "deliveries" ADD COLUMN "replay_of" BIGINT;
