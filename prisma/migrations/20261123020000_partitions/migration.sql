-- Storage at scale (issue 14): activities, their media, the event log and the delivery log become
-- range-partitioned by creation time, one partition per UTC day (docs/decisions.md, "Storage").
-- Partitions are named <table>_pYYYYMMDD; src/storage/partitions.ts creates them ahead of time
-- and drops whole partitions once every row in them is past its retention.
--
-- An existing table is not copied: it is renamed to <table>_archive and attached as the
-- partition FROM (MINVALUE) up to the day after its newest row (B below), so every row keeps
-- its id and the upgrade costs one validating scan. <table>_future takes [B, MAXVALUE): the
-- guard for rows beyond the partitions created so far, split into days by the job.
--
-- The partition keys:
--   activities, media_objects: activity_id (the UTC second of creation, 'YYYYMMDDTHHMMSSZ'),
--     so the primary keys and the keyset paging order stay as they were;
--   events: occurred_at; deliveries: created_at; delivery_attempts: started_at. Their primary
--     keys become (id, <key>): ids stay unique through their sequences.
-- Foreign keys that would stop a partition from being dropped on its own are replaced:
-- media_objects references its accessory (not its activity: a day's media partition goes with
-- the day's activities), and delivery_attempts no longer references deliveries.

ALTER TABLE "media_objects" DROP CONSTRAINT "media_objects_accessory_id_activity_id_fkey";
ALTER TABLE "delivery_attempts" DROP CONSTRAINT "delivery_attempts_delivery_id_fkey";
DROP TRIGGER "media_objects_collect" ON "media_objects";

-- The old tables and their indexes and constraints step aside under _archive names.
ALTER TABLE "activities" RENAME TO "activities_archive";
ALTER INDEX "activities_pkey" RENAME TO "activities_archive_pkey";
ALTER TABLE "media_objects" RENAME TO "media_objects_archive";
ALTER INDEX "media_objects_pkey" RENAME TO "media_objects_archive_pkey";
ALTER INDEX "media_objects_package_status_idx" RENAME TO "media_objects_archive_package_status_idx";
ALTER TABLE "events" RENAME TO "events_archive";
ALTER INDEX "events_pkey" RENAME TO "events_archive_pkey";
ALTER INDEX "events_account_id_id_idx" RENAME TO "events_archive_account_id_id_idx";
ALTER INDEX "events_accessory_id_id_idx" RENAME TO "events_archive_accessory_id_id_idx";
ALTER INDEX "events_occurred_at_idx" RENAME TO "events_archive_occurred_at_idx";
ALTER TABLE "deliveries" RENAME TO "deliveries_archive";
ALTER INDEX "deliveries_pkey" RENAME TO "deliveries_archive_pkey";
ALTER INDEX "deliveries_due_idx" RENAME TO "deliveries_archive_due_idx";
ALTER INDEX "deliveries_account_id_client_id_id_idx" RENAME TO "deliveries_archive_account_id_client_id_id_idx";
ALTER INDEX "deliveries_created_at_idx" RENAME TO "deliveries_archive_created_at_idx";
ALTER TABLE "delivery_attempts" RENAME TO "delivery_attempts_archive";
ALTER INDEX "delivery_attempts_pkey" RENAME TO "delivery_attempts_archive_pkey";
ALTER INDEX "delivery_attempts_delivery_id_attempt_idx" RENAME TO "delivery_attempts_archive_delivery_id_attempt_idx";

-- The partitioned tables: the same columns, defaults and checks.
CREATE TABLE "activities" (LIKE "activities_archive" INCLUDING DEFAULTS INCLUDING CONSTRAINTS)
    PARTITION BY RANGE ("activity_id");
ALTER TABLE "activities" ADD CONSTRAINT "activities_pkey" PRIMARY KEY ("accessory_id", "activity_id");
ALTER TABLE "activities" ADD CONSTRAINT "activities_accessory_id_fkey" FOREIGN KEY ("accessory_id")
    REFERENCES "accessories"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "media_objects" (LIKE "media_objects_archive" INCLUDING DEFAULTS INCLUDING CONSTRAINTS)
    PARTITION BY RANGE ("activity_id");
ALTER TABLE "media_objects" ADD CONSTRAINT "media_objects_pkey" PRIMARY KEY ("accessory_id", "activity_id", "kind");
CREATE INDEX "media_objects_package_status_idx" ON "media_objects"("package_status");
ALTER TABLE "media_objects" ADD CONSTRAINT "media_objects_accessory_id_fkey" FOREIGN KEY ("accessory_id")
    REFERENCES "accessories"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "events" (LIKE "events_archive" INCLUDING DEFAULTS INCLUDING CONSTRAINTS)
    PARTITION BY RANGE ("occurred_at");
ALTER TABLE "events" ADD CONSTRAINT "events_pkey" PRIMARY KEY ("id", "occurred_at");
CREATE INDEX "events_account_id_id_idx" ON "events"("account_id", "id");
CREATE INDEX "events_accessory_id_id_idx" ON "events"("accessory_id", "id");
CREATE INDEX "events_occurred_at_idx" ON "events"("occurred_at");
ALTER SEQUENCE "events_id_seq" OWNED BY "events"."id";

CREATE TABLE "deliveries" (LIKE "deliveries_archive" INCLUDING DEFAULTS INCLUDING CONSTRAINTS)
    PARTITION BY RANGE ("created_at");
ALTER TABLE "deliveries" ADD CONSTRAINT "deliveries_pkey" PRIMARY KEY ("id", "created_at");
CREATE INDEX "deliveries_due_idx" ON "deliveries"("next_attempt_at", "id") WHERE "state" = 'pending';
CREATE INDEX "deliveries_account_id_client_id_id_idx" ON "deliveries"("account_id", "client_id", "id");
CREATE INDEX "deliveries_created_at_idx" ON "deliveries"("created_at");
ALTER SEQUENCE "deliveries_id_seq" OWNED BY "deliveries"."id";

CREATE TABLE "delivery_attempts" (LIKE "delivery_attempts_archive" INCLUDING DEFAULTS INCLUDING CONSTRAINTS)
    PARTITION BY RANGE ("started_at");
ALTER TABLE "delivery_attempts" ADD CONSTRAINT "delivery_attempts_pkey" PRIMARY KEY ("id", "started_at");
CREATE INDEX "delivery_attempts_delivery_id_attempt_idx" ON "delivery_attempts"("delivery_id", "attempt");
ALTER SEQUENCE "delivery_attempts_id_seq" OWNED BY "delivery_attempts"."id";

-- The old single-column primary keys give way to the (id, key) ones, which attaching builds.
ALTER TABLE "events_archive" DROP CONSTRAINT "events_archive_pkey";
ALTER TABLE "deliveries_archive" DROP CONSTRAINT "deliveries_archive_pkey";
ALTER TABLE "delivery_attempts_archive" DROP CONSTRAINT "delivery_attempts_archive_pkey";

-- Attach the old tables below B, the first UTC day after today and after every stored row, and
-- open the guard partitions above it.
DO $$
DECLARE
    b date := (now() AT TIME ZONE 'UTC')::date;
    ts text;
    day text;
BEGIN
    b := greatest(b,
        (SELECT to_date(left(max("activity_id"), 8), 'YYYYMMDD') + 1 FROM "activities_archive"),
        (SELECT to_date(left(max("activity_id"), 8), 'YYYYMMDD') + 1 FROM "media_objects_archive"),
        (SELECT (max("occurred_at") AT TIME ZONE 'UTC')::date + 1 FROM "events_archive"),
        (SELECT (max("created_at") AT TIME ZONE 'UTC')::date + 1 FROM "deliveries_archive"),
        (SELECT (max("started_at") AT TIME ZONE 'UTC')::date + 1 FROM "delivery_attempts_archive"));
    day := to_char(b, 'YYYYMMDD');
    ts := to_char(b, 'YYYY-MM-DD') || ' 00:00:00+00';
    EXECUTE format('ALTER TABLE "activities" ATTACH PARTITION "activities_archive" FOR VALUES FROM (MINVALUE) TO (%L)', day);
    EXECUTE format('CREATE TABLE "activities_future" PARTITION OF "activities" FOR VALUES FROM (%L) TO (MAXVALUE)', day);
    EXECUTE format('ALTER TABLE "media_objects" ATTACH PARTITION "media_objects_archive" FOR VALUES FROM (MINVALUE) TO (%L)', day);
    EXECUTE format('CREATE TABLE "media_objects_future" PARTITION OF "media_objects" FOR VALUES FROM (%L) TO (MAXVALUE)', day);
    EXECUTE format('ALTER TABLE "events" ATTACH PARTITION "events_archive" FOR VALUES FROM (MINVALUE) TO (%L)', ts);
    EXECUTE format('CREATE TABLE "events_future" PARTITION OF "events" FOR VALUES FROM (%L) TO (MAXVALUE)', ts);
    EXECUTE format('ALTER TABLE "deliveries" ATTACH PARTITION "deliveries_archive" FOR VALUES FROM (MINVALUE) TO (%L)', ts);
    EXECUTE format('CREATE TABLE "deliveries_future" PARTITION OF "deliveries" FOR VALUES FROM (%L) TO (MAXVALUE)'
        ' WITH (fillfactor = 80, autovacuum_vacuum_scale_factor = 0.02, autovacuum_analyze_scale_factor = 0.02)', ts);
    EXECUTE format('ALTER TABLE "delivery_attempts" ATTACH PARTITION "delivery_attempts_archive" FOR VALUES FROM (MINVALUE) TO (%L)', ts);
    EXECUTE format('CREATE TABLE "delivery_attempts_future" PARTITION OF "delivery_attempts" FOR VALUES FROM (%L) TO (MAXVALUE)', ts);
END
$$;

-- The media trigger, now on the partitioned table (PostgreSQL clones it to every partition).
CREATE TRIGGER "media_objects_collect"
    AFTER DELETE OR UPDATE OF "upload_id" ON "media_objects"
    FOR EACH ROW EXECUTE FUNCTION "media_objects_collect"();
