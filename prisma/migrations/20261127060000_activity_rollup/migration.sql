-- Counts at scale (issue 37): how many activities each account has per UTC quarter hour,
-- relevance level and set of motion zones (`zones`: the motionZones joined by commas). Counts
-- of a range read the quarter hours inside it from here and only the edges from activities
-- (src/activities/store.ts, queryCounts); every zone's hours and days begin on a quarter hour.
-- Not per accessory: at one activity every few minutes per camera, a row per accessory and
-- quarter hour would be nearly as many rows as activities; counts by accessory read activities.
-- The trigger keeps it in the statement that writes the activity (ingest's insert, its updates
-- and finishes, deletes by cascade); dropping a day's partition subtracts that day first
-- (src/activities/retention.ts).
CREATE TABLE "activity_rollup" (
    "account_id" uuid NOT NULL,
    "slot" text NOT NULL,
    "relevance_level" integer NOT NULL,
    "zones" text NOT NULL,
    "count" integer NOT NULL,
    CONSTRAINT "activity_rollup_pkey"
        PRIMARY KEY ("account_id", "slot", "relevance_level", "zones")
);

INSERT INTO "activity_rollup"
SELECT "account_id",
       left("activity_id", 11) || lpad((substr("activity_id", 12, 2)::int / 15 * 15)::text, 2, '0'),
       "relevance_level", array_to_string("motion_zones", ','), count(*)::int
  FROM "activities" GROUP BY 1, 2, 3, 4;

-- Its body is src/activities/sql/activity_rollup.sql, applied after the migrations.
CREATE FUNCTION "clipgate_activity_rollup"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RETURN NULL;
END
$$;

CREATE TRIGGER "activities_rollup"
    AFTER INSERT OR DELETE ON "activities"
    FOR EACH ROW EXECUTE FUNCTION "clipgate_activity_rollup"();
-- Ingest's upsert sets every column: only a changed relevance or set of zones moves a count.
CREATE TRIGGER "activities_rollup_update"
    AFTER UPDATE OF "relevance_level", "motion_zones" ON "activities"
    FOR EACH ROW
    WHEN (OLD."relevance_level" IS DISTINCT FROM NEW."relevance_level"
          OR OLD."motion_zones" IS DISTINCT FROM NEW."motion_zones")
    EXECUTE FUNCTION "clipgate_activity_rollup"();
