import type { Queryable } from '../../../storage/database.ts';
import type { Caller } from '../../views.ts';

/**
 * Pending deliveries follow their registration when it is saved again, or its keys are rotated
 * or retired: its url, destination, keys and userData as now stored. Runs in the transaction of the change,
 * so that no attempt after it is signed with the keys before.
 */
export async function retargetPending(q: Queryable, caller: Caller): Promise<void> {
  await q.query({
    name: 'clipgate_retarget_pending',
    text: `UPDATE deliveries d
              SET url = r.url, origin = r.origin, user_data = r.user_data, auth_key = r.auth_key,
                  previous_auth_key = r.previous_auth_key,
                  previous_key_until = r.previous_key_until, signing_key = r.signing_key,
                  previous_signing_key = r.previous_signing_key, destination = r.destination
             FROM notification_registrations r
            WHERE r.account_id = $1 AND r.client_id = $2
              AND d.account_id = $1 AND d.client_id = $2 AND d.state = 'pending'`,
    values: [caller.accountId, caller.clientId],
  });
}
