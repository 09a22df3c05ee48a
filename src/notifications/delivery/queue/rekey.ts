import type { Queryable } from '../../../storage/database.ts';
import type { Caller } from '../../views.ts';

/**
 * Pending deliveries follow their registration's keys when they are rotated or the previous one
 * is retired: its key, its previous key and the end of the overlap, as now stored. Runs in the
 * transaction that changes them, so that no attempt after it is signed with the keys before.
 */
export async function rekeyPending(q: Queryable, caller: Caller): Promise<void> {
  await q.query({
    name: 'clipgate_rekey_pending',
    text: `UPDATE deliveries d
              SET auth_key = r.auth_key, previous_auth_key = r.previous_auth_key,
                  previous_key_until = r.previous_key_until
             FROM notification_registrations r
            WHERE r.account_id = $1 AND r.client_id = $2
              AND d.account_id = $1 AND d.client_id = $2 AND d.state = 'pending'`,
    values: [caller.accountId, caller.clientId],
  });
}
