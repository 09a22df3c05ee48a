-- The key of activity_rollup an activity counts under: the UTC quarter hour of its id,
-- 'YYYYMMDDTHHMM' with minutes 00, 15, 30 or 45 (migration 20261127060000).
CREATE OR REPLACE FUNCTION "clipgate_rollup_slot"(p_activity_id text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT left(p_activity_id, 11) || lpad((substr(p_activity_id, 12, 2)::int / 15 * 15)::text, 2, '0')
$$;
