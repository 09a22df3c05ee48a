// bench/neighbours: what one tenant can take from the others within every limit the service has.
// Three accounts: Mallory with many activities (`--activities` on `--cameras`, spread over the
// last 330 days), Bob and Alice with a few. The service runs as its own process with its default
// limits. The victim is Bob's own first timeline page (`POST /api/activities`, 20 items), asked
// for every 100 ms whatever the answers before it (each request gives up after 10 s): its p50 and
// p99 are taken quiet, then under each of Mallory's attacks in turn, each sent from her one
// ordinary client token in a process of its own at a low CPU priority (bench/neighbours-load.ts,
// `--load-nice`, 19 by default), as bench/abuse does:
//
//   aliased-counts        one GraphQL request of 30 aliases of `activityCounts` over 400 days by
//                         hour, grouped by accessory, relevance and zone; `--connections` at once,
//                         back to back
//   rest-counts           `POST /api/activities/counts`, the same range, buckets and groups
//   replay                her receiver (a loopback server answering 204) has `--deliveries` in its
//                         delivery log; she asks for replays of the whole range (over
//                         WEBHOOK_REPLAY_MAX when it holds more), then of its failed ones, by turns
//   live-queries          as many `@live` grouped counts over WebSocket as she may open, each with
//                         variables of its own, while her cameras record an activity a second
//   receiver-retry-after  the victim is Alice's webhook instead: an activity of hers each second,
//                         timed from the ingest request to its notification's arrival at her path
//                         of a loopback receiver. Under attack Mallory's registration is on another
//                         path of the same receiver, which answers her 503 with `Retry-After: 600`,
//                         and her cameras keep a backlog queued for it.
//
// Printed per attack: the victim's p50 and p99, its p99 over the quiet p99 (target: at most 2x),
// what it got that was not a 2xx, what Mallory got (2xx, 429, other 4xx, 5xx, no answer), and the
// service's largest RSS meanwhile. A service that exits during an attack is said so and started
// again for the next one. A statement still running on PostgreSQL after an attack stops is waited
// for (and said so) before the next phase.
//
//   npm run bench:neighbours [-- --activities 200000 --cameras 10 --deliveries 20000 --seconds 10
//     --connections 4 --only <attack> --load-nice 19 --service-heap <MB> --cpu-prof <dir>]
//   BENCH_DATABASE_URL: run on that PostgreSQL server (its database clipgate_bench_neighbours,
//   made afresh) instead of the embedded database. `--service-heap` starts the service with
//   that --max-old-space-size; `--cpu-prof` writes the service's CPU profile (set-up included)
//   into that directory when it stops. A quick run: --activities 5000 --deliveries 2000
//   --seconds 3.
import { readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { Agent, request } from 'undici';
import { signDevToken } from '../src/accounts/auth.ts';
import { seedActivities } from '../src/activities/seed.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { openDatabase } from '../src/storage/database.ts';
import { embeddedDirectory } from '../src/storage/embedded-lock.ts';
import { BENCH_SECRET, freshDatabase } from './lib/dataset.ts';
import { forkNiced, loadAverage, met, startServer } from './lib/load.ts';
import type { Attack, LoadCommand, LoadReport } from './neighbours-load.ts';

const ATTACKS = [
  'aliased-counts',
  'rest-counts',
  'replay',
  'live-queries',
  'receiver-retry-after',
] as const;
type AttackName = (typeof ATTACKS)[number];

const { values } = parseArgs({
  options: {
    activities: { type: 'string', default: '200000' },
    cameras: { type: 'string', default: '10' },
    deliveries: { type: 'string', default: '20000' },
    seconds: { type: 'string', default: '10' },
    connections: { type: 'string', default: '4' },
    only: { type: 'string' },
    'load-nice': { type: 'string', default: '19' },
    'service-heap': { type: 'string' },
    'cpu-prof': { type: 'string' },
  },
});
if (values.only !== undefined && !ATTACKS.includes(values.only as AttackName)) {
  console.error(`--only takes one of ${ATTACKS.join(', ')}`);
  process.exit(2);
}
const attacks = ATTACKS.filter((a) => values.only === undefined || values.only === a);
const seconds = Number(values.seconds);
const cameras = Number(values.cameras);
const perCamera = Math.ceil(Number(values.activities) / cameras);
const deliveries = Number(values.deliveries);
const connections = Number(values.connections);

/** The victim's page, every this many ms; each request gives up after VICTIM_TIMEOUT_MS. */
const PROBE_INTERVAL_MS = 100;
const VICTIM_TIMEOUT_MS = 10_000;
/** Mallory's activities are spread over this many days up to now. */
const SPREAD_DAYS = 330;
/** The range of every count: 400 days, by hour. */
const FROM = '2026-01-01T00:00:00Z';
const TO = '2027-02-04T00:00:00Z';
/** After a phase, how long Alice's notifications may still arrive. */
const GRACE_MS = 10_000;
/** Between two phases, and at most how long a statement left running on PostgreSQL is waited for. */
const SETTLE_MS = 3000;
const IDLE_WAIT_MS = 60_000;
const AUTH_KEY = 'bench-neighbours-receiver-key';
/** Items of one ingest request: about 100 bytes each, within the 64 KiB a request body may hold. */
const INGEST_BATCH = 500;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

// The database, seeded before the service starts (the embedded one is one process's at a time):
// the fastest path there is, one INSERT ... SELECT per camera.
const databaseUrl = process.env.BENCH_DATABASE_URL
  ? await freshDatabase('clipgate_bench_neighbours')
  : undefined;
const backend = databaseUrl ? 'PostgreSQL' : 'embedded database';
const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'clipgate-bench-neighbours-'));
const seeding = performance.now();
const db = await openDatabase({
  databaseUrl: databaseUrl?.toString(),
  embeddedDir: embeddedDirectory(dataDir),
  logger: createLogger('warn'),
});
const seed = (subject: string, accessories: number, activities: number, spacingSeconds: number) =>
  seedActivities(db, { subject, accessories, activities, spacingSeconds, retentionDays: 3650 });
