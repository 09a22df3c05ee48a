import pg from 'pg';
import type { WebhookQueueStats } from '../../http/metrics.ts';
import type { Database } from '../../storage/database.ts';
import {
  deliveriesTable,
  deliveryAttemptsTable,
  dropPartitions,
} from '../../storage/partitions.ts';
import type { AttemptResult, DeliveryContent, NextStep } from './policy.ts';
import type { ClaimLimits } from './slots.ts';

/**
 * Every statement that changes or reads the delivery queue for dispatch, one named function
 * each, on the `deliveries` table the outbox fills (src/events/outbox.ts): claim, record
 * outcomes, hand back, drop a gone receiver, next due, queue stats, ANALYZE, and the log purge.
 * Each is one statement: no transaction is ever held while sending.
 */

export type Queryable = Pick<pg.Pool, 'query'>;

/** A delivery leased to this instance by `claimDeliveries`. */
export interface ClaimedDelivery extends DeliveryContent {
  client_id: string;
  origin: string;
  /** The receiver's key, sealed (secrets.ts). */
  auth_key: string;
  /** Claims so far, this one included: the fence of its lease, and the attempt's number. */
  attempt_count: number;
  /** Attempts recorded in the current round (since it was queued or redelivered). */
  round_attempts: number;
  /** The W3C trace context of the request that queued it (null: not traced). */
  traceparent: string | null;
}

/** An attempt and what follows from it, as `recordOutcomes` writes it. */
export interface Outcome {
  delivery: Pick<ClaimedDelivery, 'id' | 'attempt_count'>;
  startedAt: Date;
  result: AttemptResult;
  next: NextStep;
}

/**
 * The dispatcher's own connections on PostgreSQL, so that claims and outcomes never queue behind
 * request traffic in the shared pool, with `synchronous_commit = off`: losing the last claims or
 * outcomes in a crash only repeats an attempt (at least once), while the outbox rows themselves
 * are written by the ingest transactions, durably. The embedded database has one connection,
 * shared.
 */
export function dispatcherPool(
  db: Database,
  onIdleError: (err: Error) => void,
): { pool: Queryable; end(): Promise<void> } {
  if (db.kind !== 'postgres') return { pool: db.pool, end: async () => undefined };
  const pool = new pg.Pool({
    connectionString: db.connectionString,
    max: 4,
    application_name: 'clipgate-dispatcher',
    // A burst of deliveries (say, after an outage) is claimed before autovacuum has analyzed
    // the table: planned from stale statistics, the claim would bitmap-scan and sort every
    // pending row each time instead of walking the due index in order.
    options: '-c synchronous_commit=off -c enable_bitmapscan=off',
  });
  pool.on('error', onIdleError);
  return { pool, end: () => pool.end() };
}

// The first `$2` due, unleased (or lease-expired) deliveries in due order, at most the room of
// each receiver origin ($5, default $6) of them, saturated origins ($1) left out. Candidates are
// read without locks; only the picked rows are locked, SKIP LOCKED, and their claimability is
// checked again on the locked version (READ COMMITTED re-evaluates the conditions of a FOR
// UPDATE row that changed), so two instances never lease the same delivery.
const CLAIM_SQL = `
WITH c AS (
  SELECT id, origin, next_attempt_at FROM deliveries
   WHERE state = 'pending' AND next_attempt_at <= now()
     AND (lease_until IS NULL OR lease_until <= now())
     AND origin <> ALL ($1::text[])
   ORDER BY next_attempt_at, id
   LIMIT $2
), picked AS (
  SELECT id FROM (
    SELECT id, origin, row_number() OVER (PARTITION BY origin ORDER BY next_attempt_at, id) AS rn
      FROM c) ranked
   WHERE rn <= coalesce(($5::jsonb ->> origin)::int, $6::int)
), locked AS (
  SELECT id FROM deliveries
   WHERE id = ANY (ARRAY(SELECT id FROM picked))
     AND state = 'pending' AND (lease_until IS NULL OR lease_until <= now())
   FOR UPDATE SKIP LOCKED
)
UPDATE deliveries d
   SET lease_until = now() + $3::int * interval '1 millisecond',
       leased_by = $4,
       attempt_count = d.attempt_count + 1
 WHERE d.id = ANY (ARRAY(SELECT id FROM locked))
RETURNING d.id::text AS id, d.kind, d.event_id::text AS event_id, d.account_id, d.client_id,
          d.event_type, d.event_data, d.user_data, d.url, d.origin, d.auth_key, d.attempt_count,
          d.round_attempts, d.traceparent`;

