-- Ingest changes (one, or a batch across accessories), planned by the service on each
-- accessory's newest activity as it last saw it. p_heads: [{accessoryId, activityId, version}]
-- (activityId and version, the row's xmin, null for none). Locks the accessory rows in id order
-- (which serializes changes per accessory) and checks that each newest activity is still that
-- one in that version. If one is not, or an accessory is gone, nothing is written and the answer
-- is {"stale": [ids], "missing": [ids]}: the service reads those again and plans anew.
-- Otherwise it writes the planned rows (whole rows, inserted or replacing the stored one),
-- records the events, stores the answer of an Idempotency-Key (p_idempotency: {clientId,
-- subject, key, fingerprint, response}, or null) and answers {"versions": {accessoryId:
-- version of its newest activity now}, "events": [clipgate_record_events rows]}. A key stored
-- meanwhile by a concurrent request is SQLSTATE CGDUP (nothing is written).
CREATE OR REPLACE FUNCTION "clipgate_ingest"(p_heads jsonb, p_rows jsonb, p_events jsonb,
                                             p_idempotency jsonb, p_filters jsonb,
                                             p_traceparent text)
RETURNS jsonb LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    v_stale uuid[] := '{}';
    v_missing uuid[] := '{}';
    v_head record;
    v_id text;
    v_version text;
    v_versions jsonb;
    v_events jsonb;
BEGIN
    FOR v_head IN
        SELECT (h->>'accessoryId')::uuid AS accessory_id, h->>'activityId' AS activity_id,
               h->>'version' AS version
          FROM jsonb_array_elements(p_heads) AS h ORDER BY 1
    LOOP
        PERFORM 1 FROM "accessories" WHERE "id" = v_head.accessory_id FOR UPDATE;
        IF NOT FOUND THEN
            v_missing := v_missing || v_head.accessory_id;
            CONTINUE;
        END IF;
        v_id := NULL;
        v_version := NULL;
        SELECT a."activity_id", a.xmin::text INTO v_id, v_version
          FROM "activities" a WHERE a."accessory_id" = v_head.accessory_id
         ORDER BY a."activity_id" DESC LIMIT 1;
        IF v_id IS DISTINCT FROM v_head.activity_id OR v_version IS DISTINCT FROM v_head.version THEN
            v_stale := v_stale || v_head.accessory_id;
        END IF;
    END LOOP;
    IF cardinality(v_stale) > 0 OR cardinality(v_missing) > 0 THEN
        RETURN jsonb_build_object('stale', to_jsonb(v_stale), 'missing', to_jsonb(v_missing));
    END IF;
    IF p_idempotency IS NOT NULL THEN
        INSERT INTO "idempotency_keys" ("client_id", "subject", "key", "fingerprint", "response")
        VALUES (p_idempotency->>'clientId', p_idempotency->>'subject', p_idempotency->>'key',
                p_idempotency->>'fingerprint', p_idempotency->'response')
        ON CONFLICT DO NOTHING;
        IF NOT FOUND THEN
            RAISE EXCEPTION 'the idempotency key is stored already' USING ERRCODE = 'CGDUP';
        END IF;
    END IF;
    -- account_id: the accessory's (locked above), for the account timeline's index.
    INSERT INTO "activities" AS a ("accessory_id", "account_id", "activity_id", "start_time",
        "end_time", "playback_duration", "relevance_level", "motion_zones", "object_locations",
        "created_at", "updated_at", "sequence")
    SELECT r."accessoryId", x."account_id", r."activityId", r."startTime", r."endTime",
           r."playbackDuration", r."relevanceLevel", r."motionZones", r."objectLocations",
           r."createdAt", r."updatedAt", r."sequence"
      FROM jsonb_to_recordset(p_rows) AS r("accessoryId" uuid, "activityId" text,
           "startTime" timestamptz, "endTime" timestamptz, "playbackDuration" integer,
           "relevanceLevel" integer, "motionZones" text[], "objectLocations" smallint[],
           "createdAt" timestamptz, "updatedAt" timestamptz, "sequence" integer)
      JOIN "accessories" x ON x."id" = r."accessoryId"
     -- In the order of their activity_rollup rows, which the trigger locks: two concurrent
     -- ingests take them in the same order.
     ORDER BY "clipgate_rollup_slot"(r."activityId"), r."relevanceLevel",
              array_to_string(r."motionZones", ',')
    ON CONFLICT ("accessory_id", "activity_id") DO UPDATE SET
        "start_time" = EXCLUDED."start_time", "end_time" = EXCLUDED."end_time",
        "playback_duration" = EXCLUDED."playback_duration",
        "relevance_level" = EXCLUDED."relevance_level", "motion_zones" = EXCLUDED."motion_zones",
        "object_locations" = EXCLUDED."object_locations", "updated_at" = EXCLUDED."updated_at",
        "sequence" = EXCLUDED."sequence";
    SELECT coalesce(jsonb_object_agg(h.accessory_id, n.version), '{}') INTO v_versions
      FROM (SELECT DISTINCT (h->>'accessoryId')::uuid AS accessory_id
              FROM jsonb_array_elements(p_heads) AS h) h
      LEFT JOIN LATERAL (SELECT a.xmin::text AS version FROM "activities" a
                          WHERE a."accessory_id" = h.accessory_id
                          ORDER BY a."activity_id" DESC LIMIT 1) n ON true;
    SELECT coalesce(jsonb_agg(to_jsonb(e) ORDER BY e."event_id"), '[]') INTO v_events
      FROM "clipgate_record_events"(p_events, p_filters, p_traceparent) AS e;
    RETURN jsonb_build_object('versions', v_versions, 'events', v_events);
END
$$;
