import type { Queryable } from '../../../storage/database.ts';
import type { ReplayRange } from '../../registration.ts';
import type { Caller } from '../../views.ts';

/**
 * How many originals one statement of a replay reads or queues again: a replay is a series of
 * short statements, none in a transaction, so that on the embedded database (one connection, run
 * on the event loop) other requests take their turns between them, and the replay notices that
 * its caller went away. Another tenant's request waits for one step at most: 25 keeps a step to a
 * few milliseconds there (with 100, `bench:neighbours` measured that tenant's p99 under
 * back-to-back replays at 2.7 times its quiet one; with 25, at 1.6 times).
 */
export const REPLAY_STEP = 25;

/** The first key of the advisory lock that makes a second replay of a registration wait for none. */
const REPLAY_LOCK = 0x72706c79; // "rply"

/** How long a replay holds its registration's turn at most (an instance that died mid-replay). */
const REPLAY_LEASE_MS = 120_000;

/** Whether the caller's replay may run: it may, another one is running, or no registration. */
export type ReplayTurn = 'taken' | 'running' | 'unregistered';

/**
 * Takes the caller's turn to replay, on every instance: the registration's `replaying_until`,
 * for REPLAY_LEASE_MS or until `endReplay`. One statement, so that no transaction is held while
 * the replay runs; its advisory lock answers a second replay that comes meanwhile at once
 * (`running`) rather than after the first's statement. Two registrations whose key hashes alike
 * share that lock for the statement's length.
 */
export async function takeReplayTurn(q: Queryable, caller: Caller): Promise<ReplayTurn> {
  const { rows } = await q.query<{ locked: boolean; taken: boolean; registered: boolean }>(
    `WITH lock AS (
       SELECT pg_try_advisory_xact_lock($1, hashtext($2::text || ' ' || $3)) AS locked
     ), taken AS (
       UPDATE notification_registrations
          SET replaying_until = now() + $4::int * interval '1 millisecond'
        WHERE account_id = $2::text::uuid AND client_id = $3 AND (SELECT locked FROM lock)
          AND (replaying_until IS NULL OR replaying_until <= now())
       RETURNING 1
     )
     SELECT (SELECT locked FROM lock) AS locked, EXISTS (SELECT 1 FROM taken) AS taken,
            EXISTS (SELECT 1 FROM notification_registrations
                     WHERE account_id = $2::text::uuid AND client_id = $3) AS registered`,
    [REPLAY_LOCK, caller.accountId, caller.clientId, REPLAY_LEASE_MS],
  );
  const { taken, registered } = rows[0]!;
  return taken ? 'taken' : registered ? 'running' : 'unregistered';
}

/** Gives the caller's turn to replay back. */
export async function endReplay(q: Queryable, caller: Caller): Promise<void> {
  await q.query(
    `UPDATE notification_registrations SET replaying_until = NULL
      WHERE account_id = $1 AND client_id = $2`,
    [caller.accountId, caller.clientId],
  );
}

/**
 * The state of an original's event now: of its latest replay (found by (replay_of, id)), else its
 * own; `o` is the original.
 */
const LATEST_STATE = `CROSS JOIN LATERAL (
  SELECT coalesce((SELECT l.state FROM deliveries l
                    WHERE l.replay_of = o.id ORDER BY l.id DESC LIMIT 1),
                  o.state) AS state) latest`;

/**
 * Whether the original's event is replayed: its latest delivery is not pending, and with
 * `onlyFailed` (the parameter named) did not get through.
 */
const REPLAYABLE = (onlyFailed: string) => `latest.state <> 'pending'
  AND (NOT ${onlyFailed}::boolean OR latest.state IN ('discarded', 'gone', 'dropped'))`;

/** Where a page of a range's originals starts: after this original. */
export interface RangeKey {
  /** As PostgreSQL writes it, read back exactly. */
  createdAt: string;
  id: string;
}

/** An original of a range, and whether a replay queues it again now. */
export interface RangeOriginal extends RangeKey {
  replayable: boolean;
}

