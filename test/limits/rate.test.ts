import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { MemoryBuckets, takeToken } from '../../src/limits/gcra.ts';
import { RefusalPacer } from '../../src/limits/pacing.ts';
import { RateLimiter } from '../../src/limits/rate.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { createMetrics } from '../../src/metrics.ts';
import { backends, startApp, type TestApp } from '../helpers/app.ts';
import { rest } from '../helpers/client.ts';
import { seedAccessory } from '../helpers/fixtures.ts';
import { redisVariants, wsClient } from '../events/live-helpers.ts';
import { scriptCalls } from '../helpers/redis-monitor.ts';

const policy = { name: 'default', ratePerSecond: 50, burst: 100 };

describe('token bucket (GCRA)', () => {
  it('lets a burst through at once, then the rate', () => {
    const buckets = new MemoryBuckets();
    const at = 1_000_000;
    const burst = Array.from({ length: 100 }, () => buckets.take('k', policy, 1, at));
    expect(burst.every((d) => d.allowed)).toBe(true);
    expect(burst.map((d) => d.remaining).slice(0, 3)).toEqual([99, 98, 97]);
    expect(burst.at(-1)!.remaining).toBe(0);
    const refused = buckets.take('k', policy, 1, at);
    expect(refused).toMatchObject({ allowed: false, remaining: 0, retryAfterMs: 20 });
    expect(refused.resetMs).toBe(2000);
    // A token comes back every 20 ms: a second later, 50 more.
    const later = Array.from({ length: 51 }, () => buckets.take('k', policy, 1, at + 1000));
    expect(later.filter((d) => d.allowed)).toHaveLength(50);
    // Other keys have their own bucket.
    expect(buckets.take('other', policy, 1, at).remaining).toBe(99);
  });

  it('never stores a refusal and fills up to the burst, not beyond', () => {
    const first = takeToken(undefined, 0, policy);
    expect(first.tat).toBe(20);
    const refusedState = takeToken(2000 + 20, 0, policy);
    expect(refusedState.decision.allowed).toBe(false);
    expect(refusedState.tat).toBe(2020);
    // An hour idle: a full bucket, not an hour's worth of tokens.
    expect(takeToken(20, 3_600_000, policy).decision.remaining).toBe(99);
  });

  it('takes a cost at once, or nothing when less is left', () => {
    const buckets = new MemoryBuckets();
    const costs = { name: 'cost', ratePerSecond: 5, burst: 10 };
    expect(buckets.take('k', costs, 4, 0)).toMatchObject({ allowed: true, remaining: 6 });
    // Seven when six are left: refused until one more is back (200 ms), and nothing taken.
    expect(buckets.take('k', costs, 7, 0)).toMatchObject({ allowed: false, retryAfterMs: 200 });
    expect(buckets.take('k', costs, 6, 0)).toMatchObject({ allowed: true, remaining: 0 });
  });

  it('keeps at most its bound of buckets, forgetting the least recently used', () => {
    const buckets = new MemoryBuckets(2);
    const one = { name: 'one', ratePerSecond: 1, burst: 1 };
    expect(buckets.take('a', one, 1, 0).allowed).toBe(true);
    expect(buckets.take('b', one, 1, 500).allowed).toBe(true);
    expect(buckets.take('c', one, 1, 600).allowed).toBe(true);
    // The third bucket pushed the older two out: a starts full again, c does not.
    expect(buckets.take('a', one, 1, 600).allowed).toBe(true);
    expect(buckets.take('c', one, 1, 600).allowed).toBe(false);
  });
});

describe('refusal pacing', () => {
  it("answers a caller's refusals at once up to its rate, spread evenly, and holds the rest", () => {
    const pacer = new RefusalPacer({ prompt: 4, holdMs: 250 });
    const at = 5_000_000;
    // A burst of four, then one every 250 ms: not the next four at the turn of a second.
    expect([1, 2, 3, 4, 5].map(() => pacer.refused('a', at))).toEqual([0, 0, 0, 0, 250]);
    expect(pacer.refused('a', at + 200)).toBe(250);
    expect(pacer.refused('a', at + 250)).toBe(0);
    expect(pacer.refused('a', at + 260)).toBe(250);
    // Other callers count on their own.
    expect(pacer.refused('b', at + 260)).toBe(0);
  });
});

