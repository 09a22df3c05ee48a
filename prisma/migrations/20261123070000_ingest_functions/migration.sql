-- The write path in one round trip (issue 13; docs/decisions.md, "Write path"). Two functions,
-- each called as one statement, so a change and its events commit in the statement's own
-- transaction (or in the caller's, when one is open) without the service holding a transaction
-- open across round trips.

-- Records events: takes each account's event-stream lock (an account-level event first locks
-- the account's accessory rows, the order ingest uses), then inserts the events with the
-- webhook deliveries of each (one per registration of its account that lists its type, every
-- registration for account_deleted; none for a disabled registration), and answers each event's id, time, whether deliveries were
-- queued, and the id of its stream's previous event (account and accessory), read under the
-- lock. Ids are assigned in input order. A registration with a filter gets a delivery only for
-- the events p_filters.passed lists for it ([{ord, clientId, filter}], judged by the service with
-- the filter text it matches); if an account of the judged events has a filtered registration
-- that p_filters.judged does not list, the filters changed since they were read and nothing is
-- recorded (SQLSTATE CGFLT: the service judges again). Deliveries keep p_traceparent, the trace
-- context of the request that caused the events.
CREATE FUNCTION "clipgate_record_events"(p_events jsonb, p_filters jsonb, p_traceparent text)
RETURNS TABLE (
    "event_id" bigint,
    "event_occurred_at" timestamptz,
    "event_queued" boolean,
    "previous_account_event_id" bigint,
    "previous_accessory_event_id" bigint
) LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    v_account uuid;
BEGIN
    FOR v_account IN
        SELECT DISTINCT (x->>'accountId')::uuid FROM jsonb_array_elements(p_events) AS x ORDER BY 1
    LOOP
        IF EXISTS (SELECT 1 FROM jsonb_array_elements(p_events) AS x
                    WHERE (x->>'accountId')::uuid = v_account AND x->>'accessoryId' IS NULL) THEN
            PERFORM 1 FROM "accessories" WHERE "account_id" = v_account ORDER BY "id" FOR UPDATE;
        END IF;
        PERFORM pg_advisory_xact_lock(1818851941, hashtext(v_account::text));
    END LOOP;
    IF EXISTS (
        SELECT 1 FROM "notification_registrations" r
         WHERE r."filter" IS NOT NULL
           AND r."account_id" IN (
               SELECT (x->>'accountId')::uuid FROM jsonb_array_elements(p_events) AS x
                WHERE x->>'accessoryId' IS NOT NULL
                  AND (x->>'eventType' LIKE 'activity\_%' OR x->>'eventType' LIKE 'motion\_%'))
           AND NOT EXISTS (
               SELECT 1 FROM jsonb_array_elements(p_filters->'judged') AS j
                WHERE j->>'clientId' = r."client_id" AND j->>'filter' = r."filter"))
    THEN
        RAISE EXCEPTION 'the registration filters changed' USING ERRCODE = 'CGFLT';
    END IF;
    -- A statement of its own: under READ COMMITTED it sees what committed before the locks, and
    -- its subqueries do not see its own inserts, so they read each stream's head.
    RETURN QUERY
    WITH input AS (
        SELECT x, ord FROM jsonb_array_elements(p_events) WITH ORDINALITY AS i(x, ord)
    ), ev AS (
        INSERT INTO "events" ("account_id", "accessory_id", "event_type", "event_data")
        SELECT (x->>'accountId')::uuid, (x->>'accessoryId')::uuid, x->>'eventType', x->'eventData'
          FROM input ORDER BY ord
        RETURNING "id", "account_id", "accessory_id", "event_type", "event_data", "occurred_at"
    ), numbered AS (
        SELECT ev.*, row_number() OVER (ORDER BY ev."id") AS ord FROM ev
    ), passed AS (
        SELECT * FROM jsonb_to_recordset(p_filters->'passed') AS p(ord bigint, "clientId" text, filter text)
    ), queued AS (
        INSERT INTO "deliveries" ("kind", "event_id", "account_id", "client_id", "event_type",
                                  "event_data", "user_data", "url", "origin", "auth_key",
                                  "traceparent")
        SELECT 'event', e."id", r."account_id", r."client_id", e."event_type", e."event_data",
               r."user_data", r."url", r."origin", r."auth_key", p_traceparent
          FROM numbered e JOIN "notification_registrations" r ON r."account_id" = e."account_id"
         WHERE (e."event_type" = ANY (r."event_types") OR e."event_type" = 'account_deleted')
           AND r."disabled_at" IS NULL
           AND (r."filter" IS NULL OR e."event_type" = 'account_deleted'
                OR EXISTS (SELECT 1 FROM passed p
                            WHERE p.ord = e.ord AND p."clientId" = r."client_id"
                              AND p.filter = r."filter"))
        RETURNING "event_id"
    )
    SELECT ev."id", ev."occurred_at"::timestamptz,
           EXISTS (SELECT 1 FROM queued q WHERE q."event_id" = ev."id"),
           coalesce(lag(ev."id") OVER (PARTITION BY ev."account_id" ORDER BY ev."id"),
                    (SELECT max(e."id") FROM "events" e WHERE e."account_id" = ev."account_id")),
           CASE WHEN ev."accessory_id" IS NOT NULL THEN
               coalesce(lag(ev."id") OVER (PARTITION BY ev."accessory_id" ORDER BY ev."id"),
                        (SELECT max(e."id") FROM "events" e WHERE e."accessory_id" = ev."accessory_id"))
           END
      FROM ev ORDER BY ev."id";
END
$$;

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
CREATE FUNCTION "clipgate_ingest"(p_heads jsonb, p_rows jsonb, p_events jsonb, p_idempotency jsonb,
                                  p_filters jsonb, p_traceparent text)
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
    INSERT INTO "activities" AS a ("accessory_id", "activity_id", "start_time", "end_time",
        "playback_duration", "relevance_level", "motion_zones", "object_locations",
        "created_at", "updated_at", "sequence")
    SELECT r."accessoryId", r."activityId", r."startTime", r."endTime", r."playbackDuration",
           r."relevanceLevel", r."motionZones", r."objectLocations", r."createdAt", r."updatedAt",
           r."sequence"
      FROM jsonb_to_recordset(p_rows) AS r("accessoryId" uuid, "activityId" text,
           "startTime" timestamptz, "endTime" timestamptz, "playbackDuration" integer,
           "relevanceLevel" integer, "motionZones" text[], "objectLocations" smallint[],
           "createdAt" timestamptz, "updatedAt" timestamptz, "sequence" integer)
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

-- The answers of ingest batches sent with an Idempotency-Key, per OAuth client and subject,
-- kept for a day (purged by the ingest.idempotency-retention job).
CREATE TABLE "idempotency_keys" (
    "client_id" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "fingerprint" TEXT NOT NULL,
    "response" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "idempotency_keys_pkey" PRIMARY KEY ("client_id", "subject", "key")
);

CREATE INDEX "idempotency_keys_created_at_idx" ON "idempotency_keys"("created_at");
