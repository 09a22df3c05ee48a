import type { Queryable } from '../../../storage/database.ts';
import { deliveryColumns, type Caller, type DeliveryRow } from '../../views.ts';

/**
 * Queues a finished delivery (discarded, gone or dropped) of the caller again, to its
 * registration as it is now (url, destination, key, userData), for a full round of attempts. Resolves with
 * it, or undefined when there is no such delivery in such a state, or no registration.
 */
export async function requeueFinished(
  q: Queryable,
  caller: Caller,
  deliveryId: string,
): Promise<DeliveryRow | undefined> {
  const { rows } = await q.query<DeliveryRow>(
    `UPDATE deliveries d
        SET state = 'pending', round_attempts = 0, next_attempt_at = now(), finished_at = NULL,
            lease_until = NULL, leased_by = NULL,
            url = r.url, origin = r.origin, auth_key = r.auth_key, user_data = r.user_data,
            previous_auth_key = r.previous_auth_key, previous_key_until = r.previous_key_until,
            signing_key = r.signing_key, previous_signing_key = r.previous_signing_key,
            destination = r.destination
       FROM notification_registrations r
      WHERE d.id = $3::bigint AND d.account_id = $1 AND d.client_id = $2
        AND r.account_id = $1 AND r.client_id = $2
        AND d.state IN ('discarded', 'gone', 'dropped')
      RETURNING ${deliveryColumns('d.')}`,
    [caller.accountId, caller.clientId, deliveryId],
  );
  return rows[0];
}
