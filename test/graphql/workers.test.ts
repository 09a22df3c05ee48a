import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import type * as WorkerThreads from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { pointsOfDatabaseTime } from '../../src/limits/cost.ts';
import { backends, freshPostgres, startApp, type TestApp } from '../helpers/app.ts';
import { postGraphQL } from '../helpers/client.ts';
import { seedAccessory, seedActivities } from '../helpers/fixtures.ts';
import { lockActivities } from '../helpers/locks.ts';
import { startCollector, type Collector, type OtlpSpan } from '../helpers/otlp.ts';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.ts';

/**
 * Every worker thread the apps of this file start, in order, so a test can stop one; and those
 * that said they are ready.
 */
const { threads, ready } = vi.hoisted(() => ({
  threads: [] as WorkerThreads.Worker[],
  ready: new Set<WorkerThreads.Worker>(),
}));
vi.mock('node:worker_threads', async (importOriginal) => {
  const actual = await importOriginal<typeof WorkerThreads>();
  class Recorded extends actual.Worker {
    constructor(...args: ConstructorParameters<typeof actual.Worker>) {
      super(...args);
      threads.push(this);
      this.on('message', (message: { type?: string }) => {
        if (message.type === 'ready') ready.add(this);
      });
    }
  }
  return { ...actual, Worker: Recorded };
});

// Two pages of everything an activity has: about 4,600 cost points, over the thresholds below.
const page = (alias: string, filter: string) => `
  ${alias}: accessory(id: $id) { id name activities(first: 100, filter: "${filter}") {
    edges { cursor node { id accessoryId activityId startTime endTime inProgress relevanceLevel
      playbackDuration motionZones objectLocations media { hls image mp4 mpd } } }
    pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }`;
const costly = (second: string) =>
  `query Costly($id: ID!) { ${page('a', 'relevanceLevel >= 0')} ${page('b', second)} }`;
const COSTLY = costly('relevanceLevel >= 2');
const LIGHT = `query Light($id: ID!) { accessory(id: $id) { id name } }`;

async function post(t: TestApp, token: string, query: string, variables: object) {
  const res = await postGraphQL(t.url, token, query, variables);
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.text() };
}

/** What `clipgate_graphql_worker_operations_total` says, by outcome. */
async function onWorkers(t: TestApp): Promise<Record<string, number>> {
  const text = await (await fetch(`${t.url}/metrics`)).text();
  return Object.fromEntries(
    [...text.matchAll(/^clipgate_graphql_worker_operations_total\{outcome="(\w+)"\} (\d+)/gm)].map(
      ([, outcome, count]) => [outcome!, Number(count)],
    ),
  );
}

/** The nice value (CPU priority) of each thread of this process (Linux: /proc). */
function threadNiceValues(): number[] {
  return readdirSync('/proc/self/task').map((tid) => {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    // The fields after the command's `)`: state is the 3rd of stat(5), nice the 19th.
    return Number(stat.slice(stat.lastIndexOf(') ') + 2).split(' ')[16]);
  });
}

/**
 * The costly queries on worker threads (GRAPHQL_WORKERS): on PostgreSQL, a query over
 * GRAPHQL_WORKER_MIN_COST is executed by a thread with connections of its own and answers
 * exactly as the event loop would have; a second instance on the same database without threads
 * is the reference.
 */