const mallorySeed = await seed(
  'mallory',
  cameras,
  perCamera,
  Math.max(1, Math.floor((SPREAD_DAYS * 86_400) / perCamera)),
);
await seed('bob', 2, 25, 3600);
const aliceSeed = await seed('alice', 1, 25, 3600);
await db.pool.query('VACUUM ANALYZE activities');
await db.close();
console.log(
  `seeded ${perCamera * cameras} activities of Mallory on ${cameras} cameras, 50 of Bob's, 25 of Alice's in ${((performance.now() - seeding) / 1000).toFixed(1)} s`,
);

const launch = () =>
  startServer(
    'src/main.ts',
    {
      PORT: '0',
      DATA_DIR: dataDir,
      DATABASE_URL: databaseUrl?.toString() ?? '',
      AUTH_DEV_SECRET: BENCH_SECRET,
      LOG_LEVEL: 'info',
      // The receivers are loopback servers of this bench.
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    },
    [
      ...(values['service-heap'] ? [`--max-old-space-size=${values['service-heap']}`] : []),
      ...(values['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${values['cpu-prof']}`] : []),
    ],
  );
let service = await launch();
const alive = () => service.child.exitCode === null && service.child.signalCode === null;
const base = () => `http://127.0.0.1:${service.port}`;
// A failed run must not leave the service running.
process.on('exit', () => service.child.kill());

const load = forkNiced(
  path.join(path.dirname(fileURLToPath(import.meta.url)), 'neighbours-load.ts'),
  values['load-nice'],
);
/** The load process's next report of `type`. */
const reply = <K extends LoadReport['type']>(type: K) =>
  new Promise<Extract<LoadReport, { type: K }>>((resolve, reject) => {
    const onMessage = (m: LoadReport) => {
      if (m.type !== type) return;
      off();
      resolve(m as Extract<LoadReport, { type: K }>);
    };
    const onExit = (code: number | null) => {
      off();
      reject(new Error(`the load process exited (${code})`));
    };
    const off = () => {
      load.off('message', onMessage);
      load.off('exit', onExit);
    };
    load.on('message', onMessage);
    load.once('exit', onExit);
  });
const command = (c: LoadCommand) => load.send(c);
const { receiverPort } = await reply('ready');
/** How many notifications Mallory's receiver (in the load process) has taken. */
const receivedCount = async () => {
  const answer = reply('received');
  command({ type: 'received' });
  return (await answer).count;
};

const token = (sub: string, clientId: string, scopes: string[]) =>
  signDevToken(BENCH_SECRET, {
    sub,
    clientId,
    scopes: scopes.map((s) => `service:${s}`),
    ttlSeconds: 12 * 3600,
  });
const pipeline = await token('camera-pipeline', 'camera-pipeline', ['ingest']);
const bob = await token('bob', 'bob-app', ['activities_basic']);
const alice = await token('alice', 'alice-app', ['notifications']);
const mallory = await token('mallory', 'mallory-app', ['activities_basic', 'notifications']);

const setup = new Agent({ connections: 8 });
/** A request of the bench's own (setup and the victim): status, body, Retry-After. */
async function call(
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  p: string,
  bearer: string,
  body?: unknown,
  o: { timeoutMs?: number; dispatcher?: Agent; contentType?: string } = {},
) {
  const res = await request(`${base()}${p}`, {
    method,
    dispatcher: o.dispatcher ?? setup,
    signal: AbortSignal.timeout(o.timeoutMs ?? 120_000),
    headers: {
      authorization: `Bearer ${bearer}`,
      ...(body !== undefined && { 'content-type': o.contentType ?? 'application/json' }),
    },
    body: body === undefined || typeof body === 'string' ? body : JSON.stringify(body),
  });
  return {
    status: res.statusCode,
    text: await res.body.text(),
    retryAfter: Number(res.headers['retry-after']) || 1,
  };
}

/** A setup request that must succeed: sent again after its Retry-After while refused as busy. */
async function must(...args: Parameters<typeof call>): Promise<unknown> {
  for (;;) {
    const { status, text, retryAfter } = await call(...args);
    if (status === 429 || status === 503) {
      await sleep(retryAfter * 1000);
      continue;
    }
    if (status >= 300 || text.includes('"errors"')) {
      throw new Error(`${args[0]} ${args[1]} answered ${status}: ${text.slice(0, 300)}`);
    }
    return text ? JSON.parse(text) : undefined;
  }
}

/** `count` new activities on `accessoryIds` by turns, through the bulk ingest API. */
async function ingest(accessoryIds: string[], count: number): Promise<void> {
  for (let done = 0; done < count; done += INGEST_BATCH) {
    const items = Array.from({ length: Math.min(INGEST_BATCH, count - done) }, (_, i) =>
      JSON.stringify({
        op: 'createActivity',
        accessoryId: accessoryIds[(done + i) % accessoryIds.length],
        input: { relevanceLevel: i % 4 },
      }),
    );
    const { results } = (await must('POST', '/api/ingest', pipeline, items.join('\n'), {
      contentType: 'application/x-ndjson',
    })) as { results: { ok: boolean }[] };
    const refused = results.filter((r) => !r.ok).length;
    if (refused > 0) throw new Error(`${refused} of ${results.length} ingest items refused`);
  }
}

const register = (bearer: string, url: string) =>
  must('PUT', '/api/accounts/self/notifications', bearer, {
    url,
    authKey: AUTH_KEY,
    eventTypes: ['activity_created'],
  });
const unregister = (bearer: string) =>
  call('DELETE', '/api/accounts/self/notifications', bearer).then(({ status }) => status);

// --- What is measured and how it is printed.

interface Sample {
  /** Each request's (or notification's) time in ms; Infinity for one that never arrived. */
  latencies: number[];
  /** What was not a 2xx, by kind. */
  failures: Map<string, number>;
}
const quantile = (sorted: number[], q: number) =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
const percentiles = (s: Sample) => {
  const sorted = [...s.latencies].sort((a, b) => a - b);
  return { p50: quantile(sorted, 0.5), p99: quantile(sorted, 0.99) };
};
const ms = (x: number) =>
  x === Infinity ? `> ${GRACE_MS / 1000} s` : `${x.toFixed(1).padStart(7)} ms`;
const kinds = (m: Iterable<[string, number]>) =>
  [...m]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, n]) => `${k}: ${n}`)
    .join(', ');