/** Three full pages of 100 activities with every field: about 4,800 of GRAPHQL_MAX_COST's 5000. */
const costly = (accessoryId: string) => {
  const page = `edges { cursor node { activityId accessoryId startTime endTime playbackDuration relevanceLevel inProgress motionZones objectLocations } } pageInfo { hasNextPage endCursor }`;
  const pages = ['a', 'b', 'c'].map((alias) => `${alias}: activities(first: 100) { ${page} }`);
  return `{ accessory(id: "${accessoryId}") { ${pages.join(' ')} } }`;
};
const postGraphql = (url: string, token: string, query: string) =>
  fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query }),
  });
interface Refusal {
  errors: { message: string; extensions: { code: string; details: Record<string, unknown> } }[];
}

describe.each(backends)('GraphQL cost budget on %s', (backend) => {
  it("takes each operation's cost from its client's budget, and refuses what it cannot pay", async () => {
    // 2,500 points a second, bursts of 5,000: one costly operation fits, a second does not.
    const t = await startApp(backend, { RATE_LIMIT_RPS: '50', RATE_LIMIT_COST: '2500' });
    try {
      const { accessoryId } = await seedAccessory(t);
      const reader = await t.token(['activities_basic'], 'user-1', 'costly-client');
      const query = costly(accessoryId);
      expect((await postGraphql(t.url, reader, query)).status).toBe(200);
      const refused = await postGraphql(t.url, reader, query);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(refused.headers.get('ratelimit-policy')).toBe('"cost";q=5000;w=2');
      const { errors } = (await refused.json()) as Refusal;
      expect(errors[0]!.extensions.code).toBe('RATE_LIMITED');
      expect(errors[0]!.extensions.details).toMatchObject({ limit: 'RATE_LIMIT_COST' });
      expect(errors[0]!.extensions.details.measured).toBeGreaterThan(4000);
      expect(errors[0]!.message).toMatch(/costs \d+.*2500 cost points a second/);
      // What is left still pays for cheap operations, and other clients have their own budget.
      expect((await postGraphql(t.url, reader, '{ viewer { clientId } }')).status).toBe(200);
      const other = await t.token(['activities_basic'], 'user-1', 'other-client');
      expect((await postGraphql(t.url, other, query)).status).toBe(200);
      // REST requests have no price before they run.
      expect((await rest(t.url, reader, 'GET', '/api/accessories')).status).toBe(200);
    } finally {
      await t.close();
    }
  });
});

