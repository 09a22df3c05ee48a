-- The trigger of activity_rollup (migration 20261127060000): one activity less under its old
-- key, one more under its new one (the slot: clipgate_rollup_slot, ./rollup_slot.sql). Rows moved between partitions of activities
-- (src/storage/partitions.ts sets clipgate.moving for that) are neither new nor gone.
CREATE OR REPLACE FUNCTION "clipgate_activity_rollup"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF current_setting('clipgate.moving', true) = 'on' THEN
        RETURN NULL;
    END IF;
    IF TG_OP <> 'INSERT' THEN
        -- The last activity of a key takes its row with it: counts keep no rows of zero.
        UPDATE "activity_rollup" SET "count" = "count" - 1
         WHERE "account_id" = OLD."account_id"
           AND "slot" = "clipgate_rollup_slot"(OLD."activity_id")
           AND "relevance_level" = OLD."relevance_level"
           AND "zones" = array_to_string(OLD."motion_zones", ',')
           AND "count" > 1;
        IF NOT FOUND THEN
            DELETE FROM "activity_rollup"
             WHERE "account_id" = OLD."account_id"
               AND "slot" = "clipgate_rollup_slot"(OLD."activity_id")
               AND "relevance_level" = OLD."relevance_level"
               AND "zones" = array_to_string(OLD."motion_zones", ',');
        END IF;
    END IF;
    IF TG_OP <> 'DELETE' THEN
        INSERT INTO "activity_rollup" AS r
        VALUES (NEW."account_id", "clipgate_rollup_slot"(NEW."activity_id"), NEW."relevance_level",
                array_to_string(NEW."motion_zones", ','), 1)
        ON CONFLICT ("account_id", "slot", "relevance_level", "zones")
        DO UPDATE SET "count" = r."count" + 1;
    END IF;
    RETURN NULL;
END
$$;
