import type { Database } from '../storage/database.ts';

/**
 * Deletes the activities that fell out of their account's retention window. Reads already
 * ignore them (the window is part of every query); this only reclaims the space. Idempotent, so
 * several instances may run it at once.
 *
 * Their media rows cascade with them, and a trigger queues the stored objects in media_garbage
 * in the same transaction; `MediaCleanup.collectGarbage` (the `media.garbage` job)
 * deletes the objects from the store.
 */
export async function purgeExpiredActivities(db: Database, now = new Date()): Promise<number> {
  const { rowCount } = await db.pool.query(
    `DELETE FROM activities a
      USING accessories x JOIN accounts c ON c.id = x.account_id
      WHERE a.accessory_id = x.id
        AND a.activity_id < to_char(($1::timestamptz - make_interval(days => c.retention_days)) AT TIME ZONE 'UTC',
                                    'YYYYMMDD"T"HH24MISS"Z"')`,
    [now.toISOString()],
  );
  return rowCount ?? 0;
}