const failed = (s: Sample) => [...s.failures.values()].reduce((a, b) => a + b, 0);

/** Mallory's answers in classes: 2xx, 429, other 4xx, 5xx, none. */
function classes(answers: [string, number][]): string {
  const c = { '2xx': 0, '429': 0, '4xx': 0, '5xx': 0, 'no answer': 0 };
  for (const [kind, n] of answers) {
    const status = Number(kind);
    if (!Number.isInteger(status)) c['no answer'] += n;
    else if (status < 300) c['2xx'] += n;
    else if (status === 429) c['429'] += n;
    else if (status < 500) c['4xx'] += n;
    else c['5xx'] += n;
  }
  return `${Object.entries(c)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ')} (${kinds(answers) || 'none'})`;
}

/** The service's largest resident set while it runs, sampled every 250 ms (Linux). */
function rssWatch(pid: number) {
  let max = 0;
  const sample = () => {
    try {
      const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
      max = Math.max(max, Number(kb ?? 0) / 1024);
    } catch {
      // The process is gone.
    }
  };
  sample();
  const timer = setInterval(sample, 250);
  return () => {
    clearInterval(timer);
    return max;
  };
}

/** Bob's first page every 100 ms for `durationMs`, each request on its own (an open loop). */
async function probeBob(durationMs: number): Promise<Sample> {
  const dispatcher = new Agent({ connections: 32 });
  const sample: Sample = { latencies: [], failures: new Map() };
  const probe = async () => {
    const started = performance.now();
    const kind = await call(
      'POST',
      '/api/activities',
      bob,
      { limit: 20 },
      {
        dispatcher,
        timeoutMs: VICTIM_TIMEOUT_MS,
      },
    ).then(
      ({ status }) => String(status),
      () => 'no answer',
    );
    sample.latencies.push(performance.now() - started);
    if (!kind.startsWith('2')) sample.failures.set(kind, (sample.failures.get(kind) ?? 0) + 1);
  };
  const begin = performance.now();
  const probes: Promise<void>[] = [];
  for (let k = 0; k * PROBE_INTERVAL_MS < durationMs; k++) {
    await sleep(begin + k * PROBE_INTERVAL_MS - performance.now());
    probes.push(probe());
  }
  await Promise.all(probes);
  await dispatcher.close();
  return sample;
}

