-- Half of each page of the delivery queue stays free (it was a fifth). A delivery is updated
-- twice soon after it is inserted: the claim (lease columns only, no indexed column: a HOT
-- update when its page has room) and the outcome (its state, in the due index's predicate:
-- never HOT). With a fifth free, a page filled by a burst ran out of room after a few claims,
-- and two claims in three wrote a new version elsewhere with an entry in every index; with half
-- free, every claim stays on its page (docs/decisions.md, "Notifications"). Existing pages keep
-- what they hold; new partitions get the same (src/storage/partitions.ts).
DO $$
DECLARE
    v_partition regclass;
BEGIN
    FOR v_partition IN
        SELECT inhrelid::regclass FROM pg_inherits WHERE inhparent = '"deliveries"'::regclass
    LOOP
        EXECUTE format('ALTER TABLE %s SET (fillfactor = 50)', v_partition);
    END LOOP;
END
$$;
