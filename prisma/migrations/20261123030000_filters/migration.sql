-- Filtered notifications and ordered payloads (issue 15).

-- A registration's filter (the listing's filter language), as the client wrote it; null: every
-- event of its types.
ALTER TABLE "notification_registrations" ADD COLUMN "filter" TEXT;

-- How many times the activity has changed (created: 1): the `sequence` of its events' payloads,
-- bumped by every update of the row.
ALTER TABLE "activities" ADD COLUMN "sequence" INTEGER NOT NULL DEFAULT 1;
