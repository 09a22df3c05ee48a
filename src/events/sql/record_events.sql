-- clipgate_record_events: writes events into the event log and queues their webhook deliveries,
-- in the caller's transaction (src/events/outbox.ts says how the service calls it and why).
--
-- Input: p_events, [{accountId, accessoryId, eventType, eventData}] in order; p_filters, the
-- registration filters judged in TypeScript ({judged: [{clientId, filter}], passed: [{ord,
-- clientId, filter}]}, src/events/filter.ts); p_traceparent, the trace context the deliveries
-- carry. Answers one row per event, in id order.
--
-- 1. Locks: per account, the account's accessory rows first when an event has no accessory
--    (account_deleted deletes them afterwards), then a transaction-scoped advisory lock
--    (EVENT_LOCK_CLASS, hashtext(accountId)), so that an account's events commit in id order.
-- 2. Refuses the write (SQLSTATE CGFLT) when a filtered registration of an account was not judged
--    with the filter it has now: the service judges the filters again and retries.
-- 3. Inserts the events (ids from the sequence, in input order).
-- 4. Queues one delivery per registration of the event's account that lists the event type (every
--    registration for account_deleted), not disabled, and whose filter passed the event (events
--    no filter judges, those without an accessory or of other types than activity_* and
--    motion_*, pass every filter): the
--    delivery queue's enqueue (src/notifications/delivery/queue.ts lists every state change of
--    a delivery). A delivery carries a snapshot of its registration.
-- 5. Answers each event's id and time, the receiver origins its deliveries went to (the
--    dispatcher's wake-ups), and the id each of its streams (account, accessory) ended with
--    before it (live subscribers' order, src/events/live/topic.ts). "event_queued" stays for
--    instances of an older release during a rolling upgrade.
CREATE OR REPLACE FUNCTION "clipgate_record_events"(p_events jsonb, p_filters jsonb,
                                                    p_traceparent text)
RETURNS TABLE (
    "event_id" bigint,
    "event_occurred_at" timestamptz,
    "event_queued" boolean,
    "event_origins" text[],
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
                                  "previous_auth_key", "previous_key_until", "signing_key",
                                  "previous_signing_key", "traceparent", "destination")
        SELECT 'event', e."id", r."account_id", r."client_id", e."event_type", e."event_data",
               r."user_data", r."url", r."origin", r."auth_key", r."previous_auth_key",
               r."previous_key_until", r."signing_key", r."previous_signing_key", p_traceparent,
               r."destination"
          FROM numbered e JOIN "notification_registrations" r ON r."account_id" = e."account_id"
         WHERE (e."event_type" = ANY (r."event_types") OR e."event_type" = 'account_deleted')
           AND r."disabled_at" IS NULL
           AND (r."filter" IS NULL
                -- what no filter judges passes (src/events/filter.ts, filterSubject):
                -- account_deleted, the operational events
                OR e."accessory_id" IS NULL
                OR NOT (e."event_type" LIKE 'activity\_%' OR e."event_type" LIKE 'motion\_%')
                OR EXISTS (SELECT 1 FROM passed p
                            WHERE p.ord = e.ord AND p."clientId" = r."client_id"
                              AND p.filter = r."filter"))
        RETURNING "event_id", "origin"
    )
    SELECT ev."id", ev."occurred_at"::timestamptz,
           EXISTS (SELECT 1 FROM queued q WHERE q."event_id" = ev."id"),
           (SELECT array_agg(DISTINCT q."origin") FROM queued q WHERE q."event_id" = ev."id"),
           coalesce(lag(ev."id") OVER (PARTITION BY ev."account_id" ORDER BY ev."id"),
                    (SELECT max(e."id") FROM "events" e WHERE e."account_id" = ev."account_id")),
           CASE WHEN ev."accessory_id" IS NOT NULL THEN
               coalesce(lag(ev."id") OVER (PARTITION BY ev."accessory_id" ORDER BY ev."id"),
                        (SELECT max(e."id") FROM "events" e WHERE e."accessory_id" = ev."accessory_id"))
           END
      FROM ev ORDER BY ev."id";
END
$$;