describe.runIf(backends.includes('postgres'))('GraphQL worker threads on postgres', () => {
  let threaded: TestApp;
  let plain: TestApp;
  let accessoryId: string;
  let reader: string;

  beforeAll(async () => {
    threaded = await startApp('postgres', { GRAPHQL_WORKERS: '2', GRAPHQL_WORKER_MIN_COST: '100' });
    plain = await startApp('postgres', { DATABASE_URL: threaded.config.databaseUrl! });
    const seeded = await seedAccessory(threaded);
    accessoryId = seeded.accessoryId;
    await seedActivities(threaded, seeded.ingest, accessoryId, 12);
    reader = await threaded.token(['activities_basic']);
  }, 60_000);
  afterAll(async () => {
    await plain?.close();
    await threaded?.close();
  });

  it('executes a costly query on a thread, with the answer the event loop gives', async () => {
    const before = await onWorkers(threaded);
    const answer = await post(threaded, reader, COSTLY, { id: accessoryId });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body).data.a.activities.edges).toHaveLength(12);
    expect(answer).toEqual(await post(plain, reader, COSTLY, { id: accessoryId }));
    expect((await onWorkers(threaded)).ok).toBe((before.ok ?? 0) + 1);
    expect(await onWorkers(plain)).toEqual({});
  });

  // Where this process already runs at nice 10 or more, its threads could not be told apart.
  it.runIf(process.platform === 'linux' && os.getPriority() < 10)(
    'runs its threads GRAPHQL_WORKER_NICE (10) steps of CPU priority below the event loop',
    () => {
      const loop = os.getPriority();
      expect(threadNiceValues().filter((n) => n === loop + 10)).toHaveLength(2);
    },
  );

  it('answers errors with the contract codes, details and paths the event loop gives', async () => {
    const before = await onWorkers(threaded);
    const query = costly('relevanceLevel >');
    const answer = await post(threaded, reader, query, { id: accessoryId });
    const { data, errors } = JSON.parse(answer.body);
    expect(data.a.activities.edges).toHaveLength(12);
    expect(errors).toEqual([
      expect.objectContaining({
        path: ['b', 'activities'],
        extensions: expect.objectContaining({
          code: 'INVALID_ARGUMENT',
          details: expect.anything(),
        }),
      }),
    ]);
    expect(answer).toEqual(await post(plain, reader, query, { id: accessoryId }));
    // A token without the scope: refused where the field resolves, on the thread.
    const zones = await threaded.token(['zones']);
    const refused = await post(threaded, zones, COSTLY, { id: accessoryId });
    expect(JSON.parse(refused.body).errors[0].extensions.code).toBe('PERMISSION_DENIED');
    expect(refused).toEqual(await post(plain, zones, COSTLY, { id: accessoryId }));
    expect((await onWorkers(threaded)).ok).toBe((before.ok ?? 0) + 2);
  });

  it('forgets a deleted account as the instance does', async () => {
    const seeded = await seedAccessory(threaded, 'user-3', 'camera-3');
    await seedActivities(threaded, seeded.ingest, seeded.accessoryId, 1);
    const viewer = await threaded.token(['activities_basic'], 'user-3');
    const variables = { id: seeded.accessoryId };
    // The thread caches the account and the accessory.
    expect(
      JSON.parse((await post(threaded, viewer, COSTLY, variables)).body).data.a,
    ).not.toBeNull();
    const admin = await threaded.token(['admin'], 'an-admin');
    const deleted = await post(
      threaded,
      admin,
      'mutation($a: ID!) { deleteAccount(accountId: $a) }',
      {
        a: seeded.accountId,
      },
    );
    expect(JSON.parse(deleted.body).data.deleteAccount).toBe(true);
    const after = await post(threaded, viewer, COSTLY, variables);
    expect(JSON.parse(after.body).data).toEqual({ a: null, b: null });
    expect(after).toEqual(await post(plain, viewer, COSTLY, variables));
  });

  it('fails the queries of a thread that stops with 503 and Retry-After, and starts it again', async () => {
    const started = threads.length;
    const locked = await lockActivities(threaded);
    try {
      const inFlight = post(threaded, reader, COSTLY, { id: accessoryId });
      await locked.settle(1, 0);
      // The first thread took it: with none in flight, the first ready thread is chosen.
      await threads[started - 2]!.terminate();
      const answer = await inFlight;
      expect(answer.status).toBe(503);
      expect(answer.retryAfter).toBe('1');
      expect(JSON.parse(answer.body).errors[0].extensions.code).toBe('UNAVAILABLE');
    } finally {
      await locked.release();
      await locked.end();
    }
    expect((await onWorkers(threaded)).failed).toBe(1);
    await vi.waitFor(() => expect(threads).toHaveLength(started + 1), { timeout: 10_000 });
    // Until it is ready, queries run on the event loop: its start takes seconds on a busy machine.
    await vi.waitFor(() => expect(ready.has(threads[started]!)).toBe(true), { timeout: 30_000 });
    // With the other thread stopped too, the one started again executes the next query.
    await threads[started - 1]!.terminate();
    const before = await onWorkers(threaded);
    await vi.waitFor(
      async () => {
        expect((await post(threaded, reader, COSTLY, { id: accessoryId })).status).toBe(200);
        expect((await onWorkers(threaded)).ok).toBeGreaterThan(before.ok ?? 0);
      },
      { timeout: 10_000, interval: 100 },
    );
  }, 60_000);

  it('executes light queries and mutations on the event loop', async () => {
    const before = await onWorkers(threaded);
    expect((await post(threaded, reader, LIGHT, { id: accessoryId })).status).toBe(200);
    await seedActivities(threaded, (await seedAccessory(threaded)).ingest, accessoryId, 1);
    expect(await onWorkers(threaded)).toEqual(before);
  });
});

describe.runIf(backends.includes('postgres'))('what a query on a thread costs', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp('postgres', {
      GRAPHQL_WORKERS: '1',
      GRAPHQL_WORKER_MIN_COST: '100',
      RATE_LIMIT_RPS: '100',
      GRAPHQL_UNPRICED_DATABASE_MS: '50',
    });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  it('charges it the time its statements took on the thread, in its answer', async () => {
    const { accessoryId, ingest } = await seedAccessory(t);
    await seedActivities(t, ingest, accessoryId, 1);
    const reader = await t.token(['activities_basic']);
    const locked = await lockActivities(t);
    let answer;
    try {
      const inFlight = post(t, reader, COSTLY, { id: accessoryId });
      await locked.settle(1, 500);
      await locked.release();
      answer = await inFlight;
    } finally {
      await locked.end();
    }
    expect(answer.status).toBe(200);
    const { cost } = JSON.parse(answer.body).extensions;
    // Half a second waiting for the lock: past its price and the 50 ms it may take unpriced.
    expect(cost.actualQueryCost).toBeGreaterThanOrEqual(pointsOfDatabaseTime(500));
    expect(cost.actualQueryCost).toBeGreaterThan(cost.requestedQueryCost);
    expect(JSON.parse(answer.body).data.a.activities.edges).toHaveLength(1);
  });
});

