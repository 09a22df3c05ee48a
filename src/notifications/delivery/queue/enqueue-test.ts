import type { Queryable } from '../../../storage/database.ts';
import { DELIVERY_COLUMNS, type Caller, type DeliveryRow } from '../../views.ts';

/**
 * Queues a delivery of `eventType` (the test notification) with an empty eventData to the
 * caller's registration, carrying `traceparent`; undefined without a registration.
 */
export async function enqueueTest(
  q: Queryable,
  caller: Caller,
  eventType: string,
  traceparent: string | null,
): Promise<DeliveryRow | undefined> {
  const { rows } = await q.query<DeliveryRow>(
    `INSERT INTO deliveries (kind, account_id, client_id, event_type, event_data, user_data,
                             url, origin, auth_key, previous_auth_key, previous_key_until,
                             signing_key, previous_signing_key, traceparent, destination)
     SELECT 'test', account_id, client_id, $3, '{}'::jsonb, user_data, url, origin, auth_key,
            previous_auth_key, previous_key_until, signing_key, previous_signing_key, $4,
            destination
       FROM notification_registrations WHERE account_id = $1 AND client_id = $2
     RETURNING ${DELIVERY_COLUMNS}`,
    [caller.accountId, caller.clientId, eventType, traceparent],
  );
  return rows[0];
}
