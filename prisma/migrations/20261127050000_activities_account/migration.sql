-- The account timeline (issue 37): every activity carries its accessory's account, copied at
-- ingest (src/activities/sql/ingest.sql), so that "newest first across an account's
-- accessories" is one keyset walk of one index instead of a merge of one walk per accessory.
-- An accessory never changes account, so the copy never goes stale. The index is built on every
-- partition (and on every partition created later, src/storage/partitions.ts); its trailing
-- accessory_id is the timeline's tie-break between accessories within one second.
ALTER TABLE "activities" ADD COLUMN "account_id" uuid;
UPDATE "activities" a SET "account_id" = x."account_id"
  FROM "accessories" x WHERE x."id" = a."accessory_id";
ALTER TABLE "activities" ALTER COLUMN "account_id" SET NOT NULL;
CREATE INDEX "activities_account_id_activity_id_accessory_id_idx"
    ON "activities"("account_id", "activity_id", "accessory_id");
