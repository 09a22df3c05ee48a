import { MAX_UNITS_PER_SECOND } from '../config.ts';

/**
 * A token bucket, computed as the generic cell rate algorithm (GCRA): the only state of a bucket
 * is the theoretical arrival time (TAT) at which it would be full again. A bucket holds `burst`
 * tokens and gains `ratePerSecond` per second; each request takes one, or its cost. Pure, so that the
 * in-memory buckets and the shared ones in Redis (./gcra-script.ts runs the same
 * algorithm as a script) answer alike.
 */
export interface BucketPolicy {
  /** Named in the `RateLimit-Policy` header. */
  name: string;
  ratePerSecond: number;
  burst: number;
}

export interface BucketDecision {
  allowed: boolean;
  /** Tokens left after this request. */
  remaining: number;
  /** When refused: milliseconds until enough tokens are back. */
  retryAfterMs: number;
  /** Milliseconds until the bucket is full again. */
  resetMs: number;
}

/**
 * A bucket as it is counted: `rate` units per `periodMs`, holding `burst` units, a unit being
 * `unit` tokens (a charge is rounded up to whole units). The shared buckets run ./gcra-script.ts's
 * script, which keeps the time in milliseconds since 1970 as a double and stores it with an
 * expiry of the milliseconds until the bucket is full again. A charge worth less time than the
 * double can tell apart at that size (a quarter of a microsecond) left the time unchanged and
 * the expiry zero, which Redis refuses (`ERR invalid expire time`): a bucket of 25 million
 * tokens a second did that for every operation. So a bucket counts at most
 * `MAX_UNITS_PER_SECOND` units a second, a unit then spanning at least 10 µs, and a faster one
 * counts its tokens in units of several (its cheapest charges cost a whole unit). The script
 * also takes no rate below one unit per period: a slower bucket gets a longer period. The
 * in-memory buckets count the same way, so that both answer alike.
 */
export interface BucketScale {
  unit: number;
  rate: number;
  periodMs: number;
  burst: number;
}

export function bucketScale(policy: BucketPolicy): BucketScale {
  const unit = Math.max(1, Math.ceil(policy.ratePerSecond / MAX_UNITS_PER_SECOND));
  const unitsPerSecond = policy.ratePerSecond / unit;
  const burst = Math.floor(policy.burst / unit);
  if (!(burst >= 1 && unitsPerSecond > 0)) {
    // The configuration refuses such budgets (src/config.ts): this is a bug, not a setting.
    throw new RangeError(`the bucket ${policy.name} holds less than one of its units`);
  }
  return unitsPerSecond >= 1
    ? { unit, rate: unitsPerSecond, periodMs: 1000, burst }
    : { unit, rate: 1, periodMs: 1000 / unitsPerSecond, burst };
}

/** What a charge of `cost` tokens takes from a bucket of that scale, in its units. */
export const unitsOf = (cost: number, scale: BucketScale): number => Math.ceil(cost / scale.unit);

/**
 * Takes `cost` tokens from a bucket whose TAT is `tat` (undefined: a full bucket) at time `now`
 * (ms); none when fewer are left. Counted in the bucket's units (`bucketScale`), answered in
 * tokens.
 */
export function takeToken(
  tat: number | undefined,
  now: number,
  policy: BucketPolicy,
  cost = 1,
): { decision: BucketDecision; tat: number | undefined } {
  const scale = bucketScale(policy);
  const interval = scale.periodMs / scale.rate;
  const tolerance = interval * scale.burst;
  const start = Math.max(tat ?? now, now);
  const next = start + interval * unitsOf(cost, scale);
  const allowAt = next - tolerance;
  if (allowAt > now) {
    return {
      decision: {
        allowed: false,
        // What is left, though less than the charge (as the shared buckets' script answers).
        remaining: Math.max(0, Math.floor((now - (start - tolerance)) / interval)) * scale.unit,
        retryAfterMs: Math.ceil(allowAt - now),
        resetMs: Math.ceil(start - now),
      },
      tat,
    };
  }
  return {
    decision: {
      allowed: true,
      remaining: Math.floor((now - allowAt) / interval) * scale.unit,
      retryAfterMs: 0,
      resetMs: Math.ceil(next - now),
    },
    tat: next,
  };
}

/**
 * Gives back (`tokens` < 0) or takes (`tokens` > 0) tokens from a bucket whose TAT is `tat`
 * without refusing: the settlement of a charge once what it cost is known. A bucket taken below
 * empty waits for its rate to refill it; one given more than it holds is full (TAT undefined).
 * Counted in the bucket's units, as `takeToken`.
 */
export function adjustToken(
  tat: number | undefined,
  now: number,
  policy: BucketPolicy,
  tokens: number,
): { decision: BucketDecision; tat: number | undefined } {
  const scale = bucketScale(policy);
  const interval = scale.periodMs / scale.rate;
  const units = Math.sign(tokens) * unitsOf(Math.abs(tokens), scale);
  const next = Math.max(tat ?? now, now) + interval * units;
  if (next <= now) {
    return {
      decision: { allowed: true, remaining: scale.burst * scale.unit, retryAfterMs: 0, resetMs: 0 },
      tat: undefined,
    };
  }
  return {
    decision: {
      allowed: true,
      remaining:
        Math.max(0, Math.floor((now - (next - interval * scale.burst)) / interval)) * scale.unit,
      retryAfterMs: 0,
      resetMs: Math.ceil(next - now),
    },
    tat: next,
  };
}

/** Buckets in this process: the limits without Redis, and the fallback while Redis is away. */
export class MemoryBuckets {
  readonly #tats = new Map<string, number>();

  constructor(private readonly maxKeys = 100_000) {}

  take(key: string, policy: BucketPolicy, cost = 1, now = Date.now()): BucketDecision {
    const { decision, tat } = takeToken(this.#tats.get(key), now, policy, cost);
    if (tat !== undefined) {
      // Re-inserting keeps the map in last-use order, so the oldest entries go first.
      this.#tats.delete(key);
      this.#tats.set(key, tat);
      if (this.#tats.size > this.maxKeys) this.#prune(now);
    }
    return decision;
  }

  /** Settles a charge of this bucket by `tokens` more (or, negative, fewer): `adjustToken`. */
  adjust(key: string, policy: BucketPolicy, tokens: number, now = Date.now()): BucketDecision {
    const { decision, tat } = adjustToken(this.#tats.get(key), now, policy, tokens);
    this.#tats.delete(key);
    if (tat !== undefined) this.#tats.set(key, tat);
    return decision;
  }

  /** Drops full buckets (TAT passed): they are the same as no entry. */
  #prune(now: number): void {
    for (const [key, tat] of this.#tats) {
      if (tat <= now || this.#tats.size > this.maxKeys * 0.9) this.#tats.delete(key);
    }
  }
}