/** Leases up to `limit` due deliveries to `instanceId` for `leaseMs`, within `limits`. */
export async function claimDeliveries(
  q: Queryable,
  args: {
    instanceId: string;
    leaseMs: number;
    limit: number;
    limits: ClaimLimits;
    perOrigin: number;
  },
): Promise<ClaimedDelivery[]> {
  const { rows } = await q.query<ClaimedDelivery>({
    name: 'clipgate_claim_deliveries',
    text: CLAIM_SQL,
    values: [
      args.limits.saturated,
      args.limit,
      args.leaseMs,
      args.instanceId,
      JSON.stringify(args.limits.room),
      args.perOrigin,
    ],
  });
  return rows;
}

// The delivery's new state (only if this instance still holds the lease of that attempt) and the
// attempt itself, which happened either way. A delivery dropped while its attempt was in flight
// (unregistered, or another attempt's 410) keeps the final outcome of that attempt (delivered,
// gone) but is not retried. The rows are named by primary key ($3) so that the plan never
// depends on the queue's statistics.
const RECORD_OUTCOMES_SQL = `
WITH r AS (
  SELECT * FROM jsonb_to_recordset($1::jsonb) AS r(
    id bigint, attempt int, state text, delay_ms int, started_at timestamptz, duration_ms int,
    outcome text, status int, error text, error_message text, response text)
), u AS (
  UPDATE deliveries d
     SET state = r.state,
         round_attempts = d.round_attempts + 1,
         next_attempt_at = CASE WHEN r.state = 'pending'
                                THEN now() + r.delay_ms * interval '1 millisecond'
                                ELSE d.next_attempt_at END,
         lease_until = NULL,
         leased_by = NULL,
         finished_at = CASE WHEN r.state = 'pending' THEN NULL ELSE now() END
    FROM r
   WHERE d.id = ANY ($3::bigint[]) AND d.id = r.id AND d.leased_by = $2
     AND d.attempt_count = r.attempt
     AND (d.state = 'pending' OR (d.state = 'dropped' AND r.state IN ('delivered', 'gone')))
  RETURNING d.id
)
INSERT INTO delivery_attempts (delivery_id, attempt, started_at, duration_ms, outcome, status,
                               error, error_message, response_snippet, instance_id)
SELECT r.id, r.attempt, r.started_at, r.duration_ms, r.outcome, r.status, r.error,
       r.error_message, r.response, $2
  FROM r JOIN deliveries d ON d.id = ANY ($3::bigint[]) AND d.id = r.id`;

/** PostgreSQL text cannot hold NUL characters. */
const pgText = (text: string) => text.replaceAll('\u0000', '\uFFFD');

