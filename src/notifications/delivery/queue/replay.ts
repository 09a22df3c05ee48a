import type { Queryable } from '../../../storage/database.ts';
import type { ReplayRange } from '../../registration.ts';
import type { Caller } from '../../views.ts';

/**
 * How many originals one statement of a replay queues again: on the embedded database each
 * statement runs on the event loop, so a replay is a series of short ones; between them the
 * service serves other requests and notices that the replay's caller went away.
 */
export const REPLAY_STEP = 500;

/** The first key of the advisory lock that lets one replay of a registration run at a time. */
const REPLAY_LOCK = 0x72706c79; // "rply"

/**
 * Takes the lock of the caller's replays for the rest of the transaction, on every instance;
 * false when another transaction holds it. Two registrations whose key hashes alike share it.
 */
export async function lockReplay(q: Queryable, caller: Caller): Promise<boolean> {
  const { rows } = await q.query<{ locked: boolean }>(
    `SELECT pg_try_advisory_xact_lock($1, hashtext($2 || ' ' || $3)) AS locked`,
    [REPLAY_LOCK, caller.accountId, caller.clientId],
  );
  return rows[0]!.locked;
}

/**
 * The ids of the caller's original event deliveries created in [from, to), in whatever state,
 * at most `limit` of them, in id order (the order they were queued in). The scan stops at
 * `limit` rows: reading one more than the maximum tells a range over it without reading the rest.
 */
export async function rangeOriginals(
  q: Queryable,
  caller: Caller,
  range: ReplayRange,
  limit: number,
): Promise<string[]> {
  const { rows } = await q.query<{ id: string }>(
    `SELECT id::text AS id FROM deliveries
      WHERE account_id = $1 AND client_id = $2 AND created_at >= $3 AND created_at < $4
        AND kind = 'event' AND replay_of IS NULL
      LIMIT $5`,
    [caller.accountId, caller.clientId, range.from, range.to, limit],
  );
  return rows.map((r) => BigInt(r.id)).sort((a, b) => (a < b ? -1 : 1)).map(String);
}

/**
 * Queues again those of `ids` (the caller's originals of the range) whose event's latest
 * delivery (its latest replay, else itself) is not pending, and with `onlyFailed` only those
 * whose latest delivery did not get through. Each is a new delivery of the same event (so the
 * same webhook-id) that points at the one it replays, to the registration as it is now (url,
 * keys, userData), carrying `traceparent`, inserted in the originals' order. Resolves with how
 * many were queued; none without a registration.
 */
export async function replayOriginals(
  q: Queryable,
  caller: Caller,
  range: ReplayRange,
  ids: readonly string[],
  traceparent: string | null,
): Promise<number> {
  const { rowCount } = await q.query(
    `INSERT INTO deliveries (kind, event_id, account_id, client_id, event_type, event_data,
                             user_data, url, origin, auth_key, previous_auth_key,
                             previous_key_until, signing_key, previous_signing_key, traceparent,
                             replay_of)
     SELECT 'event', o.event_id, o.account_id, o.client_id, o.event_type, o.event_data,
            r.user_data, r.url, r.origin, r.auth_key, r.previous_auth_key, r.previous_key_until,
            r.signing_key, r.previous_signing_key, $7, o.id
       FROM deliveries o
       JOIN notification_registrations r
         ON r.account_id = o.account_id AND r.client_id = o.client_id
      CROSS JOIN LATERAL (
            SELECT coalesce((SELECT l.state FROM deliveries l
                              WHERE l.replay_of = o.id ORDER BY l.id DESC LIMIT 1),
                            o.state) AS state) latest
      WHERE o.account_id = $1 AND o.client_id = $2 AND o.created_at >= $3 AND o.created_at < $4
        AND o.id = ANY ($6::bigint[])
        AND latest.state <> 'pending'
        AND (NOT $5::boolean OR latest.state IN ('discarded', 'gone', 'dropped'))
      ORDER BY o.id`,
    [caller.accountId, caller.clientId, range.from, range.to, range.onlyFailed, ids, traceparent],
  );
  return rowCount ?? 0;
}
