/**
 * Live queries (`query @live`): the result, then again when an event of the account changes it,
 * at most once per LIVE_QUERY_MIN_INTERVAL_MS, over graphql-ws and graphql-sse, on one instance
 * and across two over Redis.
 */
import { isDeepStrictEqual } from 'node:util';
import { applyLiveQueryJSONPatch } from '@n1ru4l/graphql-live-query-patch-json-patch';
import { parse, print, type ExecutionResult } from 'graphql';
import { createClient as createSseClient } from 'graphql-sse';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { signDevToken } from '../../src/accounts/auth.ts';
import { operationCost } from '../../src/graphql/limits.ts';
import { schema } from '../../src/graphql/schema.ts';
import {
  createActivities,
  redisUrl,
  waitFor,
  wsClient,
  type WsClient,
} from '../events/live-helpers.ts';
import { graphql } from '../generated/index.ts';
import { backends, startApp, TEST_SECRET, type Backend, type TestApp } from '../helpers/app.ts';
import { gql, postGraphQL } from '../helpers/client.ts';
import { ok, seedAccessory } from '../helpers/fixtures.ts';
import { DeleteAccount, ReportMotion, UpdateActivity } from '../notifications/helpers.ts';

/** What the live queries below select: the timeline's first page and the counts of a range. */
graphql(`
  fragment LiveViewer on Viewer {
    activities(first: 5) {
      edges {
        node {
          activityId
          accessoryId
          relevanceLevel
          inProgress
        }
      }
    }
    activityCounts(from: $from, to: $to, bucket: DAY) {
      buckets {
        count
      }
    }
  }
`);

const LiveTimeline = graphql(`
  query LiveTimeline($from: DateTime!, $to: DateTime!) @live {
    viewer {
      ...LiveViewer
    }
  }
`);

const LiveTimelinePatches = graphql(`
  query LiveTimelinePatches($from: DateTime!, $to: DateTime!) @live(patch: true) {
    viewer {
      ...LiveViewer
    }
  }
`);

/** The same query once, not live: what the live one must converge to. */
const Timeline = graphql(`
  query TimelineOnce($from: DateTime!, $to: DateTime!) {
    viewer {
      ...LiveViewer
    }
  }
`);

type TimelineData = {
  viewer: {
    activities: { edges: { node: { activityId: string; relevanceLevel: number } }[] };
    activityCounts: { buckets: { count: number }[] };
  };
};

const DAY = 24 * 3600 * 1000;
const range = () => ({
  from: new Date(Date.now() - DAY).toISOString(),
  to: new Date(Date.now() + DAY).toISOString(),
});

const counted = (data: TimelineData | null | undefined) =>
  (data?.viewer.activityCounts.buckets ?? []).reduce((sum, b) => sum + b.count, 0);
const newest = (data: TimelineData | null | undefined) =>
  data?.viewer.activities.edges[0]?.node.activityId;

const INTERVAL_MS = 400;

interface Results {
  items: ExecutionResult[];
  errors: unknown[];
  ended: Promise<void>;
  done: boolean;
  stop(): void;
}

/** Collects a live query's results over graphql-ws. */
function overWebSocket(ws: WsClient, query: string, variables: Record<string, unknown>): Results {
  let onEnd!: () => void;
  const results: Results = {
    items: [],
    errors: [],
    ended: new Promise<void>((resolve) => (onEnd = resolve)),
    done: false,
    stop: () => {},
  };
  const end = () => {
    results.done = true;
    onEnd();
  };
  results.stop = ws.client.subscribe(
    { query, variables },
    {
      next: (result) => void results.items.push(result as ExecutionResult),
      error: (err) => {
        results.errors.push(err);
        end();
      },
      complete: end,
    },
  );
  return results;
}

/** Collects a live query's results over graphql-sse, each through `map` (e.g. a patch applier). */
function overSse(
  url: string,
  token: string,
  query: string,
  variables: Record<string, unknown>,
  map: (source: AsyncIterable<ExecutionResult>) => AsyncIterable<ExecutionResult> = (s) => s,
): Results {
  const client = createSseClient({
    url: `${url}/graphql`,
    headers: { authorization: `Bearer ${token}` },
    retryAttempts: 0,
  });
  const source = client.iterate({ query, variables }) as AsyncIterableIterator<ExecutionResult>;
  const results: Results = {
    items: [],
    errors: [],
    ended: Promise.resolve(),
    done: false,
    stop: () => {
      void source.return?.();
      client.dispose();
    },
  };
  results.ended = (async () => {
    try {
      for await (const result of map(source)) results.items.push(structuredClone(result));
    } catch (err) {
      results.errors.push(err);
    } finally {
      results.done = true;
      client.dispose();
    }
  })();
  return results;
}

