import { setTimeout as sleep } from 'node:timers/promises';
import { Redis, ReplyError } from 'ioredis';
import RedisGCRA from 'redis-gcra';
import type { Principal } from '../accounts/auth.ts';
import { ingestCostRate, type LimitsConfig } from '../config.ts';
import { AppError } from '../errors.ts';
import type { RateLimitMetrics } from './metrics.ts';
import type { Logger } from '../logger.ts';
import {
  bucketScale,
  MemoryBuckets,
  unitsOf,
  type BucketDecision,
  type BucketPolicy,
} from './gcra.ts';
import { RefusalPacer } from './pacing.ts';

/**
 * Rate limits per OAuth client and account (the token's `client_id` and subject): a token
 * bucket of `RATE_LIMIT_RPS` with bursts of `RATE_LIMIT_BURST`, or for tokens with the ingest
 * scope `RATE_LIMIT_INGEST_RPS` with two seconds' worth of burst. Beside it, a bucket of
 * GraphQL cost (`RATE_LIMIT_COST` points a second, two seconds' worth of burst, scaled for
 * ingest tokens as their request rate is): each operation takes its cost from it, so that a
 * client sending the costliest operations the limits allow gets as many of them a second as the
 * budget pays for, not one per request. A caller's refusals beyond fifty a second are answered
 * 200 ms late (./pacing.ts). With `REDIS_URL` the buckets
 * live in Redis and every instance shares them; without it, or while Redis does not answer,
 * each instance keeps its own (logged once when it starts and once when it ends). A check the
 * script refuses (Redis answered, with an error) is not an outage: that request is judged by the
 * instance's own bucket, the error is logged (once per policy and message) and counted, and the
 * next check goes to Redis again.
 */
export interface RateDecision extends BucketDecision {
  policy: BucketPolicy;
}

/** How long a bucket check may wait for Redis before this instance's buckets answer instead. */
const REDIS_TIMEOUT_MS = 250;
/** How long the start waits for Redis before the first requests use this instance's buckets. */
const CONNECT_TIMEOUT_MS = 2000;

/** A kind of caller's budgets: requests, and GraphQL cost (undefined when not limited). */
interface Budgets {
  requests: BucketPolicy;
  cost: BucketPolicy | undefined;
}

/** Who the limits count for: the OAuth client and the account (its subject) it acts for. */
export const callerOf = (principal: Principal): string =>
  `${principal.clientId}:${principal.subject}`;

export class RateLimiter {
  readonly #policies: { standard: Budgets; ingest: Budgets } | undefined;
  readonly #memory = new MemoryBuckets();
  readonly #pacer = new RefusalPacer();
  readonly #redis: Redis | undefined;
  readonly #shared: ReturnType<typeof RedisGCRA> | undefined;
  /** The script errors logged so far, by policy and message. */
  readonly #scriptErrors = new Set<string>();
  #fallback = false;
  #connecting: Promise<void> = Promise.resolve();

