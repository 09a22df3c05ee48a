import type { Queryable } from '../../../storage/database.ts';
import { madeByNow } from './made-by-now.ts';
import type { Outcome } from './types.ts';

// The delivery's new state (only if this instance still holds the lease of that attempt) and the
// attempt itself, which happened either way. A delivery dropped while its attempt was in flight
// (unregistered, or another attempt's 410) keeps the final outcome of that attempt (delivered,
// gone) but is not retried. The rows are named by primary key ($3) so that the plan never
// depends on the queue's statistics. Answers the deliveries this write discarded (their last
// attempt failed) whose account still exists, for their delivery_exhausted events (a deleted
// account's last event is account_deleted).
export const RECORD_CTES = `
r AS (
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
   WHERE ${madeByNow('d')} AND d.id = ANY ($3::bigint[]) AND d.id = r.id AND d.leased_by = $2
     AND d.attempt_count = r.attempt
     AND (d.state = 'pending' OR (d.state = 'dropped' AND r.state IN ('delivered', 'gone')))
  RETURNING d.id, d.state, d.account_id
), attempts AS (
  INSERT INTO delivery_attempts (delivery_id, attempt, started_at, duration_ms, outcome, status,
                                 error, error_message, response_snippet, instance_id)
  SELECT r.id, r.attempt, r.started_at, r.duration_ms, r.outcome, r.status, r.error,
         r.error_message, r.response, $2
    FROM r JOIN deliveries d ON ${madeByNow('d')} AND d.id = ANY ($3::bigint[]) AND d.id = r.id
)`;

const RECORD_OUTCOMES_SQL = `WITH ${RECORD_CTES}
SELECT u.id::text AS id FROM u
 WHERE u.state = 'discarded' AND EXISTS (SELECT 1 FROM accounts a WHERE a.id = u.account_id)`;

/** PostgreSQL text cannot hold NUL characters. */
const pgText = (text: string) => text.replaceAll('\u0000', '\uFFFD');

/** The values of RECORD_CTES, $1 to $3. */
export function recordValues(instanceId: string, outcomes: readonly Outcome[]): unknown[] {
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
  return [JSON.stringify(rows), instanceId, outcomes.map((o) => o.delivery.id)];
}

/**
 * Writes a batch of outcomes of `instanceId`'s attempts in one statement; resolves with the ids
 * of the deliveries it discarded (of accounts that still exist).
 */
export async function recordOutcomes(
  q: Queryable,
  instanceId: string,
  outcomes: readonly Outcome[],
): Promise<Set<string>> {
  const { rows: discarded } = await q.query<{ id: string }>({
    name: 'clipgate_record_outcomes',
    text: RECORD_OUTCOMES_SQL,
    values: recordValues(instanceId, outcomes),
  });
  return new Set(discarded.map((d) => d.id));
}
