import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Principal } from '../../src/accounts/auth.ts';
import { loadConfig, type LimitsConfig } from '../../src/config.ts';
import { createMetrics } from '../../src/metrics.ts';
import { bucketScale, takeToken } from '../../src/limits/gcra.ts';
import { RateLimiter } from '../../src/limits/rate.ts';
import { createLogger } from '../../src/logger.ts';
import { redisVariants } from '../events/live-helpers.ts';
import { scriptCalls } from '../helpers/redis-monitor.ts';
import { redisClient, type RedisClient } from '../../src/storage/redis.ts';

describe('bucket scale', () => {
  it('counts a fast budget in units of several tokens, each at least 10 µs of the bucket', () => {
    // RATE_LIMIT_RPS=20 and the defaults: ingest tokens' cost budget of 25,000,000 a second.
    const fast = { name: 'ingest-cost', ratePerSecond: 25_000_000, burst: 50_000_000 };
    expect(bucketScale(fast)).toEqual({ unit: 250, rate: 100_000, periodMs: 1000, burst: 200_000 });
    // Each charge moves the bucket's time, even at today's milliseconds since 1970.
    const now = Date.now();
    const { tat, decision } = takeToken(undefined, now, fast, 1);
    expect(tat! - now).toBeGreaterThanOrEqual(0.01);
    expect(decision).toMatchObject({ allowed: true, resetMs: 1 });
    // A unit of 250 tokens taken (the float arithmetic may leave the count one unit lower).
    expect(decision.remaining).toBeGreaterThanOrEqual(49_999_500);
    expect(decision.remaining).toBeLessThanOrEqual(49_999_750);
    // Slow and ordinary budgets are counted one token at a time.
    expect(bucketScale({ name: 'slow', ratePerSecond: 0.5, burst: 1 })).toEqual({
      unit: 1,
      rate: 1,
      periodMs: 2000,
      burst: 1,
    });
    expect(bucketScale({ name: 'default', ratePerSecond: 50, burst: 100 })).toMatchObject({
      unit: 1,
      rate: 50,
    });
  });
});

/**
 * Every RATE_LIMIT_* setting (and GRAPHQL_MAX_COST, which bounds RATE_LIMIT_COST), as text:
 * mostly within what the configuration takes, sometimes beyond it.
 */
const within = <T>(valid: fc.Arbitrary<T>, usual: fc.Arbitrary<T>, invalid: fc.Arbitrary<T>) =>
  fc.oneof(
    { arbitrary: valid, weight: 5 },
    { arbitrary: usual, weight: 3 },
    { arbitrary: invalid, weight: 1 },
  );
const settings = fc.record({
  RATE_LIMIT_RPS: within(
    fc.integer({ min: 0, max: 100_000 }),
    fc.constantFrom(0, 1, 20, 50),
    fc.integer({ min: 100_001, max: 10_000_000 }),
  ),
  RATE_LIMIT_BURST: within(
    fc.integer({ min: 1, max: 10_000_000 }),
    fc.integer({ min: 1, max: 200 }),
    fc.oneof(fc.integer({ min: -5, max: 0 }), fc.integer({ min: 10_000_001, max: 2 ** 40 })),
  ),
  RATE_LIMIT_INGEST_RPS: within(
    fc.integer({ min: 1, max: 100_000 }),
    fc.constantFrom(1, 5000),
    fc.integer({ min: 100_001, max: 10_000_000 }),
  ),
  RATE_LIMIT_COST: within(
    fc.integer({ min: 0, max: 2_000_000_000 }),
    fc.constantFrom(0, 2500, 100_000),
    fc.integer({ min: -5, max: 1 }),
  ),
  GRAPHQL_MAX_COST: fc.oneof(fc.constant(5000), fc.integer({ min: 1, max: 100_000 })),
});

const principal = (clientId: string, ingest: boolean): Principal => ({
  subject: 'user-1',
  clientId,
  scopes: new Set(ingest ? ['ingest'] : ['activities_basic']),
  rawScopes: [],
  expiresAt: undefined,
});

