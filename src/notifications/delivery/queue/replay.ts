import type { Queryable } from '../../../storage/database.ts';
import type { ReplayRange } from '../../registration.ts';
import type { Caller } from '../../views.ts';

// The caller's original event deliveries created in [$3, $4), each with the state of the
// latest delivery of its event (an earlier replay's, if any): those not pending, and with
// $5 only those whose latest delivery did not get through.
const CHOSEN = `
WITH originals AS (
  SELECT * FROM deliveries
   WHERE account_id = $1 AND client_id = $2 AND kind = 'event' AND replay_of IS NULL
     AND created_at >= $3 AND created_at < $4
), latest AS (
  SELECT DISTINCT ON (event_id) event_id, state FROM deliveries
   WHERE account_id = $1 AND client_id = $2
     AND event_id = ANY (ARRAY(SELECT event_id FROM originals))
   ORDER BY event_id, id DESC
), chosen AS (
  SELECT o.* FROM originals o JOIN latest l ON l.event_id = o.event_id
   WHERE l.state <> 'pending'
     AND (NOT $5::boolean OR l.state IN ('discarded', 'gone', 'dropped'))
)`;

const rangeValues = (caller: Caller, range: ReplayRange) => [
  caller.accountId,
  caller.clientId,
  range.from,
  range.to,
  range.onlyFailed,
];

/** How many notifications `replayRange` would queue for the range. */
export async function countReplay(
  q: Queryable,
  caller: Caller,
  range: ReplayRange,
): Promise<number> {
  const { rows } = await q.query<{ count: number }>(
    `${CHOSEN} SELECT count(*)::int AS count FROM chosen`,
    rangeValues(caller, range),
  );
  return rows[0]!.count;
}

/**
 * Queues the caller's events of the range again, in their original order, each as a new
 * delivery of the same event (so the same webhook-id) that points at the one it replays, to
 * the registration as it is now (url, keys, userData), carrying `traceparent`. Resolves with how
 * many were queued; none without a registration.
 */
export async function replayRange(
  q: Queryable,
  caller: Caller,
  range: ReplayRange,
  traceparent: string | null,
): Promise<number> {
  const { rowCount } = await q.query(
    `${CHOSEN}
     INSERT INTO deliveries (kind, event_id, account_id, client_id, event_type, event_data,
                             user_data, url, origin, auth_key, previous_auth_key,
                             previous_key_until, signing_key, previous_signing_key, traceparent,
                             replay_of)
     SELECT 'event', c.event_id, c.account_id, c.client_id, c.event_type, c.event_data,
            r.user_data, r.url, r.origin, r.auth_key, r.previous_auth_key, r.previous_key_until,
            r.signing_key, r.previous_signing_key, $6, c.id
       FROM chosen c JOIN notification_registrations r
         ON r.account_id = c.account_id AND r.client_id = c.client_id
      ORDER BY c.id`,
    [...rangeValues(caller, range), traceparent],
  );
  return rowCount ?? 0;
}