/** Waits, on PostgreSQL, until no statement of the service runs; the seconds it took. */
async function untilIdle(): Promise<number> {
  if (!databaseUrl) return 0;
  const client = new pg.Client({ connectionString: databaseUrl.toString() });
  await client.connect();
  const begin = performance.now();
  try {
    while (performance.now() - begin < IDLE_WAIT_MS) {
      const { rows } = await client.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE datname = current_database() AND state = 'active' AND pid <> pg_backend_pid()`,
      );
      if (rows[0]!.n === 0) break;
      await sleep(250);
    }
  } finally {
    await client.end();
  }
  return (performance.now() - begin) / 1000;
}

interface Row {
  attack: string;
  victim: Sample;
  quiet: Sample;
}
const rows: Row[] = [];

/** The victim's figures under an attack, against quiet; kept for the summary. */
function report(attack: string, victim: Sample, quiet: Sample, total: number) {
  rows.push({ attack, victim, quiet });
  const { p50, p99 } = percentiles(victim);
  const ratio = p99 / percentiles(quiet).p99;
  console.log(
    `  victim     p50 ${ms(p50)}  p99 ${ms(p99)}  p99/quiet ${ratio.toFixed(2)}x (target <= 2x: ${met(ratio <= 2)})` +
      `  not 2xx: ${failed(victim)} of ${total}${victim.failures.size ? ` (${kinds(victim.failures)})` : ''}`,
  );
}

/** Before a phase: the service, started again if an attack stopped it. */
async function ensureService() {
  if (alive()) return;
  console.log(
    `  the service exited (${service.child.exitCode ?? service.child.signalCode}); started again for the next phase`,
  );
  service = await launch();
}

/** Settles after a phase: statements left running waited for, then a short pause. */
async function settle() {
  const waited = await untilIdle();
  if (waited > 0.5) {
    console.log(`  statements still ran ${waited.toFixed(1)} s after the attack stopped`);
  }
  await sleep(SETTLE_MS);
}

/** Runs `attack` from the load process while the victim's page is probed; prints the figures. */
async function againstBob(name: AttackName, what: string, attack: Attack, quiet: Sample) {
  await ensureService();
  console.log(`\n${name}: ${what}`);
  const started = reply('started');
  command({ type: 'start', base: base(), attack });
  await started;
  const rss = rssWatch(service.child.pid!);
  const victim = await probeBob(seconds * 1000);
  const stopped = reply('stopped');
  command({ type: 'stop' });
  const { answers, notes } = await stopped;
  const rssMax = rss();
  report(name, victim, quiet, victim.latencies.length);
  console.log(`  Mallory    ${classes(answers)}`);
  for (const note of notes) console.log(`             ${note}`);
  console.log(`  service    RSS at most ${rssMax.toFixed(0)} MB${alive() ? '' : '; it exited'}`);
}

// --- The run.

const counts = `activityCounts(from: "${FROM}", to: "${TO}", bucket: HOUR, groupBy: [ACCESSORY, RELEVANCE, ZONE]) { buckets { count } }`;
const ALIASED = `{ viewer { ${Array.from({ length: 30 }, (_, i) => `c${i}: ${counts}`).join(' ')} } }`;
const LIVE = `query ($from: DateTime!, $to: DateTime!) @live { viewer { activityCounts(from: $from, to: $to, bucket: HOUR, groupBy: [ACCESSORY, RELEVANCE, ZONE]) { buckets { count } } } }`;
const { live, webhook } = loadConfig({ DATABASE_URL: databaseUrl?.toString() ?? '' });

console.log(
  `${backend}, Node ${process.version}, ${os.cpus().length} cores; Mallory's ${perCamera * cameras} activities, ` +
    `phases of ${seconds} s, her process at nice ${values['load-nice']}${values['service-heap'] ? `, the service's heap ${values['service-heap']} MB` : ''}`,
);

const bobsAttacks = attacks.filter((a) => a !== 'receiver-retry-after');
if (bobsAttacks.length > 0) {
  await probeBob(1000); // warm-up
  const quiet = await probeBob(seconds * 1000);
  const { p50, p99 } = percentiles(quiet);
  console.log(
    `\nvictim: Bob's first timeline page (POST /api/activities, 20 items) every ${PROBE_INTERVAL_MS} ms` +
      `\n  quiet      p50 ${ms(p50)}  p99 ${ms(p99)}  not 2xx: ${failed(quiet)} of ${quiet.latencies.length}` +
      (quiet.failures.size ? ` (${kinds(quiet.failures)})` : ''),
  );

  for (const name of bobsAttacks) {
    if (name === 'aliased-counts') {
      await againstBob(
        name,
        `30 aliases of activityCounts (400 days by hour, by accessory, relevance and zone) in one GraphQL request, ${connections} connections back to back`,
        { name, token: mallory, query: ALIASED, connections },
        quiet,
      );
    } else if (name === 'rest-counts') {
      await againstBob(
        name,
        `POST /api/activities/counts over 400 days by hour, by accessory, relevance and zone, ${connections} connections back to back`,
        {
          name,
          token: mallory,
          body: { from: FROM, to: TO, bucket: 'HOUR', groupBy: ['ACCESSORY', 'RELEVANCE', 'ZONE'] },
          connections,
        },
        quiet,
      );
    } else if (name === 'replay') {
      // Her receiver takes every notification of her ingested activities: the delivery log fills.
      await ensureService();
      const from = new Date(Date.now() - 3600_000).toISOString();
      await register(mallory, `http://127.0.0.1:${receiverPort}/mallory`);
      const receivedBefore = await receivedCount();
      const filling = performance.now();
      await ingest(mallorySeed.accessoryIds, deliveries);
      let received = 0;
      while (received < deliveries && performance.now() - filling < 120_000 + deliveries * 10) {
        await sleep(1000);
        received = (await receivedCount()) - receivedBefore;
      }
      const log = await deliveryLog(mallorySeed.accountId);
      console.log(
        `\n(replay's set-up: ${deliveries} activities ingested and ${received} notifications received in ` +
          `${((performance.now() - filling) / 1000).toFixed(1)} s; her delivery log: ${kinds(log)})`,
      );
      await settle();
      const to = new Date(Date.now() + 86_400_000).toISOString();
      await againstBob(
        name,
        `POST .../notifications/replay of the whole range (${deliveries} deliveries, WEBHOOK_REPLAY_MAX ${webhook.replayMax}), then of its failed ones, by turns, ${connections} at once`,
        {
          name,
          token: mallory,
          bodies: [
            { from, to },
            { from, to, onlyFailed: true },
          ],
          connections,
        },
        quiet,
      );
      // What the replays queued is dropped with her registration.
      await ensureService();
      await unregister(mallory);
    } else {
      await againstBob(
        name,
        `@live grouped counts over WebSocket, distinct variables, up to ${live.maxConnectionsPerSubject} sockets of ${live.maxSubscriptionsPerConnection}, ${connections} opened at once; her cameras record an activity a second`,
        {
          name,
          token: mallory,
          query: LIVE,
          from: FROM,
          to: TO,
          connections: live.maxConnectionsPerSubject,
          perConnection: live.maxSubscriptionsPerConnection,
          openers: connections,
          cameras: { token: pipeline, accessoryIds: mallorySeed.accessoryIds, perSecond: 1 },
        },
        quiet,
      );
    }
    await settle();
  }
}

if (attacks.includes('receiver-retry-after')) await receiverRetryAfter();

console.log(`\nsummary (${backend}):`);
for (const { attack, victim, quiet } of rows) {
  const { p50, p99 } = percentiles(victim);
  const ratio = p99 / percentiles(quiet).p99;
  console.log(
    `  ${attack.padEnd(22)} p50 ${ms(p50)}  p99 ${ms(p99)}  ${`${ratio.toFixed(2)}x`.padStart(9)} of quiet (${met(ratio <= 2)})  not 2xx ${failed(victim)}${victim.failures.size ? ` (${kinds(victim.failures)})` : ''}`,
  );
}
console.log(loadAverage());

await setup.close();
load.disconnect();
await service.stop();
await fs.rm(dataDir, { recursive: true, force: true });

/** The delivery log of Mallory's receiver, paged through: how many deliveries of each status. */
async function deliveryLog(accountId: string): Promise<Map<string, number>> {
  const byStatus = new Map<string, number>();
  let after: string | null = null;
  for (;;) {
    const { data } = (await must('POST', '/graphql', mallory, {
      query: `query ($a: ID!, $after: String) { notificationDeliveries(accountId: $a, first: 100, after: $after) {
        edges { node { status } } pageInfo { hasNextPage endCursor } } }`,
      variables: { a: accountId, after },
    })) as {
      data: {
        notificationDeliveries: {
          edges: { node: { status: string } }[];
          pageInfo: { hasNextPage: boolean; endCursor: string | null };
        };
      };
    };
    const page = data.notificationDeliveries;
    for (const { node } of page.edges) {
      byStatus.set(node.status, (byStatus.get(node.status) ?? 0) + 1);
    }
    if (!page.pageInfo.hasNextPage) return byStatus;
    after = page.pageInfo.endCursor;
  }
}

/**
 * Alice's notifications, quiet and then while Mallory's registration on the same receiver host
 * answers 503 with Retry-After: 600 and has a backlog.
 */
async function receiverRetryAfter() {
  await ensureService();
  const arrivals = new Map<string, number>();
  let malloryAttempts = 0;
  const hooks = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.url === '/alice') {
        const at = performance.now();
        try {
          const { eventData } = JSON.parse(Buffer.concat(chunks).toString()) as {
            eventData?: { activityId?: string };
          };
          if (eventData?.activityId && !arrivals.has(eventData.activityId)) {
            arrivals.set(eventData.activityId, at);
          }
        } catch {
          // Not a notification: nothing to time.
        }
        res.writeHead(204).end();
      } else {
        malloryAttempts++;
        res.writeHead(503, { 'retry-after': '600' }).end();
      }
    });
  });
  await new Promise<void>((resolve) => hooks.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(hooks.address() as AddressInfo).port}`;
  await register(alice, `${origin}/alice`);

  /** An activity of Alice's each second for `seconds`, each timed to its notification. */
  const notifications = async (): Promise<Sample> => {
    const sample: Sample = { latencies: [], failures: new Map() };
    const sent: { at: number; activityId: string }[] = [];
    const one = async () => {
      const at = performance.now();
      const answer = await call(
        'POST',
        '/api/ingest',
        pipeline,
        [{ op: 'createActivity', accessoryId: aliceSeed.accessoryIds[0], input: {} }],
        { timeoutMs: VICTIM_TIMEOUT_MS },
      ).then(
        ({ status, text }) => ({ status, text }),
        () => ({ status: 0, text: '' }),
      );
      const result =
        answer.status === 200
          ? (JSON.parse(answer.text) as { results: { ok: boolean; activityId?: string }[] })
              .results[0]
          : undefined;
      if (result?.ok && result.activityId) sent.push({ at, activityId: result.activityId });
      else {
        const kind = answer.status === 0 ? 'no answer' : `ingest ${answer.status}`;
        sample.failures.set(kind, (sample.failures.get(kind) ?? 0) + 1);
      }
    };
    const begin = performance.now();
    const ones: Promise<void>[] = [];
    for (let k = 0; k < seconds; k++) {
      await sleep(begin + k * 1000 - performance.now());
      ones.push(one());
    }
    await Promise.all(ones);
    const waitFrom = performance.now();
    while (
      sent.some((s) => !arrivals.has(s.activityId)) &&
      performance.now() - waitFrom < GRACE_MS
    ) {
      await sleep(100);
    }
    for (const { at, activityId } of sent) {
      const arrived = arrivals.get(activityId);
      sample.latencies.push(arrived === undefined ? Infinity : arrived - at);
      if (arrived === undefined) {
        sample.failures.set('not arrived', (sample.failures.get('not arrived') ?? 0) + 1);
      }
    }
    return sample;
  };

  console.log(
    `\nvictim: Alice's webhook, an activity of hers each second, from the ingest request to its notification at ${origin}/alice`,
  );
  const quiet = await notifications();
  const q = percentiles(quiet);
  console.log(
    `  quiet      p50 ${ms(q.p50)}  p99 ${ms(q.p99)}  not delivered or refused: ${failed(quiet)} of ${seconds}` +
      (quiet.failures.size ? ` (${kinds(quiet.failures)})` : ''),
  );

  // Mallory on the same host, another path: 503 with Retry-After: 600, a backlog queued for it.
  await register(mallory, `${origin}/mallory`);
  await ingest(mallorySeed.accessoryIds, 500);
  const armed = performance.now();
  while (malloryAttempts === 0 && performance.now() - armed < 15_000) await sleep(100);
  await ensureService();
  console.log(
    `\nreceiver-retry-after: Mallory's path of the same origin answers 503 with Retry-After: 600; a backlog of 500 queued for it, her cameras add 10 a second`,
  );
  const started = reply('started');
  command({
    type: 'start',
    base: base(),
    attack: {
      name: 'receiver-retry-after',
      cameras: { token: pipeline, accessoryIds: mallorySeed.accessoryIds, perSecond: 10 },
    },
  });
  await started;
  const rss = rssWatch(service.child.pid!);
  const attacked = await notifications();
  const stopped = reply('stopped');
  command({ type: 'stop' });
  const { answers } = await stopped;
  const rssMax = rss();
  report('receiver-retry-after', attacked, quiet, seconds);
  console.log(
    `  Mallory    her receiver path was tried ${malloryAttempts} times (each answered 503, Retry-After: 600); her cameras' ingest requests: ${classes(answers)}`,
  );
  console.log(`  service    RSS at most ${rssMax.toFixed(0)} MB${alive() ? '' : '; it exited'}`);
  await ensureService();
  await Promise.all([unregister(mallory), unregister(alice)]);
  hooks.closeAllConnections();
  await new Promise((resolve) => hooks.close(resolve));
}