describe.each(redisVariants)(
  "the shared rate limit's script on the real Redis ($name)",
  (variant) => {
    let redis: RedisClient;
    beforeAll(() => {
      redis = redisClient(variant.target, {});
    });
    afterAll(() => redis.quit());

    /** A limiter on the real Redis whose log lines (JSON) are collected. */
    async function sharedLimiter(limits: LimitsConfig) {
      const lines: { level: number; msg: string }[] = [];
      const sink = new Writable({
        write(chunk: Buffer, _encoding, done) {
          lines.push(JSON.parse(String(chunk)) as { level: number; msg: string });
          done();
        },
      });
      const metrics = createMetrics();
      const limiter = new RateLimiter(limits, variant.target, createLogger('info', sink), metrics);
      await limiter.ready();
      const scriptErrors = async () =>
        (await metrics.rateLimitScriptErrors.get()).values.reduce((n, v) => n + v.value, 0);
      return { limiter, lines, scriptErrors };
    }

    it('refuses at start, in one line naming it, a setting it cannot count, and counts every other without an error', async () => {
      await fc.assert(
        fc.asyncProperty(settings, fc.integer({ min: 1, max: 100_000 }), async (values, cost) => {
          const env = Object.fromEntries(Object.entries(values).map(([k, v]) => [k, String(v)]));
          let limits: LimitsConfig;
          try {
            limits = loadConfig(env).limits;
          } catch (err) {
            const message = (err as Error).message;
            expect(message).toMatch(/^(RATE_LIMIT_[A-Z_]+|GRAPHQL_MAX_COST) /);
            expect(message).not.toContain('\n');
            return;
          }
          const { limiter, lines, scriptErrors } = await sharedLimiter(limits);
          const client = `property-${randomUUID()}`;
          try {
            const charge = Math.min(cost, limits.graphql.maxCost);
            for (const ingest of [false, true]) {
              const who = principal(client, ingest);
              const request = await limiter.consume(who);
              const charged = (await limiter.take(who, { request: false, cost: charge })).cost;
              for (const [decision, taken] of [
                [request, 1],
                [charged, charge],
              ] as const) {
                if (!decision) continue;
                const { policy } = decision;
                // A fresh bucket: what fits in the burst passes, as the in-memory bucket says.
                const alone = takeToken(undefined, Date.now(), policy, taken);
                expect(decision.allowed).toBe(alone.decision.allowed);
                const unit = bucketScale(policy).unit;
                expect(Math.abs(decision.remaining - alone.decision.remaining)).toBeLessThanOrEqual(
                  unit,
                );
                // The script sets the key to expire when the bucket is full again: a whole number
                // of milliseconds, at least one (zero is what Redis refused).
                if (decision.allowed) {
                  expect(Number.isInteger(decision.resetMs)).toBe(true);
                  expect(decision.resetMs).toBeGreaterThanOrEqual(1);
                }
              }
              if (limits.rateRps === 0) expect(request).toBeUndefined();
            }
            expect(await scriptErrors()).toBe(0);
            expect(lines.filter((l) => l.level >= 40)).toEqual([]);
          } finally {
            await limiter.close();
          }
        }),
        { numRuns: 100 },
      );
    }, 120_000);

    it('logs a script error once as an error and counts it, without falling back as for an outage', async () => {
      const limits = loadConfig({ RATE_LIMIT_RPS: '50' }).limits;
      const { limiter, lines, scriptErrors } = await sharedLimiter(limits);
      try {
        const client = `broken-${randomUUID()}`;
        const who = principal(client, false);
        // The bucket's key holds something else: the script's GET fails (WRONGTYPE).
        await redis.hset(`clipgate:rate:{${client}:user-1}:default`, 'x', '1');
        for (let i = 0; i < 3; i++) expect((await limiter.consume(who))?.allowed).toBe(true);
        expect(await scriptErrors()).toBe(3);
        const logged = lines.filter((l) => l.level >= 40);
        expect(logged).toMatchObject([{ level: 50, msg: expect.stringMatching(/script failed/) }]);
        // Another caller's check goes to Redis as before: its bucket is there.
        const other = principal(`fine-${randomUUID()}`, false);
        await limiter.consume(other);
        expect(await redis.exists(`clipgate:rate:{${other.clientId}:user-1}:default`)).toBe(1);
      } finally {
        await limiter.close();
      }
    });

    it("takes a request with its operation's cost in one call, and refuses a refused caller's next request without one", async () => {
      const limits = loadConfig({ RATE_LIMIT_RPS: '1', RATE_LIMIT_BURST: '2' }).limits;
      const { limiter } = await sharedLimiter(limits);
      const client = `one-call-${randomUUID()}`;
      const seen = await scriptCalls(variant.target, client);
      try {
        const who = principal(client, false);
        const both = await limiter.take(who, { request: true, cost: 10 });
        expect(both.request).toMatchObject({ allowed: true, policy: { name: 'default' } });
        expect(both.cost).toMatchObject({ allowed: true, policy: { name: 'cost' } });
        await vi.waitFor(() => expect(seen.calls()).toBe(1));
        // The second request empties the bucket; the third is refused by Redis (the cost untaken).
        expect((await limiter.take(who, { request: true, cost: 10 })).request?.allowed).toBe(true);
        const refused = await limiter.take(who, { request: true, cost: 10 });
        expect(refused.request).toMatchObject({ allowed: false });
        expect(refused.cost).toBeUndefined();
        await vi.waitFor(() => expect(seen.calls()).toBe(3));
        // Until the bucket has a token again, this instance refuses without asking.
        const again = await limiter.take(who, { request: true, cost: 10 });
        expect(again.request).toMatchObject({ allowed: false });
        expect(again.request!.retryAfterMs).toBeLessThanOrEqual(refused.request!.retryAfterMs);
        await new Promise((resolve) => setTimeout(resolve, 200));
        expect(seen.calls()).toBe(3);
      } finally {
        seen.stop();
        await limiter.close();
      }
    });
  },
);
