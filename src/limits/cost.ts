import type { Principal } from '../accounts/auth.ts';
import { AppError } from '../errors.ts';
import { rateLimited, rateLimitHeaders, type RateDecision, type RateLimiter } from './rate.ts';

/**
 * What a request costs, in the points of the caller's cost budget (`RATE_LIMIT_COST` a second):
 * asked for before it runs (its requested cost, an estimate from its arguments), and settled
 * after it ran (its actual cost, from the database time it took). A point is 10 µs of database
 * time, so a budget of `RATE_LIMIT_COST` points a second is `RATE_LIMIT_COST / 100` milliseconds
 * of database time a second (bench/cost.ts measures the constants behind the estimates).
 */
export const POINTS_PER_DATABASE_MS = 100;

/** The points of `ms` milliseconds of database time. */
export const pointsOfDatabaseTime = (ms: number): number => Math.ceil(ms * POINTS_PER_DATABASE_MS);

/** What is left of a caller's cost budget, in Shopify's names. */
export interface ThrottleStatus {
  maximumAvailable: number;
  currentlyAvailable: number;
  restoreRate: number;
}

export const throttleStatus = (d: RateDecision): ThrottleStatus => ({
  maximumAvailable: d.policy.burst,
  currentlyAvailable: d.remaining,
  restoreRate: d.policy.ratePerSecond,
});

/**
 * Takes a REST request's requested cost from its caller's cost budget before it runs: a request
 * costing more than the whole burst is INVALID_ARGUMENT naming `RATE_LIMIT_COST` (it could never
 * run), one costing more than is left RATE_LIMITED with Retry-After. Undefined when not limited.
 */
export async function chargeCost(
  limiter: RateLimiter,
  principal: Principal,
  requested: number,
): Promise<RateDecision | undefined> {
  const policy = limiter.costPolicy(principal);
  if (!policy) return undefined;
  if (requested > policy.burst) {
    throw new AppError(
      'INVALID_ARGUMENT',
      `RATE_LIMIT_COST: the request costs ${requested}, more than the ${policy.burst} points this client and account may spend at once; ask for a shorter range, DAY buckets or fewer groups`,
      { limit: 'RATE_LIMIT_COST', max: policy.burst, measured: requested },
    );
  }
  const { cost } = await limiter.take(principal, { request: false, cost: requested });
  if (cost && !cost.allowed) throw rateLimited(cost, requested);
  return cost;
}

/**
 * A REST answer's cost headers: `Cost-Requested` and `Cost-Actual` in points, and with a cost
 * budget its `"cost"` policy and what is left of it as RateLimit headers (added to the request
 * policy's).
 */
export function costHeaders(
  requested: number,
  actual: number,
  left: RateDecision | undefined,
): Record<string, string> {
  return {
    'Cost-Requested': String(requested),
    'Cost-Actual': String(actual),
    ...(left && rateLimitHeaders(left)),
  };
}