describe.runIf(backends.includes('postgres'))(
  'a GraphQL worker thread cut off from postgres',
  () => {
    let t: TestApp;
    let proxy: TcpProxy;
    let drop: () => Promise<void>;

    beforeAll(async () => {
      const db = await freshPostgres({ migrated: true });
      drop = db.drop;
      const target = new URL(db.url);
      proxy = await startTcpProxy(target.hostname, Number(target.port || 5432));
      t = await startApp('postgres', {
        DATABASE_URL: proxy.via(db.url),
        GRAPHQL_WORKERS: '1',
        GRAPHQL_WORKER_MIN_COST: '100',
      });
    }, 60_000);
    afterAll(async () => {
      proxy?.restore();
      await t?.close();
      await proxy?.close();
      await drop?.();
    });

    it('answers 503 UNAVAILABLE with Retry-After, and recovers on its own', async () => {
      const { ingest, accessoryId } = await seedAccessory(t);
      await seedActivities(t, ingest, accessoryId, 2);
      const reader = await t.token(['activities_basic']);
      expect((await post(t, reader, COSTLY, { id: accessoryId })).status).toBe(200);

      proxy.cut();
      const cut = await post(t, reader, COSTLY, { id: accessoryId });
      expect(cut.status).toBe(503);
      expect(cut.retryAfter).toBe('2');
      expect(JSON.parse(cut.body).errors[0].extensions.code).toBe('UNAVAILABLE');

      proxy.restore();
      const back = await post(t, reader, COSTLY, { id: accessoryId });
      expect(back.status).toBe(200);
      expect(JSON.parse(back.body).data.a.activities.edges).toHaveLength(2);
      expect((await onWorkers(t)).ok).toBe(3);
    });
  },
);

describe.runIf(backends.includes('postgres'))('tracing a query on a GraphQL worker thread', () => {
  let collector: Collector;
  beforeAll(async () => {
    collector = await startCollector();
  });
  afterAll(() => collector?.close());

  it("continues the operation's trace in the thread, with its SQL inside", async () => {
    const t = await startApp('postgres', {
      GRAPHQL_WORKERS: '1',
      GRAPHQL_WORKER_MIN_COST: '100',
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
    });
    // The client's own trace, which the answer's spans continue.
    const traceId = randomBytes(16).toString('hex');
    try {
      const { ingest, accessoryId } = await seedAccessory(t);
      await seedActivities(t, ingest, accessoryId, 2);
      const res = await postGraphQL(
        t.url,
        await t.token(['activities_basic']),
        COSTLY,
        { id: accessoryId },
        { traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` },
      );
      expect(res.status).toBe(200);
      expect((await onWorkers(t)).ok).toBe(1);
    } finally {
      // Flushes the spans of the instance and of its thread.
      await t.close();
    }
    const spans = collector.spans().filter((span) => span.traceId === traceId);
    const byId = new Map(spans.map((span) => [span.spanId, span]));
    const worker = spans.find((span) => span.name === 'graphql.worker');
    expect(worker).toBeDefined();
    expect(byId.get(worker!.parentSpanId!)?.name).toBe('graphql.execute');
    const under = (span: OtlpSpan, ancestor: OtlpSpan): boolean => {
      const parent = span.parentSpanId ? byId.get(span.parentSpanId) : undefined;
      return parent !== undefined && (parent === ancestor || under(parent, ancestor));
    };
    const inThread = spans.filter((span) => under(span, worker!)).map((span) => span.name);
    expect(inThread).toContainEqual(expect.stringMatching(/^(pg\.query|prisma:)/));
  });
});

describe('GRAPHQL_WORKERS on the embedded database', () => {
  it('is ignored: every query executes on the event loop', async () => {
    const t = await startApp('pglite', { GRAPHQL_WORKERS: '1', GRAPHQL_WORKER_MIN_COST: '100' });
    try {
      const { ingest, accessoryId } = await seedAccessory(t);
      await seedActivities(t, ingest, accessoryId, 2);
      const answer = await post(t, await t.token(['activities_basic']), COSTLY, {
        id: accessoryId,
      });
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.body).data.a.activities.edges).toHaveLength(2);
      expect(await onWorkers(t)).toEqual({});
    } finally {
      await t.close();
    }
  });
});