/** The live-query executions after the first, by outcome, on the instance. */
async function executions(t: TestApp): Promise<Record<string, number>> {
  const { values } = await t.app.services.metrics.liveQueryExecutions.get();
  return Object.fromEntries(values.map((v) => [String(v.labels.outcome), v.value]));
}

const total = (counts: Record<string, number>) =>
  Object.values(counts).reduce((sum, n) => sum + n, 0);

async function invalidations(t: TestApp): Promise<number> {
  const { values } = await t.app.services.metrics.liveQueryInvalidations.get();
  return values[0]?.value ?? 0;
}

/**
 * A block's app, started once with `env` (and the suite's interval), and what its tests open
 * (sockets, streams), closed after each test until no live query is left.
 */
function liveApp(backend: Backend, env: Record<string, string>) {
  const sockets: WsClient[] = [];
  const streams: Results[] = [];
  let t: TestApp | undefined;
  beforeAll(async () => {
    t = await startApp(backend, { LIVE_QUERY_MIN_INTERVAL_MS: String(INTERVAL_MS), ...env });
  });
  afterEach(async () => {
    for (const s of streams.splice(0)) s.stop();
    await Promise.all(sockets.splice(0).map((s) => s.dispose()));
    await waitFor(() => t!.app.services.live.activeSubscriptions === 0, 'live queries to end');
  });
  afterAll(async () => {
    await t?.close();
  });
  return { sockets, streams, app: () => t! };
}

