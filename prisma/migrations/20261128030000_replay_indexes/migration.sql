-- Replay of a time range (src/notifications/delivery/queue/replay.ts) in time linear in the
-- range. The caller's originals of the range are read a page at a time by (account_id,
-- client_id, created_at, id), so that a range over WEBHOOK_REPLAY_MAX is refused having read
-- little more than the maximum, whatever the range holds. The latest delivery of each original's event is its latest replay
-- (replays point at the original), found by (replay_of, id): partial, since originals, nearly
-- every row, have no replay_of and need no entry.
CREATE INDEX "deliveries_account_id_client_id_created_at_id_idx"
    ON "deliveries"("account_id", "client_id", "created_at", "id");
CREATE INDEX "deliveries_replay_of_id_idx"
    ON "deliveries"("replay_of", "id") WHERE "replay_of" IS NOT NULL;
