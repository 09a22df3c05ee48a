import type { Database } from '../storage/database.ts';
import { activitiesTable, dropPartitions, mediaObjectsTable } from '../storage/partitions.ts';

const DAY_MS = 86_400_000;

/**
 * Drops the days of activities (and of their media, partitioned alike) that are past every
 * account's retention window: whole partitions, so no row-by-row delete bloats the table or the
 * paging index. Until its day goes, a row past its own account's (shorter) window stays stored
 * but invisible: every read applies the account's window. Resolves with the partitions dropped.
 * Several instances may run it at once (the partition lock serializes them).
 *
 * Dropping a partition fires no trigger, so the media partition first queues its stored objects
 * in media_garbage, in the same transaction; `MediaCleanup.collectGarbage` (the
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
      { table: activitiesTable },
    ],
    cutoff,
    now,
  );
}
