import { pointsOfDatabaseTime } from '../limits/cost.ts';
import type { CountGroup } from './store.ts';

/**
 * What a count asks of the database before it runs, in cost points (src/limits/cost.ts): the
 * rows its range scans and the buckets it answers, groups multiplying them. The constants are
 * bench/cost.ts's measurements (`npm run bench:cost`, PostgreSQL's, on a loaded machine
 * of two cores); the rows a range holds are unknown until it runs, so the estimate assumes
 * ROWS_PER_HOUR, and the actual cost (the database time taken) settles the difference.
 */
export const MS_PER_SCANNED_ROW = 0.016;
export const MS_PER_BUCKET = 0.015;
/**
 * The activities an hour of the range is assumed to hold: a quiet account's. A busier one's
 * count takes longer than asked for, and pays the difference when it is settled.
 */
export const ROWS_PER_HOUR = 1;
/** The accessories ACCESSORY is assumed to split a bucket into, unless `accessoryIds` says. */
const ACCESSORIES_ASSUMED = 10;
/** The relevance levels RELEVANCE is assumed to split a bucket into. */
const RELEVANCE_LEVELS_ASSUMED = 4;
/** The zones ZONE splits a bucket into: z1..z5, zR and none. */
const ZONES = 7;

/** The longest range a count covers. */
export const MAX_COUNT_RANGE_DAYS = 400;

/** The most buckets one count answers (hours or days times groups): more is a 400 on `bucket`. */
export const MAX_COUNT_BUCKETS = 50_000;

const HOUR_MS = 3_600_000;

/** What a count's cost depends on (CountRequest's fields). */
interface CountShape {
  from: Date;
  to: Date;
  bucket: 'HOUR' | 'DAY';
  groupBy: readonly CountGroup[];
  accessoryIds?: readonly string[];
}

/** How many times each group splits a bucket, at most (as assumed). */
export function groupFactor(req: Pick<CountShape, 'groupBy' | 'accessoryIds'>): number {
  let factor = 1;
  for (const group of new Set(req.groupBy)) {
    if (group === 'ACCESSORY') factor *= req.accessoryIds?.length ?? ACCESSORIES_ASSUMED;
    else if (group === 'RELEVANCE') factor *= RELEVANCE_LEVELS_ASSUMED;
    else factor *= ZONES;
  }
  return factor;
}

/**
 * The requested cost of a count: its range's rows at ROWS_PER_HOUR (ZONE reads each of an
 * activity's zones as a row), and its hours or days times groupFactor as buckets; 1 at least.
 */
export function countCost(req: CountShape): number {
  const hours = Math.max(0, (req.to.getTime() - req.from.getTime()) / HOUR_MS);
  const buckets = Math.ceil(req.bucket === 'DAY' ? hours / 24 : hours);
  const rowsPerActivity = req.groupBy.includes('ZONE') ? 2 : 1;
  const ms =
    hours * ROWS_PER_HOUR * rowsPerActivity * MS_PER_SCANNED_ROW +
    buckets * groupFactor(req) * MS_PER_BUCKET;
  return Math.max(1, pointsOfDatabaseTime(ms));
}
