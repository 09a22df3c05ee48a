import type { Queryable } from '../../../storage/database.ts';
import type { ClaimedDelivery } from './types.ts';

/**
 * Holds a registration's queue back for `delayMs`: its pending deliveries that no instance holds
 * and that would fall due sooner fall due then instead, in their order. Run when its receiver
 * says "slow down", so that a backlog is not claimed and handed back a delivery at a time while
 * the pause lasts, and so that other instances (and this one after a restart) wait too. Read by
 * the registration index (origin, account, client, due).
 */
export async function deferRegistration(
  q: Queryable,
  registration: Pick<ClaimedDelivery, 'origin' | 'account_id' | 'client_id'>,
  delayMs: number,
): Promise<number> {
  const { rowCount } = await q.query({
    name: 'clipgate_defer_registration',
    text: `UPDATE deliveries
              SET next_attempt_at = now() + $4::int * interval '1 millisecond'
            WHERE state = 'pending' AND origin = $1 AND account_id = $2 AND client_id = $3
              AND next_attempt_at < now() + $4::int * interval '1 millisecond'
              AND (lease_until IS NULL OR lease_until <= now())`,
    values: [
      registration.origin,
      registration.account_id,
      registration.client_id,
      Math.ceil(delayMs),
    ],
  });
  return rowCount ?? 0;
}
