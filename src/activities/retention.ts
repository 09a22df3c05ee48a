import type { Database } from '../storage/database.ts';
import {
  activitiesTable,
  dropPartitions,
  mediaObjectsTable,
  type PartitionDrop,
} from '../storage/partitions.ts';

const DAY_MS = 86_400_000;

/**
 * Dropping a day of activities: the rollup first forgets what it held (no trigger sees it). A
 * slot is a quarter hour of the activity ids, and a partition a whole UTC day of them, so every
 * row of the day's slots counted only activities of this partition: they go.
 */
export const activitiesDrop: PartitionDrop = {
  table: activitiesTable,
  before: (p) => `DELETE FROM activity_rollup r
   USING (SELECT DISTINCT account_id, clipgate_rollup_slot(activity_id) AS slot, relevance_level,
                 array_to_string(motion_zones, ',') AS zones
            FROM ${p}) x
   WHERE (r.account_id, r.slot, r.relevance_level, r.zones)
       = (x.account_id, x.slot, x.relevance_level, x.zones)`,
};

/**
 * Drops the days of activities (and of their media, partitioned alike) that are past every
 * account's retention window: whole partitions, so no row-by-row delete bloats the table or the
 * paging index. Until its day goes, a row past its own account's (shorter) window stays stored
 * but invisible: every read applies the account's window. Resolves with the partitions dropped.
 * Several instances may run it at once (the partition lock serializes them).
 *
 * Dropping a partition fires no trigger, so the media partition first queues its stored objects
 * in media_garbage, and the activities partition takes what it held off activity_rollup, in the
 * same transaction; `MediaCleanup.collectGarbage` (the
 * `media.garbage` job) deletes them from the store.
 */
export async function purgeExpiredActivities(
  db: Pick<Database, 'pool'>,
  now = new Date(),
): Promise<number> {
  const { rows } = await db.pool.query<{ days: number | null }>(
    'SELECT max(retention_days)::int AS days FROM accounts',
  );
  // Without accounts there are no activities, and an account being created must not find its
  // first activity's day dropped under it.
  const days = rows[0]?.days;
  if (days === null || days === undefined) return 0;
  const cutoff = new Date(now.getTime() - days * DAY_MS);
  return dropPartitions(
    db.pool,
    [
      {
        table: mediaObjectsTable,
        before: (p) => `INSERT INTO media_garbage (prefix)
          SELECT accessory_id || '/' || activity_id || '/' || upload_id || '/' FROM ${p}`,
      },
      activitiesDrop,
    ],
    cutoff,
    now,
  );
}
