import { setTimeout as sleep } from 'node:timers/promises';
import { ReplyError } from 'ioredis';
import type { Principal } from '../accounts/auth.ts';
import { ingestCostRate, type LimitsConfig, type RedisTarget } from '../config.ts';
import { TIMED_OUT, within } from '../deadline.ts';
import { AppError } from '../errors.ts';
import { redisClient } from '../storage/redis.ts';
import type { RateLimitMetrics } from './metrics.ts';
import type { Logger } from '../logger.ts';
import { MemoryBuckets, type BucketDecision, type BucketPolicy } from './gcra.ts';
import {
  settleShared,
  take,
  takeShared,
  withGcraScript,
  type GcraClient,
  type Take,
} from './gcra-script.ts';
import { RefusalPacer } from './pacing.ts';

/**
 * Rate limits per OAuth client and account (the token's `client_id` and subject): a token
 * bucket of `RATE_LIMIT_RPS` with bursts of `RATE_LIMIT_BURST`, or for tokens with the ingest
 * scope `RATE_LIMIT_INGEST_RPS` with two seconds' worth of burst. Beside it, a bucket of
 * GraphQL cost (`RATE_LIMIT_COST` points a second, two seconds' worth of burst, scaled for
 * ingest tokens as their request rate is): each operation takes its cost from it, so that a
 * client sending the costliest operations the limits allow gets as many of them a second as the
 * budget pays for, not one per request. A caller's refusals beyond fifty a second are answered
 * 200 ms late (./pacing.ts). With `REDIS_URL` or `REDIS_CLUSTER_NODES` the buckets
 * live in Redis and every instance shares them (./gcra-script.ts: a caller's request and its
 * operation's cost are taken in one call, their keys in one slot of a cluster); without it, or while Redis does not answer,
 * each instance keeps its own (logged once when it starts and once when it ends). A check the
 * script refuses (Redis answered, with an error) is not an outage: that request is judged by the
 * instance's own bucket, the error is logged (once per policy and message) and counted, and the
 * next check goes to Redis again.
 */
export interface RateDecision extends BucketDecision {
  policy: BucketPolicy;
}

