// bench/abuse: can one OAuth client stall the service for the others? The service runs as its
// own process with its default limits; a polite client lists activities 20 times a second and
// its p50/p99 are taken alone, then, in the same run, while one client floods the REST list
// with as many requests as it can and another sends the costliest GraphQL operation the limits
// allow, back to back (both in a third process, bench/abuse-load.ts, so that their answers do
// not hold up the polite client's own event loop). The abusers' first seconds are measured
// apart (`--warmup`): they spend their buckets' bursts then, and their process compiles its
// code on the same two cores. Prints the figures alone, in those first seconds and after them,
// the ratio of the last to alone (target: p99 within 1.5x), when the slowest polite requests
// under abuse started, and the service's CPU time per request in each phase.
//
// `--floor` (with BENCH_DATABASE_URL) adds the rig's floor: a second instance of the service on
// the same database, and a last phase where the same abusers load that one while the polite
// client keeps to the first. What the polite client loses then is what sharing this machine's
// two cores and its database costs it (no instance can do better here); what it loses beyond
// that when the abusers share its instance is the instance's own part.
//
// The abusers' process runs at the lowest CPU priority (`--abusers-nice`, 19 by default). In
// production their CPU is on their own machines; here it shares the two cores, and at the
// service's priority it took them from the service and from the polite client alike (the polite
// p99 up to twice as high), while at nice 19 it still sends as much as the service lets it: the
// counts of the answers they get (served and refused) are the same either way. `--abusers-nice 0`
// gives the rig without it.
//
// `--workers N` runs the instances with N GraphQL worker threads (GRAPHQL_WORKERS), which execute
// the costly client's operations off the instance's event loop. Without it they run with the
// service's default: one thread on PostgreSQL, none on the embedded database.
//
//   npm run bench:abuse [-- --seconds 10 --warmup 2 --flood 16 --costly 4 --floor --workers 1
//     --abusers-nice 19]
//   BENCH_DATABASE_URL: run on that PostgreSQL server (its database clipgate_bench_abuse, made
//   afresh) instead of the embedded database.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { Agent, request } from 'undici';
import { signDevToken } from '../src/accounts/auth.ts';
import { loadConfig } from '../src/config.ts';
import type { AbuseCommand, AbuseReport } from './abuse-load.ts';
import { cpuMs, forkNiced, loadAverage, startServer } from './lib/load.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '2' },
    flood: { type: 'string', default: '16' },
    costly: { type: 'string', default: '4' },
    floor: { type: 'boolean', default: false },
    workers: { type: 'string' },
    'abusers-nice': { type: 'string', default: '19' },
  },
});
if (values.floor && !process.env.BENCH_DATABASE_URL) {
  console.error('--floor runs two instances on one database: set BENCH_DATABASE_URL');
  process.exit(2);
}
if (values.workers !== undefined && values.workers !== '0' && !process.env.BENCH_DATABASE_URL) {
  console.error('--workers (GRAPHQL_WORKERS) needs PostgreSQL: set BENCH_DATABASE_URL');
  process.exit(2);
}
const seconds = Number(values.seconds);
const warmupSeconds = Number(values.warmup);
const SECRET = 'clipgate-bench-secret-0123456789abcdef';
const POLITE_INTERVAL_MS = 50;

let databaseUrl: string | undefined;
if (process.env.BENCH_DATABASE_URL) {
  const admin = new pg.Client({ connectionString: process.env.BENCH_DATABASE_URL });
  await admin.connect();
  await admin.query('DROP DATABASE IF EXISTS clipgate_bench_abuse WITH (FORCE)');
  await admin.query('CREATE DATABASE clipgate_bench_abuse');
  await admin.end();
  const url = new URL(process.env.BENCH_DATABASE_URL);
  url.pathname = '/clipgate_bench_abuse';
  databaseUrl = url.toString();
}
const dataDirs: string[] = [];
async function instance() {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'clipgate-bench-abuse-'));
  dataDirs.push(dataDir);
  const started = await startServer('src/main.ts', {
    PORT: '0',
    DATA_DIR: dataDir,
    AUTH_DEV_SECRET: SECRET,
    LOG_LEVEL: 'info',
    DATABASE_URL: databaseUrl ?? '',
    ...(values.workers !== undefined && { GRAPHQL_WORKERS: values.workers }),
  });
  // A failed run must not leave the service running.
  process.on('exit', () => started.child.kill());
  return started;
}
const server = await instance();
const base = `http://127.0.0.1:${server.port}`;
const other = values.floor ? await instance() : undefined;
// Each client its own connections, as separate clients would have.
const agent = () => new Agent({ connections: 64 });
const token = (sub: string, clientId: string, scopes: string[]) =>
  signDevToken(SECRET, { sub, clientId, scopes: scopes.map((s) => `service:${s}`) });