describe.each(backends)('rate limits on %s', (backend) => {
  let t: TestApp;
  let accessoryId: string;
  let ingest: string;
  beforeAll(async () => {
    t = await startApp(backend, { RATE_LIMIT_RPS: '1', RATE_LIMIT_BURST: '5' });
    ({ accessoryId, ingest } = await seedAccessory(t));
  });
  afterAll(() => t.close());

  const list = (token: string) =>
    rest(t.url, token, 'POST', `/api/accessories/${accessoryId}/activities`, {});
  const graphql = (token: string) =>
    fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ viewer { clientId } }' }),
    });

  it('answers 429 over the burst, with Retry-After and the RateLimit headers on every answer', async () => {
    const reader = await t.token(['activities_basic'], 'user-1', 'burst-client');
    const first = await list(reader);
    expect(first.status).toBe(200);
    expect(first.headers.get('ratelimit-policy')).toBe('"default";q=5;w=5');
    expect(first.headers.get('ratelimit')).toMatch(/^"default";r=4;t=\d+$/);
    // Nine more at once: four fit in the burst, the rest are refused (a token comes back every
    // second, so a slow machine may let one more through).
    const rest9 = await Promise.all(Array.from({ length: 9 }, () => list(reader)));
    const refused = rest9.filter((a) => a.status === 429);
    expect(rest9.filter((a) => a.status === 200).length).toBeGreaterThanOrEqual(4);
    expect(refused.length).toBeGreaterThanOrEqual(4);
    for (const answer of refused) {
      expect(answer.body.error.code).toBe('RATE_LIMITED');
      expect(Number(answer.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(answer.headers.get('ratelimit')).toMatch(/^"default";r=0;t=\d+$/);
    }

    // GraphQL over HTTP shares the bucket and answers the same 429 (emptied again right before,
    // in case a token came back meanwhile).
    while ((await list(reader)).status !== 429);
    const gqlRefused = await graphql(reader);
    expect(gqlRefused.status).toBe(429);
    expect(Number(gqlRefused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    const body = (await gqlRefused.json()) as { errors: { extensions: { code: string } }[] };
    expect(body.errors[0]!.extensions.code).toBe('RATE_LIMITED');

    // The bucket refills at the rate: after a second, requests pass again.
    await new Promise((r) => setTimeout(r, 1100));
    expect((await list(reader)).status).toBe(200);
  });

  it('counts a malformed GraphQL request too, which carries the headers with its 400', async () => {
    const reader = await t.token(['activities_basic'], 'user-1', 'malformed-client');
    const malformed = await fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${reader}`, 'content-type': 'application/json' },
      body: '{"query": ',
    });
    expect(malformed.status).toBe(400);
    expect(malformed.headers.get('ratelimit')).toMatch(/^"default";r=4;t=\d+$/);
    const next = await graphql(reader);
    expect(next.headers.get('ratelimit')).toMatch(/^"default";r=3;t=\d+$/);
  });

  it('holds the refusals of a client that keeps sending after its 429s', async () => {
    const reader = await t.token(['activities_basic'], 'user-1', 'impatient-client');
    while ((await list(reader)).status !== 429);
    // Fifty refusals are answered at once (then fifty a second), later ones 200 ms late.
    let prompt = 1;
    let held = false;
    for (let i = 0; i < 200 && !held; i++) {
      const started = performance.now();
      const answer = await list(reader);
      if (answer.status !== 429) continue;
      if (performance.now() - started >= 190) held = true;
      else prompt++;
    }
    expect(held).toBe(true);
    expect(prompt).toBeGreaterThanOrEqual(50);
  });

  it('keeps one bucket per OAuth client and account, and a larger one for ingest tokens', async () => {
    const a = await t.token(['activities_basic'], 'user-1', 'client-a');
    while ((await list(a)).status !== 429);
    // The same client on another account, and another client on the same account: untouched.
    const sameAccountOtherClient = await t.token(['activities_basic'], 'user-1', 'client-b');
    expect((await graphql(sameAccountOtherClient)).status).toBe(200);
    const otherAccount = await t.token(['activities_basic'], 'user-2', 'client-a');
    expect((await graphql(otherAccount)).status).toBe(200);
    // Ingest tokens: RATE_LIMIT_INGEST_RPS (5000) with two seconds' worth of burst.
    const res = await graphql(ingest);
    expect(res.status).toBe(200);
    expect(res.headers.get('ratelimit-policy')).toBe('"ingest";q=10000;w=2');
  });

  it('counts each WebSocket subscribe as one request', async () => {
    const reader = await t.token(['activities_basic'], 'user-1', 'ws-client');
    const ws = wsClient(t.url, `Bearer ${reader}`);
    const refusals: string[] = [];
    const stops = Array.from({ length: 7 }, () =>
      ws.client.subscribe(
        { query: `subscription { accessoryEvents(accessoryId: "${accessoryId}") { eventId } }` },
        {
          next: () => {},
          error: (errors) => {
            const list = errors as { extensions?: { code?: string } }[];
            refusals.push(list[0]?.extensions?.code ?? 'error');
          },
          complete: () => {},
        },
      ),
    );
    // Seven at once against a burst of five (plus what the rate refills meanwhile).
    await expect.poll(() => refusals.length).toBeGreaterThanOrEqual(1);
    stops.forEach((stop) => stop());
    await ws.dispose();
    expect(new Set(refusals)).toEqual(new Set(['RATE_LIMITED']));
    expect(refusals.length).toBeLessThanOrEqual(2);
  });
});

describe('rate limits turned off', () => {
  it('sends no RateLimit headers and never answers 429 with RATE_LIMIT_RPS=0', async () => {
    const t = await startApp('pglite', { RATE_LIMIT_RPS: '0', RATE_LIMIT_BURST: '1' });
    try {
      const reader = await t.token(['activities_basic']);
      for (let i = 0; i < 5; i++) {
        const res = await rest(t.url, reader, 'GET', '/api/accessories');
        expect(res.status).toBe(200);
        expect(res.headers.get('ratelimit')).toBeNull();
      }
    } finally {
      await t.close();
    }
  });
});

describe.each(redisVariants)('rate limits shared through Redis ($name)', (redis) => {
  it('two instances take from one bucket', async () => {
    const env = { RATE_LIMIT_RPS: '1', RATE_LIMIT_BURST: '4', ...redis.env };
    const [a, b] = await Promise.all([startApp('pglite', env), startApp('pglite', env)]);
    try {
      // A client unique to this run: the bucket lives in the shared Redis.
      const token = await a.token(['activities_basic'], 'user-1', `shared-${crypto.randomUUID()}`);
      const statuses = [];
      for (let i = 0; i < 6; i++) {
        const app = i % 2 === 0 ? a : b;
        statuses.push((await rest(app.url, token, 'GET', '/api/accessories')).status);
      }
      expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it("two instances take a signed export URL's requests from one bucket", async () => {
    const logger = createLogger('silent');
    const limits = loadConfig({ RATE_LIMIT_RPS: '1' }).limits;
    const [a, b] = [
      new RateLimiter(limits, redis.target, logger, createMetrics()),
      new RateLimiter(limits, redis.target, logger, createMetrics()),
    ];
    try {
      await Promise.all([a.ready(), b.ready()]);
      const policy = { name: 'export-url', ratePerSecond: 1 / 60, burst: 2 };
      const key = `export-url:${crypto.randomUUID()}`;
      const allowed = [];
      for (const limiter of [a, b, a, b]) {
        allowed.push((await limiter.consumeKey(key, policy)).allowed);
      }
      expect(allowed).toEqual([true, true, false, false]);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it("takes a GraphQL request and its operation's cost in one Redis call", async () => {
    const env = { RATE_LIMIT_RPS: '50', RATE_LIMIT_COST: '2500', ...redis.env };
    const t = await startApp('pglite', env);
    const client = `one-call-${crypto.randomUUID()}`;
    const seen = await scriptCalls(redis.target, client);
    try {
      const { accessoryId } = await seedAccessory(t);
      const token = await t.token(['activities_basic'], 'user-1', client);
      for (let i = 0; i < 3; i++) {
        const res = await postGraphql(
          t.url,
          token,
          costly(accessoryId).replaceAll('first: 100', 'first: 1'),
        );
        expect(res.status).toBe(200);
        expect(res.headers.get('ratelimit')).toMatch(/^"default";r=\d+/);
      }
      await vi.waitFor(() => expect(seen.calls()).toBe(3));
    } finally {
      seen.stop();
      await t.close();
    }
  });

  it('two instances take GraphQL costs from one budget', async () => {
    const env = { RATE_LIMIT_RPS: '50', RATE_LIMIT_COST: '2500', ...redis.env };
    const [a, b] = await Promise.all([startApp('pglite', env), startApp('pglite', env)]);
    try {
      const { accessoryId } = await seedAccessory(a);
      const token = await a.token(['activities_basic'], 'user-1', `cost-${crypto.randomUUID()}`);
      expect((await postGraphql(a.url, token, costly(accessoryId))).status).toBe(200);
      // The cost is checked before anything runs: b refuses whatever its data.
      expect((await postGraphql(b.url, token, costly(accessoryId))).status).toBe(429);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
