import type { Queryable } from '../../../storage/database.ts';
import { madeByNow } from './made-by-now.ts';
import type { ClaimedDelivery } from './types.ts';

/**
 * Gives up `instanceId`'s leases of claimed deliveries that were not attempted; with `delayMs`,
 * they fall due that much later (the rate gate's deferral, throttle.ts).
 */
export async function handBack(
  q: Queryable,
  instanceId: string,
  deliveries: readonly Pick<ClaimedDelivery, 'id' | 'attempt_count'>[],
  delayMs = 0,
): Promise<void> {
  await q.query(
    `UPDATE deliveries d
        SET lease_until = NULL, leased_by = NULL, attempt_count = d.attempt_count - 1,
            next_attempt_at = CASE WHEN $3::int > 0 THEN now() + $3::int * interval '1 millisecond'
                                   ELSE d.next_attempt_at END
       FROM jsonb_to_recordset($1::jsonb) AS r(id bigint, attempt int)
      WHERE ${madeByNow('d')} AND d.id = r.id AND d.leased_by = $2 AND d.attempt_count = r.attempt
        AND d.state = 'pending'`,
    [
      JSON.stringify(deliveries.map((d) => ({ id: d.id, attempt: d.attempt_count }))),
      instanceId,
      Math.ceil(delayMs),
    ],
  );
}
