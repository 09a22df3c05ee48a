import type { Database } from '../../../storage/database.ts';
import {
  deliveriesTable,
  deliveryAttemptsTable,
  dropPartitions,
} from '../../../storage/partitions.ts';

/**
 * Drops the days of the delivery log (deliveries and attempts) whose every row is older than the
 * retention; a day holding a pending delivery stays, whatever its age. A finished delivery is
 * kept at least `retentionDays`, and at most a day longer. Resolves with the partitions dropped;
 * several instances may run it at once.
 */
export function purgeDeliveryLog(
  db: Pick<Database, 'pool'>,
  retentionDays: number,
  now = new Date(),
): Promise<number> {
  const cutoff = new Date(now.getTime() - retentionDays * 86_400_000);
  return dropPartitions(
    db.pool,
    [
      {
        table: deliveriesTable,
        keepIf: (p) => `EXISTS (SELECT 1 FROM ${p} WHERE state = 'pending')`,
      },
      { table: deliveryAttemptsTable },
    ],
    cutoff,
    now,
  );
}