describe.each(backends)('live queries (%s)', (backend) => {
  const { sockets, streams, app } = liveApp(backend, {
    LIVE_MAX_CONNECTIONS_PER_SUBJECT: '2',
    LIVE_MAX_SUBSCRIPTIONS_PER_CONNECTION: '2',
  });
  let t: TestApp;
  beforeAll(() => {
    t = app();
  });

  /** A live query over SSE that is refused: its status and errors. */
  const sseAnswer = async (token: string) => {
    const res = await fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'text/event-stream',
        authorization: `Bearer ${token}`,
      },
      body: JSON.stringify({ query: print(LiveTimeline), variables: range() }),
    });
    return { status: res.status, body: (await res.json()) as { errors: unknown[] } };
  };

  const socket = (token: string) => {
    const ws = wsClient(t.url, `Bearer ${token}`);
    sockets.push(ws);
    return ws;
  };

  it('over graphql-ws, sends the timeline and counts again when an activity commits', async () => {
    const s = await seedAccessory(t, 'lq-ws', 'cam');
    const reader = await t.token(['activities_basic'], 'lq-ws');
    await createActivities(t, s.ingest, s.accessoryId, 1);
    const live = overWebSocket(socket(reader), print(LiveTimeline), range());
    streams.push(live);
    await waitFor(() => live.items.length === 1, 'the first result');
    const first = live.items[0]!.data as TimelineData;
    expect(counted(first)).toBe(1);
    expect((await t.app.services.metrics.liveQueries.get()).values[0]?.value).toBe(1);

    await createActivities(t, s.ingest, s.accessoryId, 1);
    await waitFor(() => counted(live.items.at(-1)?.data as TimelineData) === 2, 'the update');
    const last = live.items.at(-1)!.data as TimelineData;
    expect(last).toEqual((await gql(t.url, reader, Timeline, range())).data);
    expect(newest(last)).not.toBe(newest(first));
    expect(live.errors).toEqual([]);

    // Completing it on the client frees its place in the live limits at once.
    live.stop();
    await waitFor(() => t.app.services.live.activeSubscriptions === 0, 'the live query to end');
    expect((await t.app.services.metrics.liveQueries.get()).values[0]?.value).toBe(0);
  });

  it('over graphql-sse, sends JSON patches that applyLiveQueryJSONPatch applies', async () => {
    const s = await seedAccessory(t, 'lq-sse', 'cam');
    const reader = await t.token(['activities_basic'], 'lq-sse');
    const raw = overSse(t.url, reader, print(LiveTimelinePatches), range());
    const applied = overSse(
      t.url,
      reader,
      print(LiveTimelinePatches),
      range(),
      applyLiveQueryJSONPatch,
    );
    streams.push(raw, applied);
    await waitFor(() => raw.items.length === 1 && applied.items.length === 1, 'the first results');
    expect(raw.items[0]).toMatchObject({ revision: 1, data: { viewer: { activities: {} } } });

    await createActivities(t, s.ingest, s.accessoryId, 3);
    const expected = (await gql(t.url, reader, Timeline, range())).data as TimelineData;
    // The page and the counts are two statements: a result may hold one before a write and the
    // other after it, and the next execution (the write invalidated it) brings them together.
    await waitFor(() => isDeepStrictEqual(applied.items.at(-1)?.data, expected), 'the patches');
    // After the first, each is a patch of the one before, numbered on.
    const later = raw.items.slice(1) as { revision: number; patch?: unknown[]; data?: unknown }[];
    expect(later.length).toBeGreaterThan(0);
    later.forEach((update, i) => {
      expect(update.revision).toBe(i + 2);
      expect(update.data).toBeUndefined();
      expect(update.patch!.length).toBeGreaterThan(0);
    });
    expect([...raw.errors, ...applied.errors]).toEqual([]);
  });

  it('bounds the executions of each live query: many events, few executions', async () => {
    const s = await seedAccessory(t, 'lq-rate', 'cam');
    const reader = await t.token(['activities_basic'], 'lq-rate');
    const live = overWebSocket(socket(reader), print(LiveTimeline), range());
    streams.push(live);
    await waitFor(() => live.items.length === 1, 'the first result');
    const [runsBefore, eventsBefore] = [total(await executions(t)), await invalidations(t)];
    const started = performance.now();

    await createActivities(t, s.ingest, s.accessoryId, 30);
    await waitFor(() => counted(live.items.at(-1)?.data as TimelineData) === 30, 'every activity');
    const elapsed = performance.now() - started;
    // The last one may still be running; let it end.
    await new Promise((resolve) => setTimeout(resolve, INTERVAL_MS * 2));

    const runs = total(await executions(t)) - runsBefore;
    const events = (await invalidations(t)) - eventsBefore;
    expect(events).toBe(59); // 30 created, 29 finished
    // One at the first event, then at most one per interval.
    expect(runs).toBeLessThanOrEqual(Math.ceil((elapsed + INTERVAL_MS * 2) / INTERVAL_MS) + 1);
    expect(runs).toBeLessThan(events);
    expect(live.items.length - 1).toBeLessThanOrEqual(runs);
    expect(live.items.at(-1)!.data).toEqual((await gql(t.url, reader, Timeline, range())).data);
  });

  it('shares one execution per change among the live queries of one query and caller', async () => {
    const s = await seedAccessory(t, 'lq-share', 'cam');
    const reader = await t.token(['activities_basic'], 'lq-share');
    const variables = range();
    const [one, two] = [socket(reader), socket(reader)];
    // Three of the same query, variables and caller over two sockets; one with other variables.
    const same = [one, one, two].map((ws) => overWebSocket(ws, print(LiveTimeline), variables));
    const later = { ...variables, to: new Date(Date.now() + 2 * DAY).toISOString() };
    const other = overWebSocket(two, print(LiveTimeline), later);
    const all = [...same, other];
    streams.push(...all);
    await waitFor(() => all.every((l) => l.items.length === 1), 'the first results');
    const runsBefore = total(await executions(t));

    await createActivities(t, s.ingest, s.accessoryId, 1);
    await waitFor(
      () => all.every((l) => counted(l.items.at(-1)?.data as TimelineData) === 1),
      'every update',
    );
    await new Promise((resolve) => setTimeout(resolve, INTERVAL_MS * 2));
    // One execution for the three, one for the fourth.
    expect(total(await executions(t)) - runsBefore).toBe(2);
    const expected = (await gql(t.url, reader, Timeline, variables)).data;
    for (const l of same)
      expect(l.items.map((r) => r.data)).toEqual([same[0]!.items[0]!.data, expected]);
    expect(other.items).toHaveLength(2);
  });

  it('sends nothing for an event that does not change the result, nor for motion', async () => {
    const s = await seedAccessory(t, 'lq-same', 'cam');
    const reader = await t.token(['activities_basic'], 'lq-same');
    await createActivities(t, s.ingest, s.accessoryId, 1);
    const Ids = `query LiveIds @live { viewer { activities(first: 5) { edges { node { activityId } } } } }`;
    const live = overWebSocket(socket(reader), Ids, {});
    streams.push(live);
    await waitFor(() => live.items.length === 1, 'the first result');
    const [before, eventsBefore] = [await executions(t), await invalidations(t)];

    await ok(t, s.ingest, ReportMotion, { accessoryId: s.accessoryId, state: 'started' });
    const activityId = newest(live.items[0]!.data as TimelineData)!;
    // A change of a field the query does not ask for: executed, found the same, not sent.
    await ok(t, s.ingest, UpdateActivity, {
      accessoryId: s.accessoryId,
      activityId,
      input: { relevanceLevel: 3 },
    });
    await expect
      .poll(async () => (await executions(t)).unchanged ?? 0, { timeout: 5000 })
      .toBeGreaterThan(before.unchanged ?? 0);
    await new Promise((resolve) => setTimeout(resolve, INTERVAL_MS));
    expect(await invalidations(t)).toBe(eventsBefore + 1);
    expect(live.items).toHaveLength(1);
  });

  it('is refused without a stream, without the reading scope and without an account', async () => {
    await seedAccessory(t, 'lq-refused', 'cam');
    const reader = await t.token(['activities_basic'], 'lq-refused');
    // Plain JSON over HTTP: no stream to send updates over.
    const plain = await gql(t.url, reader, LiveTimeline, range());
    expect(plain.status).toBe(400);
    expect(plain.errors?.[0]?.extensions).toMatchObject({
      code: 'INVALID_ARGUMENT',
      details: { field: '@live' },
    });

    const zonesOnly = await sseAnswer(await t.token(['zones'], 'lq-refused'));
    expect(zonesOnly.status).toBe(403);
    expect(zonesOnly.body.errors[0]).toMatchObject({ extensions: { code: 'PERMISSION_DENIED' } });
    const noAccount = await sseAnswer(await t.token(['activities_basic'], 'lq-nobody'));
    expect(noAccount.status).toBe(404);
    expect(noAccount.body.errors[0]).toMatchObject({ extensions: { code: 'NOT_FOUND' } });

    // Over a WebSocket, the same refusals as results of their own.
    const live = overWebSocket(
      socket(await t.token(['zones'], 'lq-refused')),
      print(LiveTimeline),
      range(),
    );
    await live.ended;
    expect(live.items).toHaveLength(1);
    expect(live.items[0]!.errors?.[0]).toMatchObject({
      extensions: { code: 'PERMISSION_DENIED' },
    });
  });

  it('counts in the live limits: live connections per subject, operations per socket', async () => {
    await seedAccessory(t, 'lq-limit', 'cam');
    const reader = await t.token(['activities_basic'], 'lq-limit');
    // Over SSE each live query is a live connection of its subject and client (at most 2 here).
    const open = [1, 2].map(() => overSse(t.url, reader, print(LiveTimeline), range()));
    streams.push(...open);
    await waitFor(() => open.every((o) => o.items.length === 1), 'two live queries');
    const third = await sseAnswer(reader);
    expect(third.status).toBe(429);
    expect(third.body.errors[0]).toMatchObject({ extensions: { code: 'RATE_LIMITED' } });
    for (const o of open) o.stop();
    await Promise.all(open.map((o) => o.ended));
    await waitFor(() => t.app.services.liveConnections.total === 0, 'the slots back');

    // Over a WebSocket each is one of the socket's operations (at most 2 here).
    const ws = socket(reader);
    const running = [1, 2].map(() => overWebSocket(ws, print(LiveTimeline), range()));
    streams.push(...running);
    await waitFor(() => running.every((o) => o.items.length === 1), 'two on one socket');
    const refused = overWebSocket(ws, print(LiveTimeline), range());
    await refused.ended;
    expect(refused.errors).toEqual([
      [expect.objectContaining({ extensions: expect.objectContaining({ code: 'RATE_LIMITED' }) })],
    ]);
  });

  it('ends when its token expires (SSE: UNAUTHENTICATED; WebSocket: 4403)', async () => {
    await seedAccessory(t, 'lq-expiry', 'cam');
    const short = await signDevToken(TEST_SECRET, {
      sub: 'lq-expiry',
      clientId: 'client-1',
      scopes: [`${t.config.scopePrefix}:activities_basic`],
      ttlSeconds: 3,
    });
    const overHttp = overSse(t.url, short, print(LiveTimeline), range());
    const ws = socket(short);
    const overWs = overWebSocket(ws, print(LiveTimeline), range());
    await waitFor(() => overHttp.items.length === 1 && overWs.items.length === 1, 'the results');
    await overHttp.ended;
    expect(overHttp.items.at(-1)!.errors?.[0]).toMatchObject({
      extensions: { code: 'UNAUTHENTICATED' },
    });
    expect((await ws.closed).code).toBe(4403);
  });

  it('ends when its account is deleted: the query is authorized again and finds none', async () => {
    const s = await seedAccessory(t, 'lq-deleted', 'cam');
    const reader = await t.token(['activities_basic'], 'lq-deleted');
    const live = overWebSocket(socket(reader), print(LiveTimeline), range());
    await waitFor(() => live.items.length === 1, 'the first result');
    await ok(t, await t.token(['admin'], 'operator'), DeleteAccount, { accountId: s.accountId });
    await live.ended;
    expect(live.items.at(-1)!.errors?.[0]).toMatchObject({ extensions: { code: 'NOT_FOUND' } });
    expect(live.items.at(-1)!.data ?? null).toBeNull();
  });
});