/** A GraphQL answer: each field of `data` an object of strings here. */
interface Answer {
  data?: Record<string, Record<string, string>>;
  errors?: { message: string }[];
}

async function graphql(
  dispatcher: Agent,
  bearer: string,
  query: string,
  variables: Record<string, unknown> = {},
): Promise<{ status: number; body: Answer }> {
  const res = await request(`${base}/graphql`, {
    method: 'POST',
    dispatcher,
    headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  return { status: res.statusCode, body: (await res.body.json()) as Answer };
}

/**
 * The data of a setup operation that must succeed, sent again after its Retry-After while the
 * service sheds load (a loaded machine makes it lag).
 */
async function must(
  send: () => ReturnType<typeof graphql>,
): Promise<Record<string, Record<string, string>>> {
  for (;;) {
    const { status, body } = await send();
    if (status === 503) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      continue;
    }
    if (status !== 200 || body.errors || !body.data) {
      throw new Error(`GraphQL failed (${status}): ${JSON.stringify(body.errors)}`);
    }
    return body.data;
  }
}

// Three accounts with one accessory each: 100 activities for the costly client's full pages.
const ingest = await token('ingest', 'bench-ingest', ['ingest']);
const setup = agent();
async function seed(subject: string, activities: number): Promise<string> {
  const account = await must(() =>
    graphql(setup, ingest, 'mutation($s: String!) { upsertAccount(subject: $s) { accountId } }', {
      s: subject,
    }),
  );
  const accessory = await must(() =>
    graphql(
      setup,
      ingest,
      'mutation($a: ID!) { associateAccessory(accountId: $a, deviceId: "cam", name: "Camera") { id } }',
      { a: account.upsertAccount!.accountId },
    ),
  );
  const accessoryId = accessory.associateAccessory!.id!;
  for (let i = 0; i < activities; i++) {
    await must(() =>
      graphql(
        setup,
        ingest,
        'mutation($a: ID!, $r: Int!) { createActivity(accessoryId: $a, input: { relevanceLevel: $r }) { activityId } }',
        { a: accessoryId, r: i % 4 },
      ),
    );
  }
  return accessoryId;
}
const [politeAccessory, floodAccessory] = [await seed('polite', 20), await seed('flood', 20)];
await seed('costly', 100);
const polite = await token('polite', 'polite-client', ['activities_basic']);
const flood = await token('flood', 'flood-client', ['activities_basic']);
const costly = await token('costly', 'costly-client', ['activities_basic']);

// The costliest operation the defaults allow: three full pages of 100 activities with every
// scalar field (about 1,600 each against GRAPHQL_MAX_COST 5000).
const page = (alias: string, filter: string) => `
  ${alias}: accessories(first: 1) { edges { node { activities(first: 100, filter: "${filter}") {
    edges { cursor node { id accessoryId activityId startTime endTime inProgress relevanceLevel
      playbackDuration motionZones objectLocations } }
    pageInfo { hasNextPage endCursor } } } } }`;
const COSTLY = `{ ${page('a', 'relevanceLevel >= 0')} ${page('b', 'relevanceLevel >= 1')} ${page('c', 'relevanceLevel < 3')} }`;
// The threads the instances run, as the service reads its settings.
const { threads } = loadConfig({
  DATABASE_URL: databaseUrl ?? '',
  ...(values.workers !== undefined && { GRAPHQL_WORKERS: values.workers }),
}).graphqlWorkers;
console.log(
  `${databaseUrl ? 'PostgreSQL' : 'embedded database'}, Node ${process.version}, GRAPHQL_WORKERS ${threads}${values.workers === undefined ? ' (the default)' : ''}; ` +
    `the polite client 20 requests a second, the abusers ${values.flood} flooding and ${values.costly} costly connections ` +
    `at nice ${values['abusers-nice']}; phases of ${seconds} s, the abusers' first ${warmupSeconds} s apart`,
);
await must(() => graphql(setup, costly, COSTLY));

interface Latencies {
  p50: number;
  p99: number;
  requests: number;
  failed: number;
  /** The slowest requests: when each started (ms into the phase) and how long it took. */
  slowest: { at: number; ms: number }[];
}

/** The polite client: one request every 50 ms, latencies of each. */
async function politeClient(durationMs: number): Promise<Latencies> {
  const dispatcher = agent();
  const latencies: { at: number; ms: number }[] = [];
  let failed = 0;
  const begin = performance.now();
  const end = begin + durationMs;
  while (performance.now() < end) {
    const started = performance.now();
    const res = await request(`${base}/api/accessories/${politeAccessory}/activities`, {
      method: 'POST',
      dispatcher,
      headers: { authorization: `Bearer ${polite}`, 'content-type': 'application/json' },
      body: JSON.stringify({ limit: 20 }),
    });
    await res.body.dump();
    latencies.push({ at: started - begin, ms: performance.now() - started });
    if (res.statusCode !== 200) failed++;
    const wait = POLITE_INTERVAL_MS - (performance.now() - started);
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  }
  await dispatcher.close();
  latencies.sort((a, b) => a.ms - b.ms);
  const at = (q: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!.ms;
  const slowest = latencies.slice(-8).reverse();
  return { p50: at(0.5), p99: at(0.99), requests: latencies.length, failed, slowest };
}

const fmt = (name: string, r: Latencies) =>
  `${name.padEnd(26)} p50 ${r.p50.toFixed(2).padStart(7)} ms  p99 ${r.p99.toFixed(2).padStart(7)} ms  (${r.requests} requests, ${r.failed} not 200)`;

/** The polite client for `phaseSeconds`, with the service's CPU time per request meanwhile. */
async function measured(phaseSeconds = seconds): Promise<Latencies & { cpuMsPerRequest: number }> {
  const before = cpuMs(server.child.pid!);
  const result = await politeClient(phaseSeconds * 1000);
  return { ...result, cpuMsPerRequest: (cpuMs(server.child.pid!) - before) / result.requests };
}

await politeClient(1000); // warm-up
const alone = await measured();
console.log(fmt('polite client alone', alone));

/**
 * The polite client measured while the abusers (a process of their own) load the instance at
 * `target`: over their first seconds, then over `seconds`; with the answers they got.
 */
async function whileAbused(target: string) {
  const abusers = forkNiced(
    path.join(path.dirname(fileURLToPath(import.meta.url)), 'abuse-load.ts'),
    values['abusers-nice'],
  );
  const reply = <K extends AbuseReport['type']>(type: K) =>
    new Promise<Extract<AbuseReport, { type: K }>>((resolve, reject) => {
      abusers.on('message', (m: AbuseReport) => {
        if (m.type === type) resolve(m as Extract<AbuseReport, { type: K }>);
      });
      abusers.once('exit', (code) => reject(new Error(`the abusers exited (${code})`)));
    });
  const started = reply('started');
  abusers.send({
    type: 'start',
    base: target,
    flood: { token: flood, accessoryId: floodAccessory, workers: Number(values.flood) },
    costly: { token: costly, query: COSTLY, workers: Number(values.costly) },
  } satisfies AbuseCommand);
  await started;
  const first = warmupSeconds > 0 ? await measured(warmupSeconds) : undefined;
  const abused = await measured();
  const stopped = reply('stopped');
  abusers.send({ type: 'stop' } satisfies AbuseCommand);
  return { first, abused, ...(await stopped) };
}

const { first, abused, flood: floodStatuses, costly: costlyStatuses } = await whileAbused(base);
if (first) console.log(fmt(`under abuse, first ${warmupSeconds} s`, first));
console.log(fmt(first ? 'under abuse, after them' : 'polite client under abuse', abused));
// Whether the tail is a moment of the phase or spread over it.
console.log(
  `  its slowest (started at: took): ${abused.slowest.map((r) => `${(r.at / 1000).toFixed(1)} s: ${r.ms.toFixed(0)} ms`).join(', ')}`,
);
const counts = (m: [number, number][]) => m.map(([status, n]) => `${status}: ${n}`).join(', ');
console.log(`  flooding client answers:  ${counts(floodStatuses)}`);
console.log(`  costly client answers:    ${counts(costlyStatuses)}`);
console.log(
  `service CPU per polite request: ${alone.cpuMsPerRequest.toFixed(2)} ms alone; ` +
    `per polite request under abuse (the abusers' included): ${abused.cpuMsPerRequest.toFixed(2)} ms`,
);
console.log(
  `ratio under abuse / alone: p50 ${(abused.p50 / alone.p50).toFixed(2)}x  p99 ${(abused.p99 / alone.p99).toFixed(2)}x (target p99 <= 1.5x)` +
    (first ? `; in the first ${warmupSeconds} s: p99 ${(first.p99 / alone.p99).toFixed(2)}x` : ''),
);
if (other) {
  const floor = await whileAbused(`http://127.0.0.1:${other.port}`);
  if (floor.first) {
    console.log(fmt(`abusing the other instance, first ${warmupSeconds} s`, floor.first));
  }
  console.log(fmt(floor.first ? 'abusing the other, after' : 'abusing the other', floor.abused));
  console.log(
    `floor (the abusers on another instance of this machine and database) / alone: p50 ${(floor.abused.p50 / alone.p50).toFixed(2)}x  p99 ${(floor.abused.p99 / alone.p99).toFixed(2)}x; ` +
      `under abuse / floor: p99 ${(abused.p99 / floor.abused.p99).toFixed(2)}x`,
  );
}
console.log(loadAverage());

await setup.close();
await Promise.all([server.stop(), other?.stop()]);
for (const dataDir of dataDirs) await fs.rm(dataDir, { recursive: true, force: true });
