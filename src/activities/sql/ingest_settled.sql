-- Ingest, answering with it which clips a finishing write made ready to announce, so that the
-- service does not ask in a second round trip after every finishing write
-- (docs/decisions/0024-ingest-one-round-trip.md). Takes and answers what clipgate_ingest does;
-- when it wrote, the answer also
-- has "settled": [{accessoryId, activityId}], the finished activities among the written rows
-- whose MP4 is stored, packaged (or failed) and not yet announced, read after the writes under
-- the accessory row locks that the upload and the packager take too. The service announces
-- those (each in its own transaction, checked again there); none is the usual answer.
CREATE OR REPLACE FUNCTION "clipgate_ingest_settled"(p_heads jsonb, p_rows jsonb, p_events jsonb,
                                                     p_idempotency jsonb, p_filters jsonb,
                                                     p_traceparent text)
RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
    v_answer jsonb;
    v_settled jsonb;
BEGIN
    v_answer := "clipgate_ingest"(p_heads, p_rows, p_events, p_idempotency, p_filters,
                                  p_traceparent);
    IF v_answer ? 'stale' THEN
        RETURN v_answer;
    END IF;
    SELECT coalesce(jsonb_agg(jsonb_build_object('accessoryId', m."accessory_id",
                                                 'activityId', m."activity_id")), '[]')
      INTO v_settled
      FROM jsonb_to_recordset(p_rows) AS r("accessoryId" uuid, "activityId" text,
                                           "endTime" timestamptz)
      JOIN "media_objects" m ON m."accessory_id" = r."accessoryId"
                            AND m."activity_id" = r."activityId"
     WHERE r."endTime" IS NOT NULL
       AND m."kind" = 'mp4' AND m."package_status" IN ('ready', 'failed')
       AND m."ready_event_at" IS NULL;
    RETURN v_answer || jsonb_build_object('settled', v_settled);
END
$$;
