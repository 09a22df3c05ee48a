-- The due deliveries of each receiver origin in due order (src/notifications/delivery/queue/
-- claim.ts): while some origins are saturated, a claim takes its window origin by origin from
-- this index instead of walking the due index past every due delivery of theirs. No lease column
-- is indexed: a claim stays a HOT update.
CREATE INDEX "deliveries_origin_due_idx" ON "deliveries" ("origin", "next_attempt_at", "id")
    WHERE "state" = 'pending';
