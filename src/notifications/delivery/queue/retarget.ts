import type { Queryable } from '../../../storage/database.ts';

/** Where a registration now sends, as stored (the key sealed, userData as JSON text or null). */
export interface RegistrationTarget {
  accountId: string;
  clientId: string;
  url: string;
  origin: string;
  sealedKey: string;
  userData: string | null;
}

/**
 * Pending deliveries follow their registration when it is saved again: its new url, key and
 * userData (saving switches the key at once: no previous key signs any more). Runs in the
 * transaction that saves it.
 */
export async function retargetPending(q: Queryable, target: RegistrationTarget): Promise<void> {
  await q.query({
    name: 'clipgate_retarget_pending',
    text: `UPDATE deliveries SET url = $3, origin = $4, auth_key = $5, user_data = $6::jsonb,
                   previous_auth_key = NULL, previous_key_until = NULL
            WHERE account_id = $1 AND client_id = $2 AND state = 'pending'`,
    values: [
      target.accountId,
      target.clientId,
      target.url,
      target.origin,
      target.sealedKey,
      target.userData,
    ],
  });
}
