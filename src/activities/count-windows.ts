import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type pg from 'pg';
import { activityIdFromDate, parseActivityId } from '../activity-ids.ts';
import { queryBucketStart, queryCounts, type CountBucket, type CountQuery } from './store.ts';

const MINUTE_MS = 60_000;
const QUARTER_MS = 15 * MINUTE_MS;
const HOUR_MS = 60 * MINUTE_MS;
/** The longest calendar day (a day that ends summer time). */
const LONGEST_DAY_MS = 25 * HOUR_MS;

/** How long each statement of a count in windows should take. */
export const WINDOW_TARGET_MS = 10;
/** The span of a count's first window; the next ones follow what the last took. */
const FIRST_WINDOW_MS = 6 * HOUR_MS;

/** `q` over the activity ids [from, to), with the rollup's whole quarter hours inside them. */
export function countRange(q: CountQuery, from: string, to: string, rollup: boolean): CountQuery {
  const quarter = (ms: number) => activityIdFromDate(new Date(ms)).slice(0, 13);
  const first = quarter(Math.ceil(parseActivityId(from)!.getTime() / QUARTER_MS) * QUARTER_MS);
  const last = quarter(Math.floor(parseActivityId(to)!.getTime() / QUARTER_MS) * QUARTER_MS);
  return { ...q, from, to, rollup: rollup && first < last ? { from: first, to: last } : undefined };
}

/**
 * A count run as consecutive windows of its range, each one statement of about `targetMs`, the
 * event loop free between them: on the embedded database a statement runs on the event loop, and
 * one count over a busy year held it for seconds (the overload guard then refused every tenant).
 * Each window ends where a bucket begins, so that no bucket spans two windows and the answer is
 * the windows' answers in order, as one statement would give it. The first window spans
 * `firstSpanMs`; each next one the span that would have taken `targetMs` at the last one's pace
 * (at most four times longer or shorter, and a minute at least). Stops once more than `limit`
 * buckets are found.
 */
export async function queryCountsInWindows(
  pool: pg.Pool,
  q: CountQuery,
  limit: number,
  { targetMs = WINDOW_TARGET_MS, firstSpanMs = FIRST_WINDOW_MS } = {},
): Promise<CountBucket[]> {
  const rollup = q.rollup !== undefined;
  const found: CountBucket[] = [];
  let from = q.from;
  let span = firstSpanMs;
  while (from < q.to && found.length <= limit) {
    const to = await windowEnd(pool, q, from, span);
    const started = performance.now();
    found.push(
      ...(await queryCounts(pool, countRange(q, from, to, rollup), limit + 1 - found.length)),
    );
    const took = performance.now() - started;
    const spanned = parseActivityId(to)!.getTime() - parseActivityId(from)!.getTime();
    span = Math.max(
      MINUTE_MS,
      spanned * Math.min(4, Math.max(0.25, targetMs / Math.max(took, 0.1))),
    );
    from = to;
    await yieldToLoop();
  }
  return found;
}

/**
 * The end of a window from `from` of about `span`: the whole minute at or after the start of the
 * bucket `span` reaches into (a minute rows are counted by, inside that bucket), or the count's
 * end. A bucket that begins at or before `from` is passed over to the next.
 */
async function windowEnd(
  pool: pg.Pool,
  q: CountQuery,
  from: string,
  span: number,
): Promise<string> {
  const start = parseActivityId(from)!.getTime();
  const end = parseActivityId(q.to)!.getTime();
  for (let at = start + span; at < end; at += q.bucket === 'day' ? LONGEST_DAY_MS : HOUR_MS) {
    const bucket = await queryBucketStart(pool, q, new Date(at));
    const minute = Math.ceil(bucket.getTime() / MINUTE_MS) * MINUTE_MS;
    if (minute > start) return minute < end ? activityIdFromDate(new Date(minute)) : q.to;
  }
  return q.to;
}