// Two instances on one PostgreSQL database and one Redis: CI sets both.
const shared = backends.includes('postgres') && redisUrl !== undefined;

describe.each(backends)('what live queries cost (%s)', (backend) => {
  // A page of 100 activities: about 1,100 points, more than its statements take.
  const pageQuery = `query LivePage @live { viewer { activities(first: 100) { edges { node {
    activityId accessoryId startTime endTime playbackDuration relevanceLevel inProgress
    motionZones objectLocations } } } } }`;
  const cost = operationCost(schema, parse(pageQuery), {}, undefined)!;
  // The reader's budget: 0.6 executions a second, in bursts of 1.2; after the first result,
  // about one update every 1.7 s however often the account changes (and the interval allows
  // twenty a second). The camera's writes have a budget of their own, a thousand times larger.
  const { sockets, streams, app } = liveApp(backend, {
    LIVE_QUERY_MIN_INTERVAL_MS: '50',
    RATE_LIMIT_RPS: '100',
    RATE_LIMIT_INGEST_RPS: '100000',
    RATE_LIMIT_COST: String(Math.ceil(cost * 0.6)),
    GRAPHQL_MAX_COST: String(Math.ceil(cost * 1.2)),
  });
  const listed = (result: ExecutionResult | undefined) =>
    (result?.data as { viewer: { activities: { edges: unknown[] } } } | undefined)?.viewer
      .activities.edges.length;

  it("takes each update's cost from the caller's budget: an empty budget delays the next", async () => {
    const t = app();
    const s = await seedAccessory(t, 'lq-cost', 'cam');
    const reader = await t.token(['activities_basic'], 'lq-cost', 'lq-cost-live');
    const ws = wsClient(t.url, `Bearer ${reader}`);
    sockets.push(ws);
    const live = overWebSocket(ws, pageQuery, {});
    streams.push(live);
    await waitFor(() => live.items.length === 1, 'the first result');
    const runsBefore = total(await executions(t));
    const started = performance.now();

    for (let i = 0; i < 10; i++) {
      await createActivities(t, s.ingest, s.accessoryId, 1);
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    await waitFor(() => listed(live.items.at(-1)) === 10, 'every activity', 30_000);
    const seconds = (performance.now() - started) / 1000;
    const runs = total(await executions(t)) - runsBefore;
    // Each took at least its price: what was left of the burst and what refilled since, in
    // executions; one more may be waiting for the budget.
    expect(runs).toBeLessThanOrEqual(Math.floor(0.2 + 0.6 * seconds) + 1);
    expect(runs).toBeGreaterThan(0);
    expect(live.errors).toEqual([]);
  });

  it('an update waiting for the budget is given up when its client leaves', async () => {
    const t = app();
    const s = await seedAccessory(t, 'lq-gone', 'cam');
    // A whole page, so that each execution costs its price (a shorter one is charged less).
    const first = Date.now() - 200 * 60_000;
    const batch = await postGraphQL(
      t.url,
      s.ingest,
      'mutation Seed($items: [JSON!]!) { ingestBatch(items: $items) { ok } }',
      {
        items: Array.from({ length: 100 }, (_, i) => ({
          op: 'createActivity',
          accessoryId: s.accessoryId,
          input: { createdAt: new Date(first + i * 60_000).toISOString() },
        })),
      },
    );
    expect(await batch.json()).toMatchObject({
      data: { ingestBatch: Array(100).fill({ ok: true }) },
    });
    const reader = await t.token(['activities_basic'], 'lq-gone', 'lq-gone-live');
    const ws = wsClient(t.url, `Bearer ${reader}`);
    sockets.push(ws);
    const live = overWebSocket(ws, pageQuery, {});
    streams.push(live);
    await waitFor(() => live.items.length === 1, 'the first result');
    // The first result left 0.2 executions of budget: the update this change asks for waits
    // about 1.3 s for the rest. The client leaves (`complete`, the socket stays) meanwhile.
    const seen = await invalidations(t);
    await createActivities(t, s.ingest, s.accessoryId, 1);
    await vi.waitFor(async () => expect(await invalidations(t)).toBeGreaterThan(seen), {
      interval: 10,
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    live.stop();
    await waitFor(() => t.app.services.live.activeSubscriptions === 0, 'the live query to end');
    // Past the update's wait: had it run after all, its cost would not have come back yet. The
    // budget is whole again by now in any case else (0.2 + 1.5 s × 0.6 executions a second).
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const answer = await postGraphQL(t.url, reader, '{ viewer { accountId } }');
    const { extensions } = (await answer.json()) as {
      extensions: { cost: { throttleStatus: { currentlyAvailable: number } } };
    };
    expect(extensions.cost.throttleStatus.currentlyAvailable).toBeGreaterThan(0.9 * cost);
  });
});

describe.runIf(shared)('live queries across two instances (PostgreSQL + Redis)', () => {
  let a: TestApp;
  let b: TestApp;

  beforeAll(async () => {
    const env = { REDIS_URL: redisUrl!, LIVE_QUERY_MIN_INTERVAL_MS: String(INTERVAL_MS) };
    a = await startApp('postgres', env);
    b = await startApp('postgres', { ...env, DATABASE_URL: a.config.databaseUrl! });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('a live query on B updates when A commits', async () => {
    const s = await seedAccessory(a, 'lq-multi', 'cam');
    const reader = await a.token(['activities_basic'], 'lq-multi');
    const ws = wsClient(b.url, `Bearer ${reader}`);
    try {
      const live = overWebSocket(ws, print(LiveTimeline), range());
      await waitFor(() => live.items.length === 1, 'the first result on B');
      expect(counted(live.items[0]!.data as TimelineData)).toBe(0);
      await createActivities(a, s.ingest, s.accessoryId, 2);
      // Two commits: an execution between them may show a part of the second (its count, not
      // its row); the next one, after the second's events, shows it all.
      const expected = (await gql(a.url, reader, Timeline, range())).data;
      await waitFor(() => isDeepStrictEqual(live.items.at(-1)?.data, expected), 'the update on B');
      expect(counted(expected as TimelineData)).toBe(2);
      expect(a.app.services.live.activeSubscriptions).toBe(0);
    } finally {
      await ws.dispose();
    }
  });
});

describe.runIf(backends.includes('postgres'))('live queries on GraphQL worker threads', () => {
  let t: TestApp;

  beforeAll(async () => {
    // Every query is costly enough for a thread.
    t = await startApp('postgres', {
      GRAPHQL_WORKERS: '1',
      GRAPHQL_WORKER_MIN_COST: '1',
      LIVE_QUERY_MIN_INTERVAL_MS: String(INTERVAL_MS),
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('executes the first result and each update on a thread', async () => {
    const s = await seedAccessory(t, 'lq-threads', 'cam');
    const reader = await t.token(['activities_basic'], 'lq-threads');
    const onThreads = async () => {
      const { values } = await t.app.services.metrics.graphqlWorkerOperations.get();
      return values.find((v) => v.labels.outcome === 'ok')?.value ?? 0;
    };
    const before = await onThreads();
    const ws = wsClient(t.url, `Bearer ${reader}`);
    try {
      const live = overWebSocket(ws, print(LiveTimeline), range());
      await waitFor(() => live.items.length === 1, 'the first result');
      await createActivities(t, s.ingest, s.accessoryId, 1);
      await waitFor(() => counted(live.items.at(-1)?.data as TimelineData) === 1, 'the update');
      expect(live.items.at(-1)!.data).toEqual((await gql(t.url, reader, Timeline, range())).data);
      // The first, at least one update, and the query just above.
      expect((await onThreads()) - before).toBeGreaterThanOrEqual(3);
    } finally {
      await ws.dispose();
    }
  });
});

/** The newest `first` activities of the caller's account, live: about 90 bytes an activity. */
const LiveIds = `query LiveIds($first: Int!) @live {
  viewer { activities(first: $first) { edges { node { activityId accessoryId } } } }
}`;
/** A result that stays small however many activities there are. */
const LiveCount = `query LiveCount($from: DateTime!, $to: DateTime!) @live {
  viewer { activityCounts(from: $from, to: $to, bucket: DAY) { buckets { count } } }
}`;

const errorOf = (results: Results) =>
  (results.items.at(-1)?.errors?.[0] as { extensions?: Record<string, unknown> } | undefined)
    ?.extensions;

describe.each(backends)('what live queries keep, per caller (%s)', (backend) => {
  const { sockets, streams, app } = liveApp(backend, {
    LIVE_QUERY_MAX_PER_CALLER: '2',
    LIVE_QUERY_MAX_BYTES_PER_CALLER: '4000',
    LIVE_QUERY_MAX_BYTES: '5000',
  });
  let t: TestApp;
  beforeAll(() => {
    t = app();
  });

  const socket = async (subject: string, clientId = 'client-1') => {
    const ws = wsClient(t.url, `Bearer ${await t.token(['activities_basic'], subject, clientId)}`);
    sockets.push(ws);
    return ws;
  };
  const live = (ws: WsClient, query: string, variables: Record<string, unknown>) => {
    const results = overWebSocket(ws, query, variables);
    streams.push(results);
    return results;
  };
  const held = async () => (await t.app.services.metrics.liveQueryBytes.get()).values[0]?.value;
  const running = async () => (await t.app.services.metrics.liveQueries.get()).values[0]?.value;

  it('refuses a caller past LIVE_QUERY_MAX_PER_CALLER; its others go on, another tenant opens', async () => {
    const s = await seedAccessory(t, 'lqm-count', 'cam');
    const ws = await socket('lqm-count');
    const open = [1, 2].map((first) => live(ws, LiveIds, { first }));
    await waitFor(() => open.every((o) => o.items.length === 1), 'two live queries');

    const third = live(ws, LiveIds, { first: 3 });
    await third.ended;
    expect(third.items).toHaveLength(1);
    expect(errorOf(third)).toMatchObject({
      code: 'RATE_LIMITED',
      details: { limit: 'LIVE_QUERY_MAX_PER_CALLER', max: 2, retryAfterSeconds: 5 },
    });
    // Over SSE the same refusal is a 429 with Retry-After.
    const res = await fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'text/event-stream',
        authorization: `Bearer ${await t.token(['activities_basic'], 'lqm-count')}`,
      },
      body: JSON.stringify({ query: LiveIds, variables: { first: 4 } }),
    });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('5');

    // Another tenant, and the same user's other app, each have their own.
    await seedAccessory(t, 'lqm-other', 'cam');
    const others = [
      live(await socket('lqm-other'), LiveIds, { first: 1 }),
      live(await socket('lqm-count', 'client-2'), LiveIds, { first: 1 }),
    ];
    await waitFor(() => others.every((o) => o.items.length === 1), 'the other callers');
    expect(others.map((o) => o.items[0]!.errors)).toEqual([undefined, undefined]);

    // The caller's first two go on.
    await createActivities(t, s.ingest, s.accessoryId, 1);
    await waitFor(() => open.every((o) => o.items.length === 2), 'their updates');
    expect(open.every((o) => !o.done && o.errors.length === 0)).toBe(true);
  });

  it('ends the live query whose result grows past LIVE_QUERY_MAX_BYTES_PER_CALLER, not the others', async () => {
    const s = await seedAccessory(t, 'lqm-bytes', 'cam');
    await createActivities(t, s.ingest, s.accessoryId, 5);
    const ws = await socket('lqm-bytes');
    const ids = live(ws, LiveIds, { first: 60 });
    const counts = live(ws, LiveCount, range());
    await waitFor(() => ids.items.length === 1 && counts.items.length === 1, 'the first results');
    const small = Buffer.byteLength(JSON.stringify(counts.items[0]));
    expect(await held()).toBe(Buffer.byteLength(JSON.stringify(ids.items[0])) + small);

    // 45 more activities: their ids take about 4500 bytes, the counts still a few dozen.
    await createActivities(t, s.ingest, s.accessoryId, 45);
    await ids.ended;
    expect(errorOf(ids)).toMatchObject({
      code: 'RATE_LIMITED',
      details: { limit: 'LIVE_QUERY_MAX_BYTES_PER_CALLER', max: 4000 },
    });
    expect(ids.items.at(-1)!.data ?? null).toBeNull();
    await waitFor(() => counted(counts.items.at(-1)?.data as TimelineData) === 50, 'the counts');
    expect(counts.done).toBe(false);
    expect(await running()).toBe(1);
    expect(await held()).toBe(Buffer.byteLength(JSON.stringify(counts.items.at(-1))));

    // A new one whose first result is already too large is refused, keeping nothing.
    const again = live(ws, LiveIds, { first: 60 });
    await again.ended;
    expect(errorOf(again)).toMatchObject({
      code: 'RATE_LIMITED',
      details: { limit: 'LIVE_QUERY_MAX_BYTES_PER_CALLER', max: 4000 },
    });
    expect(await running()).toBe(1);
  });

  it('refuses past LIVE_QUERY_MAX_BYTES for every caller, and gives back what an ended one kept', async () => {
    const [b, c] = [await seedAccessory(t, 'lqm-b', 'cam'), await seedAccessory(t, 'lqm-c', 'cam')];
    await createActivities(t, b.ingest, b.accessoryId, 30);
    await createActivities(t, c.ingest, c.accessoryId, 30);
    // About 2900 bytes each: one caller's fits its own budget, two do not fit the instance's.
    const first = live(await socket('lqm-b'), LiveIds, { first: 30 });
    await waitFor(() => first.items.length === 1, "B's live query");
    const cToken = await t.token(['activities_basic'], 'lqm-c');
    const overSseAsC = () =>
      fetch(`${t.url}/graphql`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'text/event-stream',
          authorization: `Bearer ${cToken}`,
        },
        body: JSON.stringify({ query: LiveIds, variables: { first: 30 } }),
      });
    const refused = await overSseAsC();
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(((await refused.json()) as { errors: unknown[] }).errors[0]).toMatchObject({
      extensions: { code: 'UNAVAILABLE', details: { limit: 'LIVE_QUERY_MAX_BYTES', max: 5000 } },
    });
    const cWs = await socket('lqm-c');
    const second = live(cWs, LiveIds, { first: 30 });
    await second.ended;
    expect(errorOf(second)).toMatchObject({ code: 'UNAVAILABLE' });

    // B completes its live query: what it kept is given back, and C's now fits.
    first.stop();
    await expect.poll(held, { timeout: 5000 }).toBe(0);
    const third = live(cWs, LiveIds, { first: 30 });
    await waitFor(() => third.items.length === 1, "C's live query");
    expect(third.items[0]!.errors).toBeUndefined();

    // C's socket goes away: its live queries end, and so does what they kept.
    const small = live(cWs, LiveIds, { first: 1 });
    await waitFor(() => small.items.length === 1, "C's second");
    await cWs.dispose();
    await expect.poll(running, { timeout: 5000 }).toBe(0);
    expect(await held()).toBe(0);
    // C has its two places again.
    const back = await socket('lqm-c');
    const both = [30, 1].map((n) => live(back, LiveIds, { first: n }));
    await waitFor(() => both.every((o) => o.items.length === 1), 'two again');
    expect(both.map((o) => o.items[0]!.errors)).toEqual([undefined, undefined]);
  });
});
