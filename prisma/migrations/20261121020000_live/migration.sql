-- Live events (issue 4): an accessory's subscribers replay and catch up on its stream by
-- (accessory_id, id), as account subscribers do by (account_id, id).

-- CreateIndex
CREATE INDEX "events_accessory_id_id_idx" ON "events"("accessory_id", "id");
