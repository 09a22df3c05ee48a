import type { WebhookQueueStats } from '../metrics.ts';
import type { Queryable } from '../../../storage/database.ts';
import { claimForm, PENDING_ORIGINS, WALK_ROWS, type ClaimForm } from './claim.ts';
import { madeByNow } from './made-by-now.ts';

// Leases of an instance that died are not looked for here: the claim takes them once expired,
// at the latest at the next poll. With saturated origins, as the claim's window is taken
// (claim.ts): a walk of the due index of at most WALK_ROWS pending deliveries, and by origin if
// they were all leased or of saturated origins.
const NEXT_DUE: Record<ClaimForm, { name: string; text: string }> = {
  inDueOrder: {
    name: 'clipgate_next_due',
    text: `
SELECT (extract(epoch FROM (min(next_attempt_at) - now())) * 1000)::float8 AS ms
  FROM deliveries
 WHERE ${madeByNow()} AND state = 'pending' AND lease_until IS NULL AND origin <> ALL ($1::text[])`,
  },
  byOrigin: {
    name: 'clipgate_next_due_by_origin',
    text: `WITH RECURSIVE walked AS (
  SELECT next_attempt_at AS at FROM (
    SELECT origin, next_attempt_at, id, lease_until FROM deliveries
     WHERE ${madeByNow()} AND state = 'pending'
     ORDER BY next_attempt_at, id
     LIMIT ${WALK_ROWS}) walk
   WHERE lease_until IS NULL AND origin <> ALL ($1::text[])
   ORDER BY next_attempt_at, id
   LIMIT 1
), by_origin AS (
  SELECT NOT EXISTS (SELECT FROM walked) AND EXISTS (
    SELECT FROM deliveries WHERE ${madeByNow()} AND state = 'pending'
     ORDER BY next_attempt_at, id OFFSET ${WALK_ROWS - 1}) AS needed
),${PENDING_ORIGINS}
SELECT (extract(epoch FROM (coalesce((SELECT at FROM walked), (
         SELECT min(d.next_attempt_at) FROM origins o, LATERAL (
           SELECT next_attempt_at FROM deliveries
            WHERE ${madeByNow()} AND state = 'pending' AND origin >= o.origin AND origin <= o.origin
              AND lease_until IS NULL
            ORDER BY origin, next_attempt_at
            LIMIT 1) d
          WHERE (SELECT needed FROM by_origin) AND o.origin <> ALL ($1::text[])))
        - now())) * 1000)::float8 AS ms`,
  },
};

/**
 * Milliseconds until the next unleased delivery (a retry, mostly) of an origin not `saturated`
 * falls due, 0 or less if one is due; null when none is pending.
 */
export async function nextDueMs(q: Queryable, saturated: string[]): Promise<number | null> {
  const { rows } = await q.query<{ ms: number | null }>({
    ...NEXT_DUE[claimForm(saturated)],
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
 * columns the claim and the outcomes select on, the registration's among them (not the payloads,
 * which would cost seconds on a large backlog). Without the registration's, a claim that looks
 * past one registration's backlog for the next (claim.ts) sorted all of it. A sample of 3,000
 * rows (statistics target 10, for this statement only: the two statements run as one implicit
 * transaction) tells pending from finished as well as the default 30,000, at a tenth of the cost:
 * a drain analyzes every few seconds.
 */
export async function analyzeQueue(q: Queryable): Promise<void> {
  await q.query(
    `SET LOCAL default_statistics_target = 10;
     ANALYZE deliveries (id, state, next_attempt_at, lease_until, origin, account_id, client_id)`,
  );
}