/** The most refused request buckets an instance remembers (RateLimiter's #refused). */
const MAX_REMEMBERED = 100_000;
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
  readonly #redis: GcraClient | undefined;
  /** The script errors logged so far, by policy and message. */
  readonly #scriptErrors = new Set<string>();
  /**
   * Request buckets that refused, until they have a token again: no other instance can put one
   * back sooner, so this instance refuses them meanwhile without asking Redis (a flooding
   * client costs neither a Redis call nor, on /graphql, the GraphQL pipeline).
   */
  readonly #refused = new Map<string, { until: number; decision: RateDecision }>();
  #fallback = false;
  #connecting: Promise<void> = Promise.resolve();

  constructor(
    config: LimitsConfig,
    redis: RedisTarget | undefined,
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
    if (redis) {
      // No offline queue: while Redis is away, a check fails at once and the local bucket
      // answers, instead of requests waiting for a reconnection. A check's own bound is
      // REDIS_TIMEOUT_MS (#take), not ioredis's commandTimeout, which bounds the connection's
      // handshake too (HELLO, ioredis 6 speaking RESP3): on a link slower than it, the
      // connection would never become ready.
      const client = redisClient(redis, {
        connectionName: 'clipgate-rate-limits',
        enableOfflineQueue: false,
        maxRetriesPerRequest: 0,
        connectTimeout: CONNECT_TIMEOUT_MS,
        lazyConnect: true,
      });
      client.on('error', () => {}); // reported once, by #take, when a check falls back
      this.#connecting = client.connect().catch(() => {});
      this.#redis = withGcraScript(client);
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
    return (await this.take(principal, { request: true })).request;
  }

  /**
   * Takes what a caller's request asks of its budgets in one check (one Redis call when shared):
   * the request itself (`request`), and the cost of its GraphQL operation (`cost`). The request
   * is taken first: when its bucket refuses, nothing is taken from the cost budget, and `cost`
   * is left out of the answer. A budget not limited is left out too.
   */
  async take(
    principal: Principal,
    asked: { request: boolean; cost?: number },
  ): Promise<{ request?: RateDecision; cost?: RateDecision }> {
    const budgets = this.#budgets(principal);
    if (!budgets) return {};
    const caller = callerOf(principal);
    const takes: Take[] = [];
    if (asked.request) {
      const refused = await this.refusedAlready(principal);
      if (refused) return { request: refused };
      takes.push(take(caller, budgets.requests, 1));
    }
    if (asked.cost !== undefined && budgets.cost)
      takes.push(take(caller, budgets.cost, asked.cost));
    const decisions = await this.#takeAs(caller, takes, asked.request);
    return {
      ...(asked.request && { request: decisions[0] }),
      ...(asked.cost !== undefined && { cost: decisions[asked.request ? 1 : 0] }),
    };
  }

  /** The caller's cost budget; undefined when not limited. */
  costPolicy(principal: Principal): BucketPolicy | undefined {
    return this.#budgets(principal)?.cost;
  }

  /**
   * Settles a charge of the caller's cost budget once what it cost is known: takes `tokens` more,
   * or gives back as many when negative, never refusing (a request that cost more than it asked
   * for leaves the budget short, and the next ones wait). Undefined when not limited.
   */
  async settle(principal: Principal, tokens: number): Promise<RateDecision | undefined> {
    const policy = this.#budgets(principal)?.cost;
    if (!policy) return undefined;
    const t = take(callerOf(principal), policy, tokens);
    if (this.#redis) {
      try {
        return { ...(await settleShared(this.#redis, t)), policy };
      } catch {
        // Redis away or refusing: this instance's bucket, as a take would (#take reports it).
      }
    }
    return { ...this.#memory.adjust(t.key, policy, tokens), policy };
  }

  /**
   * Takes one request from the bucket of `key` under `policy`, for what no token identifies
   * (a signed export URL): the same buckets, shared through Redis when set, and the same pacing
   * of refusals, counted per key.
   */
  async consumeKey(key: string, policy: BucketPolicy): Promise<RateDecision> {
    const [decision] = await this.#takeAs(key, [take(key, policy, 1)]);
    return decision!;
  }

  /**
   * The refusal of the caller's next request when its request bucket refused one before and
   * has no token yet (paced as any refusal); undefined when the bucket must be asked.
   */
  async refusedAlready(principal: Principal): Promise<RateDecision | undefined> {
    const budgets = this.#budgets(principal);
    if (!budgets) return undefined;
    const caller = callerOf(principal);
    const { key } = take(caller, budgets.requests, 1);
    const known = this.#refused.get(key);
    const now = Date.now();
    if (!known || known.until <= now) {
      this.#refused.delete(key);
      return undefined;
    }
    const passed = now - (known.until - known.decision.retryAfterMs);
    const hold = this.#pacer.refused(caller);
    if (hold > 0) await sleep(hold);
    return {
      ...known.decision,
      retryAfterMs: known.until - now,
      resetMs: Math.max(0, known.decision.resetMs - passed),
    };
  }

  #remember(key: string, decision: RateDecision): void {
    if (!Number.isFinite(decision.retryAfterMs)) return;
    if (this.#refused.size >= MAX_REMEMBERED) {
      const now = Date.now();
      for (const [k, r] of this.#refused) if (r.until <= now) this.#refused.delete(k);
      if (this.#refused.size >= MAX_REMEMBERED) return;
    }
    this.#refused.set(key, { until: Date.now() + decision.retryAfterMs, decision });
  }

  #budgets(principal: Principal): Budgets | undefined {
    if (!this.#policies) return undefined;
    return principal.scopes.has('ingest') ? this.#policies.ingest : this.#policies.standard;
  }

  /**
   * The decisions of `takes` in order, up to the first refusal (the rest are not taken); with
   * `request`, the first is the caller's request bucket.
   */
  async #takeAs(caller: string, takes: Take[], request = false): Promise<RateDecision[]> {
    if (takes.length === 0) return [];
    const decisions = (await this.#take(takes)).map((d, i) => ({ ...d, policy: takes[i]!.policy }));
    const last = decisions.at(-1)!;
    if (!last.allowed) {
      // The request's own bucket refused (a cost refusal says nothing of the next request).
      if (request && decisions.length === 1) this.#remember(takes[0]!.key, last);
      // A client that keeps sending after its refusals has them answered more slowly.
      const hold = this.#pacer.refused(caller);
      if (hold > 0) await sleep(hold);
    }
    return decisions;
  }

  async close(): Promise<void> {
    this.#redis?.disconnect();
  }

  async #take(takes: Take[]): Promise<BucketDecision[]> {
    if (this.#redis) {
      try {
        const decisions = await within(takeShared(this.#redis, takes), REDIS_TIMEOUT_MS);
        if (decisions === TIMED_OUT)
          throw new Error(`Redis did not answer within ${REDIS_TIMEOUT_MS} ms`);
        if (this.#fallback) {
          this.#fallback = false;
          this.logger.info('rate limits are shared through Redis again');
        }
        return decisions;
      } catch (err) {
        if (isScriptError(err)) this.#scriptFailed(takes, err);
        else if (!this.#fallback) {
          this.#fallback = true;
          this.logger.warn(
            { err },
            'Redis does not answer: rate limits fall back to per-instance buckets',
          );
        }
      }
    }
    const decisions: BucketDecision[] = [];
    for (const { key, policy, cost } of takes) {
      const decision = this.#memory.take(key, policy, cost);
      decisions.push(decision);
      if (!decision.allowed) break;
    }
    return decisions;
  }

  #scriptFailed(takes: Take[], err: Error): void {
    // Each budget of the check counts its failure.
    for (const t of takes) this.metrics.rateLimitScriptErrors.inc({ policy: t.policy.name });
    const policy = takes.map((t) => t.policy.name).join('+');
    const seen = `${policy}\n${err.message}`;
    if (this.#scriptErrors.has(seen)) return;
    this.#scriptErrors.add(seen);
    this.logger.error(
      { err, policy },
      "the shared rate limit's script failed (Redis answered): the request was judged by this instance's bucket",
    );
  }
}

/**
 * An error of the check itself, not of the connection: Redis answered with an error (the script
 * failed), or the arguments were refused before they were sent.
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
