-- Whatever removes a media row (its activity's retention purge, its account's deletion, any
-- cascade) or replaces its upload queues the stored objects for deletion in the same
-- transaction. A replaced upload stays readable for a while: responses already streaming it
-- finish.
CREATE OR REPLACE FUNCTION "media_objects_collect"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        INSERT INTO "media_garbage" ("prefix")
            VALUES (OLD."accessory_id" || '/' || OLD."activity_id" || '/' || OLD."upload_id" || '/');
        -- Older uploads of the same media waiting out their grace period go now as well.
        UPDATE "media_garbage" SET "delete_after" = CURRENT_TIMESTAMP
            WHERE "prefix" LIKE OLD."accessory_id" || '/' || OLD."activity_id" || '/%'
              AND "delete_after" > CURRENT_TIMESTAMP;
        RETURN OLD;
    END IF;
    IF NEW."upload_id" <> OLD."upload_id" THEN
        INSERT INTO "media_garbage" ("prefix", "delete_after")
            VALUES (OLD."accessory_id" || '/' || OLD."activity_id" || '/' || OLD."upload_id" || '/',
                    CURRENT_TIMESTAMP + interval '10 minutes');
    END IF;
    RETURN NEW;
END
$$;