/**
 * The caller's original event deliveries created in [from, to), in whatever state, after `after`
 * in (created_at, id) order: at most `limit`, read by (account_id, client_id, created_at, id),
 * so that a page reads only its own rows; each says whether a replay (with `onlyFailed`) queues
 * it again now. `after` null: from the range's start.
 */
export async function rangeOriginals(
  q: Queryable,
  caller: Caller,
  range: ReplayRange,
  after: RangeKey | null,
  limit: number,
): Promise<RangeOriginal[]> {
  const { rows } = await q.query<RangeOriginal>(
    `SELECT o.created_at::text AS "createdAt", o.id::text AS id, ${REPLAYABLE('$7')} AS replayable
       FROM deliveries o ${LATEST_STATE}
      WHERE o.account_id = $1 AND o.client_id = $2
        AND (o.created_at, o.id) > ($3::timestamptz, $4::bigint) AND o.created_at < $5
        AND o.kind = 'event' AND o.replay_of IS NULL
      ORDER BY o.created_at, o.id LIMIT $6`,
    [
      caller.accountId,
      caller.clientId,
      after?.createdAt ?? range.from,
      after?.id ?? 0,
      range.to,
      limit,
      range.onlyFailed,
    ],
  );
  return rows;
}

/** How finely a replay's notifications are spread: those of a tick fall due together. */
const REPLAY_TICK_MS = 100;

/**
 * Queues again those of `ids` (the caller's originals of the range) that are still replayable
 * (rangeOriginals said so, but another replay may have queued them since). Each is a new
 * delivery of the same event (so the same webhook-id) that points at the one it replays, to the
 * registration as it is now (url, keys, userData), carrying `traceparent`, inserted in the
 * originals' order. They fall due `ratePerSecond` a second (by ticks of REPLAY_TICK_MS), from the
 * registration's `next_replay_at` (or now), which moves past them: a tenant's replays take their
 * turn after each other and leave the dispatcher, the database and the receiver's host to
 * everyone else meanwhile, and new notifications go before them. Resolves with how many were
 * queued; none without a registration.
 */
export async function replayOriginals(
  q: Queryable,
  caller: Caller,
  onlyFailed: boolean,
  ids: readonly string[],
  traceparent: string | null,
  ratePerSecond: number,
): Promise<number> {
  const { rows } = await q.query<{ queued: number }>(
    `WITH pace AS (
       SELECT greatest(now(), coalesce(next_replay_at, now())) AS start
         FROM notification_registrations WHERE account_id = $1 AND client_id = $2
     ), queued AS (
       INSERT INTO deliveries (kind, event_id, account_id, client_id, event_type, event_data,
                               user_data, url, origin, auth_key, previous_auth_key,
                               previous_key_until, signing_key, previous_signing_key, traceparent,
                               replay_of, destination, next_attempt_at)
       SELECT 'event', o.event_id, o.account_id, o.client_id, o.event_type, o.event_data,
              r.user_data, r.url, r.origin, r.auth_key, r.previous_auth_key, r.previous_key_until,
              r.signing_key, r.previous_signing_key, $5, o.id, r.destination,
              pace.start + ((row_number() OVER (ORDER BY o.id) - 1) * 1000 / $6 / $7 * $7)
                           * interval '1 millisecond'
         FROM deliveries o
         JOIN notification_registrations r
           ON r.account_id = o.account_id AND r.client_id = o.client_id
        CROSS JOIN pace ${LATEST_STATE}
        WHERE o.account_id = $1 AND o.client_id = $2 AND o.id = ANY ($4::bigint[])
          AND ${REPLAYABLE('$3')}
        ORDER BY o.id
        RETURNING 1
     ), paced AS (
       UPDATE notification_registrations
          SET next_replay_at = (SELECT start FROM pace)
                               + (SELECT count(*) FROM queued) * 1000 / $6 * interval '1 millisecond'
        WHERE account_id = $1 AND client_id = $2 AND EXISTS (SELECT 1 FROM queued)
     )
     SELECT count(*)::int AS queued FROM queued`,
    [
      caller.accountId,
      caller.clientId,
      onlyFailed,
      ids,
      traceparent,
      ratePerSecond,
      REPLAY_TICK_MS,
    ],
  );
  return rows[0]!.queued;
}
