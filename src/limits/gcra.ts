/**
 * A token bucket, computed as the generic cell rate algorithm (GCRA): the only state of a bucket
 * is the theoretical arrival time (TAT) at which it would be full again. A bucket holds `burst`
 * tokens and gains `ratePerSecond` per second; each request takes one, or its cost. Pure, so that the
 * in-memory buckets and the shared ones in Redis (the `redis-gcra` package runs the same
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
 * Takes `cost` tokens from a bucket whose TAT is `tat` (undefined: a full bucket) at time `now`
 * (ms); none when fewer are left.
 */
export function takeToken(
  tat: number | undefined,
  now: number,
  policy: BucketPolicy,
  cost = 1,
): { decision: BucketDecision; tat: number | undefined } {
  const interval = 1000 / policy.ratePerSecond;
  const tolerance = interval * policy.burst;
  const start = Math.max(tat ?? now, now);
  const next = start + interval * cost;
  const allowAt = next - tolerance;
  if (allowAt > now) {
    return {
      decision: {
        allowed: false,
        remaining: 0,
        retryAfterMs: Math.ceil(allowAt - now),
        resetMs: Math.ceil(start - now),
      },
      tat,
    };
  }
  return {
    decision: {
      allowed: true,
      remaining: Math.floor((now - allowAt) / interval),
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

  /** Drops full buckets (TAT passed): they are the same as no entry. */
  #prune(now: number): void {
    for (const [key, tat] of this.#tats) {
      if (tat <= now || this.#tats.size > this.maxKeys * 0.9) this.#tats.delete(key);
    }
  }
}