/** Writes a batch of outcomes of `instanceId`'s attempts in one statement. */
export async function recordOutcomes(
  q: Queryable,
  instanceId: string,
  outcomes: readonly Outcome[],
): Promise<void> {
  const rows = outcomes.map(({ delivery, startedAt, result, next }) => ({
    id: delivery.id,
    attempt: delivery.attempt_count,
    state: next.state,
    delay_ms: next.state === 'pending' ? next.delayMs : 0,
    started_at: startedAt.toISOString(),
    duration_ms: result.durationMs,
    outcome: result.outcome,
    status: result.status,
    error: result.error,
    error_message: pgText(result.errorMessage ?? '') || null,
    response: pgText(result.responseSnippet),
  }));
  await q.query({
    name: 'clipgate_record_outcomes',
    text: RECORD_OUTCOMES_SQL,
    values: [JSON.stringify(rows), instanceId, outcomes.map((o) => o.delivery.id)],
  });
}

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
      WHERE d.id = r.id AND d.leased_by = $2 AND d.attempt_count = r.attempt
        AND d.state = 'pending'`,
    [
      JSON.stringify(deliveries.map((d) => ({ id: d.id, attempt: d.attempt_count }))),
      instanceId,
      Math.ceil(delayMs),
    ],
  );
}

// A 410: the registration goes, as if unregistered (unless it was re-registered elsewhere
// meanwhile), and what is still queued for that receiver is dropped.
const DROP_GONE_SQL = `
WITH removed AS (
  DELETE FROM notification_registrations WHERE account_id = $1 AND client_id = $2 AND url = $3
)
UPDATE deliveries SET state = 'dropped', finished_at = now()
 WHERE account_id = $1 AND client_id = $2 AND url = $3 AND state = 'pending' AND id <> $4`;

/**
 * The receiver of `delivery` answered 410: removes its registration and drops the rest of its
 * queue; resolves with how many deliveries were dropped.
 */
export async function dropGoneReceiver(
  q: Queryable,
  delivery: Pick<ClaimedDelivery, 'id' | 'account_id' | 'client_id' | 'url'>,
): Promise<number> {
  const { rowCount } = await q.query(DROP_GONE_SQL, [
    delivery.account_id,
    delivery.client_id,
    delivery.url,
    delivery.id,
  ]);
  return rowCount ?? 0;
}

// Leases of an instance that died are not looked for here: the claim takes them once expired,
// at the latest at the next poll.
const NEXT_DUE_SQL = `
SELECT (extract(epoch FROM (min(next_attempt_at) - now())) * 1000)::float8 AS ms
  FROM deliveries
 WHERE state = 'pending' AND lease_until IS NULL AND origin <> ALL ($1::text[])`;

/**
 * Milliseconds until the next unleased delivery (a retry, mostly) of an origin not `saturated`
 * falls due, 0 or less if one is due; null when none is pending.
 */
export async function nextDueMs(q: Queryable, saturated: string[]): Promise<number | null> {
  const { rows } = await q.query<{ ms: number | null }>({
    name: 'clipgate_next_due',
    text: NEXT_DUE_SQL,
    values: [saturated],
  });
  return rows[0]?.ms ?? null;
}

/** Pending deliveries and the age of the oldest, for the metrics. */
export async function queueStats(q: Queryable): Promise<WebhookQueueStats> {
  const { rows } = await q.query<{ depth: number; oldest: number }>(
    `SELECT count(*)::int AS depth,
            coalesce(extract(epoch FROM now() - min(created_at)), 0)::float8 AS oldest
       FROM deliveries WHERE state = 'pending'`,
  );
  return { depth: rows[0]?.depth ?? 0, oldestPendingSeconds: rows[0]?.oldest ?? 0 };
}

/**
 * Refreshes the queue's statistics, on which the claim's plan depends: the row counts and the
 * columns the claim and the outcomes select on (not the payloads, which would cost seconds on a
 * large backlog). A sample of 3,000 rows (statistics target 10, for this statement only: the
 * two statements run as one implicit transaction) tells pending from finished as well as the
 * default 30,000, at a tenth of the cost: a drain analyzes every few seconds.
 */
export async function analyzeQueue(q: Queryable): Promise<void> {
  await q.query(
    `SET LOCAL default_statistics_target = 10;
     ANALYZE deliveries (id, state, next_attempt_at, lease_until, origin)`,
  );
}

/**
 * Drops the days of the delivery log (deliveries and attempts) whose every row is older than the
 * retention; a day holding a pending delivery stays, whatever its age. A finished delivery is
 * kept at least `retentionDays`, and at most a day longer. Resolves with the partitions dropped;
 * several instances may run it at once.
 */
export function purgeDeliveryLog(
  db: Pick<Database, 'pool'>,
  retentionDays: number,
  now = new Date(),
): Promise<number> {
  const cutoff = new Date(now.getTime() - retentionDays * 86_400_000);
  return dropPartitions(
    db.pool,
    [
      {
        table: deliveriesTable,
        keepIf: (p) => `EXISTS (SELECT 1 FROM ${p} WHERE state = 'pending')`,
      },
      { table: deliveryAttemptsTable },
    ],
    cutoff,
    now,
  );
}