  constructor(
    config: LimitsConfig,
    redisUrl: string | undefined,
    private readonly logger: Logger,
    private readonly metrics: RateLimitMetrics,
  ) {
    if (config.rateRps === 0) return;
    const cost = (name: string, ratePerSecond: number): BucketPolicy | undefined =>
      config.costRate === 0 ? undefined : { name, ratePerSecond, burst: 2 * ratePerSecond };
    this.#policies = {
      standard: {
        requests: { name: 'default', ratePerSecond: config.rateRps, burst: config.rateBurst },
        cost: cost('cost', config.costRate),
      },
      ingest: {
        requests: { name: 'ingest', ratePerSecond: config.ingestRps, burst: 2 * config.ingestRps },
        cost: cost('ingest-cost', ingestCostRate(config)),
      },
    };
    if (redisUrl) {
      // No offline queue and a short timeout: while Redis is away, a check fails at once and the
      // local bucket answers, instead of requests waiting for a reconnection.
      this.#redis = new Redis(redisUrl, {
        connectionName: 'clipgate-rate-limits',
        enableOfflineQueue: false,
        commandTimeout: REDIS_TIMEOUT_MS,
        maxRetriesPerRequest: 0,
        connectTimeout: CONNECT_TIMEOUT_MS,
        lazyConnect: true,
      });
      this.#redis.on('error', () => {}); // reported once, by #take, when a check falls back
      this.#connecting = this.#redis.connect().catch(() => {});
      this.#shared = RedisGCRA({ redis: this.#redis, keyPrefix: 'clipgate:rate' });
    }
  }

  /**
   * Resolves once Redis answered or gave up at start: a check made before would find no
   * connection and take from this instance's bucket instead of the shared one.
   */
  ready(): Promise<void> {
    return this.#connecting;
  }

  /** Takes one request from the caller's bucket; undefined when limiting is off. */
  async consume(principal: Principal): Promise<RateDecision | undefined> {
    return this.#takeFrom(principal, this.#budgets(principal)?.requests, 1);
  }

  /** Takes a GraphQL operation's cost from the caller's cost bucket; undefined when not limited. */
  async charge(principal: Principal, cost: number): Promise<RateDecision | undefined> {
    return this.#takeFrom(principal, this.#budgets(principal)?.cost, cost);
  }

  /**
   * Takes one request from the bucket of `key` under `policy`, for what no token identifies
   * (a signed export URL): the same buckets, shared through Redis when set, and the same pacing
   * of refusals, counted per key.
   */
  async consumeKey(key: string, policy: BucketPolicy): Promise<RateDecision> {
    return this.#takeAs(key, `${policy.name}:${key}`, policy, 1);
  }

  #budgets(principal: Principal): Budgets | undefined {
    if (!this.#policies) return undefined;
    return principal.scopes.has('ingest') ? this.#policies.ingest : this.#policies.standard;
  }

  async #takeFrom(
    principal: Principal,
    policy: BucketPolicy | undefined,
    cost: number,
  ): Promise<RateDecision | undefined> {
    if (!policy) return undefined;
    const caller = callerOf(principal);
    return this.#takeAs(caller, `${policy.name}:${caller}`, policy, cost);
  }

  async #takeAs(
    caller: string,
    key: string,
    policy: BucketPolicy,
    cost: number,
  ): Promise<RateDecision> {
    const decision = await this.#take(key, policy, cost);
    if (!decision.allowed) {
      // A client that keeps sending after its refusals has them answered more slowly.
      const hold = this.#pacer.refused(caller);
      if (hold > 0) await sleep(hold);
    }
    return { ...decision, policy };
  }

  async close(): Promise<void> {
    this.#redis?.disconnect();
  }

  async #take(key: string, policy: BucketPolicy, cost: number): Promise<BucketDecision> {
    if (this.#shared) {
      const scale = bucketScale(policy);
      try {
        const r = await this.#shared.limit({
          key,
          burst: scale.burst,
          rate: scale.rate,
          period: scale.periodMs,
          cost: unitsOf(cost, scale),
        });
        if (this.#fallback) {
          this.#fallback = false;
          this.logger.info('rate limits are shared through Redis again');
        }
        return {
          allowed: !r.limited,
          remaining: r.remaining * scale.unit,
          retryAfterMs: r.retryIn,
          resetMs: r.resetIn,
        };
      } catch (err) {
        if (isScriptError(err)) this.#scriptFailed(policy, err);
        else if (!this.#fallback) {
          this.#fallback = true;
          this.logger.warn(
            { err },
            'Redis does not answer: rate limits fall back to per-instance buckets',
          );
        }
      }
    }
    return this.#memory.take(key, policy, cost);
  }

  #scriptFailed(policy: BucketPolicy, err: Error): void {
    this.metrics.rateLimitScriptErrors.inc({ policy: policy.name });
    const seen = `${policy.name}\n${err.message}`;
    if (this.#scriptErrors.has(seen)) return;
    this.#scriptErrors.add(seen);
    this.logger.error(
      { err, policy: policy.name },
      "the shared rate limit's script failed (Redis answered): the request was judged by this instance's bucket",
    );
  }
}

/**
 * An error of the check itself, not of the connection: Redis answered with an error (the script
 * failed), or redis-gcra refused the arguments before sending them.
 */
const isScriptError = (err: unknown): err is Error =>
  err instanceof ReplyError || err instanceof RangeError || err instanceof TypeError;

/**
 * The IETF RateLimit headers (draft-ietf-httpapi-ratelimit-headers): the policy as `q` requests
 * per window `w` (the burst, over the seconds the rate takes to refill it), and what is left of
 * it with `r` and the seconds `t` until the bucket is full again.
 */
export function rateLimitHeaders(d: RateDecision): Record<string, string> {
  const { name, burst, ratePerSecond } = d.policy;
  const window = Math.max(1, Math.ceil(burst / ratePerSecond));
  return {
    'RateLimit-Policy': `"${name}";q=${burst};w=${window}`,
    RateLimit: `"${name}";r=${d.remaining};t=${Math.ceil(d.resetMs / 1000)}`,
  };
}

/**
 * RATE_LIMITED for a request over its bucket, or, given its cost, a GraphQL operation costing more
 * than what is left of its caller's cost budget.
 */
export function rateLimited(d: RateDecision, cost?: number): AppError {
  const retryAfter = Math.max(1, Math.ceil(d.retryAfterMs / 1000));
  const { ratePerSecond, burst } = d.policy;
  const message =
    cost === undefined
      ? `too many requests for this client and account: at most ${ratePerSecond} per second (bursts of ${burst}); retry after ${retryAfter} s`
      : `the operation costs ${cost}, more than this client and account have left of their ${ratePerSecond} cost points a second (bursts of ${burst}); ask for smaller pages, or retry after ${retryAfter} s`;
  return new AppError(
    'RATE_LIMITED',
    message,
    {
      retryAfterSeconds: retryAfter,
      ...(cost !== undefined && { limit: 'RATE_LIMIT_COST', measured: cost }),
    },
    { 'Retry-After': String(retryAfter), ...rateLimitHeaders(d) },
  );
}
