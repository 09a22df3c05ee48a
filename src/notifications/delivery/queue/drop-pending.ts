import type { Queryable } from '../../../storage/database.ts';

/** Whose pending deliveries to drop: a registration's, or only those to one url of it. */
export interface DropTarget {
  accountId: string;
  clientId: string;
  /** Only the deliveries to this url (a receiver disabled or gone, not re-registered since). */
  url?: string;
  /** A delivery to leave: the one whose attempt answered 410, which records its own outcome. */
  exceptId?: string;
}

/**
 * Drops a registration's pending deliveries: it was unregistered, disabled, or its receiver
 * answered 410. A delivery whose attempt is in flight keeps that attempt's outcome if it is
 * final (./record-outcomes.ts) but is not retried. Resolves with how many were dropped.
 */
export async function dropPending(q: Queryable, target: DropTarget): Promise<number> {
  const { rowCount } = await q.query({
    name: 'clipgate_drop_pending',
    text: `UPDATE deliveries SET state = 'dropped', finished_at = now()
            WHERE account_id = $1 AND client_id = $2 AND state = 'pending'
              AND ($3::text IS NULL OR url = $3) AND ($4::bigint IS NULL OR id <> $4)`,
    values: [target.accountId, target.clientId, target.url ?? null, target.exceptId ?? null],
  });
  return rowCount ?? 0;
}
