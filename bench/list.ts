// bench/list: listing throughput and latency on 1,000,000 activities over 100 accessories in
// the local PostgreSQL. Prints req/s and p50/p99 for a 20-item page (first page and 10,000 deep)
// over REST and GraphQL, per accessory and across the account (the timeline), the counts of 30
// days by hour, beside the same keyset query straight through pg (the limit: no HTTP, no
// GraphQL; as text, and prepared as the service runs it), served by a bare Node HTTP handler,
// and HTTP alone, with the ratios, all measured in this one run. Beside each rate, the serving
// process's CPU time per request, PostgreSQL's (a local server's processes) and the load's (this
// process); and in rounds of short runs (--cpu-rounds), beside the bare pg + HTTP server's page
// (its query as text, and prepared as the service's is), the service's CPU per page of REST,
// GraphQL and GraphQL by hash and each page's p99 / p50: the medians of the rounds' figures are
// what a loaded machine moves least.
//
//   npm run bench:list [-- --seconds 5 --concurrency 16 --warmup 8 --cpu-rounds 7]
//   BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test) names the server; the
//   data set is loaded afresh into its database, clipgate_bench_list unless --database names
//   another one (about 10 s).
import { createHash } from 'node:crypto';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { signDevToken } from '../src/accounts/auth.ts';
import { rectangle } from '../src/zones/geometry.ts';
import {
  BENCH_SECRET,
  freshDatabase,
  listingEnv,
  loadActivities,
  readerToken,
} from './lib/dataset.ts';
import {
  cpuMs,
  fmt,
  loadOnThread,
  ownCpuMs,
  postgresCpuMs,
  postgresCpuSince,
  startServer,
  type LoadResult,
} from './lib/load.ts';
import { http as httpRequests, type Sent } from './lib/requests.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '5' },
    concurrency: { type: 'string', default: '16' },
    accessories: { type: 'string', default: '100' },
    activities: { type: 'string', default: '10000' },
    database: { type: 'string', default: 'clipgate_bench_list' },
    warmup: { type: 'string', default: '8' },
    'cpu-rounds': { type: 'string', default: '7' },
  },
});
const seconds = Number(values.seconds);
const concurrency = Number(values.concurrency);
const ACCESSORIES = Number(values.accessories);
const PER_ACCESSORY = Number(values.activities);
const DEPTH = Math.min(10_000, PER_ACCESSORY) - 20;

const databaseUrl = await freshDatabase(values.database);
const seedStart = Date.now();
const { db, accessoryIds } = await loadActivities(databaseUrl, ACCESSORIES, PER_ACCESSORY);
const total = (await db.pool.query<{ n: string }>('SELECT count(*) AS n FROM activities')).rows[0]!
  .n;
console.log(
  `Node ${process.version} (the service's and the baselines'), ${os.loadavg()[0]!.toFixed(2)} load average`,
);
console.log(
  `data set: ${total} activities over ${accessoryIds.length} accessories (ready in ${((Date.now() - seedStart) / 1000).toFixed(1)} s)`,
);

// The id 10,000 activities deep of each accessory: a page starting there is a deep page.
const deepStart = new Map<string, string>();
for (const id of accessoryIds) {
  const { rows } = await db.pool.query<{ activity_id: string }>(
    'SELECT activity_id FROM activities WHERE accessory_id = $1 ORDER BY activity_id DESC OFFSET $2 LIMIT 1',
    [id, DEPTH],
  );
  deepStart.set(id, rows[0]!.activity_id);
}
// The account timeline's position 10,000 deep (every accessory has an activity each minute).
const timelineDeep = (
  await db.pool.query<{ activity_id: string; accessory_id: string }>(
    `SELECT activity_id, accessory_id FROM activities
      ORDER BY activity_id DESC, accessory_id DESC OFFSET $1 LIMIT 1`,
    [DEPTH],
  )
).rows[0]!;
// Counts: the 30 days up to now, by hour (the whole data set, a week of it, lies inside).
const countsBody = {
  from: new Date(Date.now() - 30 * 86_400_000).toISOString(),
  to: new Date().toISOString(),
  bucket: 'HOUR',
  timeZone: 'Europe/Berlin',
};
const duration = seconds * 1000;
const WARM_UP_MS = Number(values.warmup) * 1000;
const results: Record<string, LoadResult> = {};
/** The serving process's CPU time per request of each figure, in ms (user and system). */
const cpuPerRequest: Record<string, number> = {};
/** PostgreSQL's and the load's (this process's) CPU time per request of each figure, in ms. */
const otherCpu: Record<string, { postgres: number; load: number }> = {};
const micros = (ms: number) => `${(ms * 1000).toFixed(0).padStart(5)} µs`;
const report = (name: string, r: Measured, cpu?: number) => {
  results[name] = r;
  otherCpu[name] = r;
  if (cpu !== undefined) cpuPerRequest[name] = cpu;
  const server = cpu === undefined ? '' : `  CPU ${micros(cpu)}/req`;
  console.log(
    `${name.padEnd(28)} ${fmt(r)}${server}  (PostgreSQL ${micros(r.postgres)}, load ${micros(r.load)})`,
  );
};

const token = await readerToken();
const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };

/** The load's HTTP requests to `port`: request i is the (i mod n)th of `sent`. */
const httpTo = (port: number, sent: Sent[]) => ({
  origin: `http://127.0.0.1:${port}`,
  connections: concurrency,
  sent,
});

/** Measures one figure of the server `pid` on `port`: its rate, latency and CPU per request. */
async function drive({ port, pid }: { port: number; pid: number }, name: string, sent: Sent[]) {
  const run = await measured(
    (measuring) =>
      loadOnThread('http', httpTo(port, sent), concurrency, duration, undefined, measuring),
    pid,
  );
  report(name, run, run.cpu);
}

/** A load run and the CPU time each process spent over it per request, in ms. */
interface Measured extends LoadResult {
  /** PostgreSQL's processes on this machine (0 for a remote server). */
  postgres: number;
  /** This process: the load's clients, and for the pg figures the query's client too. */
  load: number;
}

/**
 * A load run, with the CPU time PostgreSQL and this process spent over its measured part per
 * request: `run` calls the function it is given as that part begins (load's `measuring`).
 */
async function measured(
  run: (measuring: () => void) => Promise<LoadResult>,
  pid?: number,
): Promise<Measured & { cpu: number }> {
  let before = { postgres: new Map<number, number>(), load: 0, server: 0 };
  const result = await run(() => {
    before = { postgres: postgresCpuMs(), load: ownCpuMs(), server: pid ? cpuMs(pid) : 0 };
  });
  return {
    ...result,
    postgres: postgresCpuSince(before.postgres) / result.requests,
    load: (ownCpuMs() - before.load) / result.requests,
    cpu: pid ? (cpuMs(pid) - before.server) / result.requests : 0,
  };
}

/**
 * Runs every kind of request a server is measured with, round robin, before its first figure:
 * its code is compiled and optimized (V8, graphql-jit) before any figure is taken, so the first
 * figure of a server is not slower than its later ones for that reason alone. Hence 8 s by
 * default: on Node 26 V8 compiled some 70 of the service's hot functions again, optimized
 * further, 6-7 s into a load, and the figure measured across that was the slowest of the run.
 */
async function warm(port: number, kinds: Sent[][]) {
  const roundRobin = kinds[0]!.flatMap((_, i) => kinds.map((sent) => sent[i]!));
  await loadOnThread('http', httpTo(port, roundRobin), concurrency, WARM_UP_MS, 0);
}

/** A JSON POST of `body` to `path` for each accessory: request i is for the (i mod n)th of n. */
const posts = (path: (accessory: string) => string, body: (accessory: string) => unknown) =>
  accessoryIds.map((a): Sent => ({
    method: 'POST',
    path: path(a),
    headers: auth,
    body: JSON.stringify(body(a)),
  }));

const PAGE = `query Page($id: ID!, $after: String) { accessory(id: $id) { activities(first: 20, after: $after) {
  edges { cursor node { activityId accessoryId startTime endTime playbackDuration relevanceLevel inProgress } }
  pageInfo { hasNextPage endCursor } nextStartActivityId } } }`;

const PAGE_BY_HASH = {
  persistedQuery: { version: 1, sha256Hash: createHash('sha256').update(PAGE).digest('hex') },
};

console.log(`\n${concurrency} concurrent clients, ${seconds} s per figure\n`);
const service = await startServer('src/main.ts', listingEnv(databaseUrl));
const served = { port: service.port, pid: service.child.pid! };
// Registers the page's hash (APQ): the text with its hash, once, checked as the load checks.
{
  const [registration] = posts(
    () => '/graphql',
    (a) => ({ query: PAGE, variables: { id: a }, extensions: PAGE_BY_HASH }),
  );
  const once = await httpRequests({ ...httpTo(service.port, [registration!]), connections: 1 });
  await once.request(0);
  await once.close();
}
// The first pages the rounds below measure, and the bare server's.
const REST = 'REST first page';
const TEXT = 'GraphQL first page';
const BY_HASH = 'GraphQL first page, by hash';
const BARE = 'bare pg + HTTP first page';
const BARE_PREPARED = 'bare pg + HTTP first page, prepared';
const listPath = (a: string) => `/api/accessories/${a}/activities`;
const pages: Record<string, Sent[]> = {
  [REST]: posts(listPath, () => ({ limit: 20 })),
  'REST page 10,000 deep': posts(listPath, (a) => ({
    limit: 20,
    startActivityId: deepStart.get(a),
    operator: '<',
  })),
  [TEXT]: posts(
    () => '/graphql',
    (a) => ({ query: PAGE, variables: { id: a } }),
  ),
  // Apollo's persisted queries: the hash alone, once the text was sent with it (above).
  [BY_HASH]: posts(
    () => '/graphql',
    (a) => ({ variables: { id: a }, extensions: PAGE_BY_HASH }),
  ),
  'GraphQL page 10,000 deep': posts(
    () => '/graphql',
    (a) => ({ query: PAGE, variables: { id: a, after: deepStart.get(a) } }),
  ),
  'REST timeline first page': posts(
    () => '/api/activities',
    () => ({ limit: 20 }),
  ),
  'REST timeline 10,000 deep': posts(
    () => '/api/activities',
    () => ({
      limit: 20,
      startActivityId: timelineDeep.activity_id,
      startAccessoryId: timelineDeep.accessory_id,
      operator: '<',
    }),
  ),
  'REST counts 30 days by hour': posts(
    () => '/api/activities/counts',
    () => countsBody,
  ),
};
await warm(service.port, Object.values(pages));
for (const [name, sent] of Object.entries(pages)) await drive(served, name, sent);
// The bare pg + HTTP server, started now to run in the rounds below beside the service; its own
// figures come once the service has stopped.
const bare = await startServer('bench/bare-list-server.ts', {
  DATABASE_URL: databaseUrl.toString(),
});
const gets = (path: (accessory: string) => string) =>
  accessoryIds.map((a): Sent => ({ method: 'GET', path: path(a) }));
const barePages: Record<string, Sent[]> = {
  [BARE]: gets((a) => `/?a=${a}`),
  [BARE_PREPARED]: gets((a) => `/prepared?a=${a}`),
  'bare pg + HTTP deep page': gets((a) => `/?a=${a}&start=${deepStart.get(a)}`),
  'bare HTTP alone, a fixed page': gets((a) => `/fixed?a=${a}`),
};
await warm(bare.port, Object.values(barePages));
// The CPU per page and the p99 / p50 of the service's REST, GraphQL and by-hash first pages and
// of the bare server's page, as text and prepared: CPU time of the serving process over a run /
// requests answered, in rounds of short runs (one of each kind), so that the machine's noise falls
// on all five alike; each figure is the median of the rounds' figures. Every other round runs the
// kinds in the reverse order: a machine slowing down (or speeding up) over a round falls on the
// first kind as often as on the last. Each run has half a second's warm-up: its load's thread is
// new, its clients' code not yet compiled.
type Kind = typeof REST | typeof TEXT | typeof BY_HASH | typeof BARE | typeof BARE_PREPARED;
const kinds: Record<Kind, { port: number; pid: number; sent: Sent[] }> = {
  [REST]: { ...served, sent: pages[REST]! },
  [TEXT]: { ...served, sent: pages[TEXT]! },
  [BY_HASH]: { ...served, sent: pages[BY_HASH]! },
  [BARE]: { port: bare.port, pid: bare.child.pid!, sent: barePages[BARE]! },
  [BARE_PREPARED]: { port: bare.port, pid: bare.child.pid!, sent: barePages[BARE_PREPARED]! },
};
const rounds: Record<Kind, { cpu: number; spread: number }>[] = [];
for (let round = 0; round < Number(values['cpu-rounds']); round++) {
  const perPage = {} as Record<Kind, { cpu: number; spread: number }>;
  const order = Object.keys(kinds) as Kind[];
  for (const name of round % 2 === 0 ? order : order.reverse()) {
    const { port, pid, sent } = kinds[name];
    const run = await measured(
      (measuring) =>
        loadOnThread('http', httpTo(port, sent), concurrency, duration / 2, 500, measuring),
      pid,
    );
    perPage[name] = { cpu: run.cpu, spread: run.p99 / run.p50 };
  }
  rounds.push(perPage);
  const each = (show: (kind: Kind) => string) =>
    `REST ${show(REST)}, GraphQL ${show(TEXT)}, by hash ${show(BY_HASH)}, bare ${show(BARE)}, bare prepared ${show(BARE_PREPARED)}`;
  console.log(
    `round ${round + 1}  CPU per page ${each((k) => `${(perPage[k].cpu * 1000).toFixed(0)} µs`)}; p99 / p50 ${each((k) => perPage[k].spread.toFixed(2))}`,
  );
}
const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const cpuRatio = (a: Kind, b: Kind) => median(rounds.map((r) => r[a].cpu / r[b].cpu)).toFixed(2);
const roundsSpread = (kind: Kind) => median(rounds.map((r) => r[kind].spread)).toFixed(2);
// Zones: z1 over the left quarter of the frame, saved now, so that every activity of
// the data set is older than lastModified and answered from its objectLocations (about 4 in 10
// hold a cell of z1): the costlier side of the zones-and-time rule.
{
  const zonesToken = await signDevToken(BENCH_SECRET, {
    sub: 'bench',
    clientId: 'bench',
    scopes: ['service:zones'],
    ttlSeconds: 3600,
  });
  const zones = [
    {
      id: 'z1',
      name: 'Left quarter',
      color: '#ff8800',
      vertices: rectangle(0, 0, 0.25, 1),
    },
  ];
  const http = new Pool(`http://127.0.0.1:${service.port}`, { connections: 4 });
  for (const id of accessoryIds) {
    const res = await http.request({
      method: 'PUT',
      path: `/api/accessories/${id}/zones`,
      headers: { ...auth, authorization: `Bearer ${zonesToken}` },
      body: JSON.stringify({ zones }),
    });
    const text = await res.body.text();
    if (res.statusCode !== 200) throw new Error(`saving zones: ${res.statusCode} ${text}`);
  }
  await http.close();
}
// The unfiltered first page again, measured next to the filtered one (same warm-up).
await drive(served, 'REST first page, again', pages[REST]!);
await drive(
  served,
  'REST zone-filtered page',
  posts(listPath, () => ({ limit: 20, filter: 'contains(motionZones, "z1")' })),
);
await service.stop();

for (const [name, sent] of Object.entries(barePages)) {
  await drive({ port: bare.port, pid: bare.child.pid! }, name, sent);
}
await bare.stop();

// The limit, twice: the keyset query as text (planned at every run, as the issue that set the
// targets measured it), and the service's own statement as the listing pool's sessions run it
// (prepared, generic plans), straight through pg: no HTTP, no GraphQL, no serializing.
const KEYSET = `SELECT activity_id, start_time, end_time, relevance_level FROM activities
  WHERE accessory_id = $1 AND activity_id < $2 ORDER BY activity_id DESC LIMIT 21`;
/** A figure of the load alone (no server of its own): its rate, latency and others' CPU. */
const alone = async (name: string, run: (measuring: () => void) => Promise<LoadResult>) =>
  report(name, await measured(run));
const url = databaseUrl.toString();
await alone('pg keyset query, first', (measuring) =>
  loadOnThread(
    'statement',
    {
      url,
      connections: concurrency,
      sql: KEYSET,
      params: accessoryIds.map((a) => [a, '99999999T999999Z']),
    },
    concurrency,
    duration,
    undefined,
    measuring,
  ),
);
await alone('pg keyset query, deep', (measuring) =>
  loadOnThread(
    'statement',
    {
      url,
      connections: concurrency,
      sql: KEYSET,
      params: accessoryIds.map((a) => [a, deepStart.get(a)]),
    },
    concurrency,
    duration,
    undefined,
    measuring,
  ),
);
await alone('pg keyset statement, prepared, first', (measuring) =>
  loadOnThread(
    'keysetPages',
    { url, connections: concurrency, pages: accessoryIds.map((accessoryId) => ({ accessoryId })) },
    concurrency,
    duration,
    undefined,
    measuring,
  ),
);
await alone('pg keyset statement, prepared, deep', (measuring) =>
  loadOnThread(
    'keysetPages',
    {
      url,
      connections: concurrency,
      pages: accessoryIds.map((accessoryId) => ({
        accessoryId,
        start: deepStart.get(accessoryId),
      })),
    },
    concurrency,
    duration,
    undefined,
    measuring,
  ),
);
await db.close();

const ratio = (a: string, b: string, f: (r: LoadResult) => number) =>
  (f(results[a]!) / f(results[b]!)).toFixed(2);
/** What a server doing only HTTP and the prepared statement, serially, could reach: 1/(1/h + 1/q). */
const ceiling = () => {
  const h = results['bare HTTP alone, a fixed page']!.rps;
  const q = results['pg keyset statement, prepared, first']!.rps;
  return (h / (h + q)).toFixed(2);
};
/**
 * The most pages a second one service process could answer at the CPU it spent per page (its
 * event loop runs on one core), as a share of the keyset query alone.
 */
const loopCeiling = (page: string) =>
  (1000 / cpuPerRequest[page]! / results['pg keyset query, first']!.rps).toFixed(2);
const spread = (a: string) => (results[a]!.p99 / results[a]!.p50).toFixed(2);
console.log(`
ratios (target in brackets); the targets were set against the keyset query as text through pg
(planned at every run, no HTTP); the bare pg + HTTP server is the older baseline
  REST / pg keyset query throughput         ${ratio(REST, 'pg keyset query, first', (r) => r.rps)}  [>= 0.9]
  GraphQL / pg keyset query throughput      ${ratio(TEXT, 'pg keyset query, first', (r) => r.rps)}  [>= 0.8]
  REST deep / pg keyset query, deep         ${ratio('REST page 10,000 deep', 'pg keyset query, deep', (r) => r.rps)}
  GraphQL deep / pg keyset query, deep      ${ratio('GraphQL page 10,000 deep', 'pg keyset query, deep', (r) => r.rps)}
  REST / bare pg+HTTP throughput            ${ratio(REST, BARE, (r) => r.rps)}  [>= 0.9]
  GraphQL / bare pg+HTTP throughput         ${ratio(TEXT, BARE, (r) => r.rps)}  [>= 0.7]
  bare pg+HTTP / pg keyset query throughput ${ratio(BARE, 'pg keyset query, first', (r) => r.rps)}
  against the prepared statement (the service's own, the stronger limit):
  REST / prepared statement throughput      ${ratio(REST, 'pg keyset statement, prepared, first', (r) => r.rps)}
  GraphQL / prepared statement throughput   ${ratio(TEXT, 'pg keyset statement, prepared, first', (r) => r.rps)}
  HTTP alone + the statement, one after the other on these cores: ${ceiling()} of the statement alone
  one event loop at its CPU per page, REST / keyset query: ${loopCeiling(REST)}; GraphQL: ${loopCeiling(TEXT)}
  REST first page p99 / p50 (one run)       ${spread(REST)}  [bare pg+HTTP ${spread(BARE)}]
  GraphQL first page p99 / p50 (one run)    ${spread(TEXT)}
  REST deep / first page p50 latency        ${ratio('REST page 10,000 deep', REST, (r) => r.p50)}  [<= 1.1]
  GraphQL deep / first page p50 latency     ${ratio('GraphQL page 10,000 deep', TEXT, (r) => r.p50)}  [<= 1.1]
  REST zone-filtered / unfiltered p50       ${ratio('REST zone-filtered page', 'REST first page, again', (r) => r.p50)}  [<= 1.2]
  REST zone-filtered / unfiltered req/s     ${ratio('REST zone-filtered page', 'REST first page, again', (r) => r.rps)}
  timeline / per-accessory first page p50   ${ratio('REST timeline first page', REST, (r) => r.p50)}  [<= 1.3]
  timeline deep / first page p50            ${ratio('REST timeline 10,000 deep', 'REST timeline first page', (r) => r.p50)}  [<= 1.1]
  counts 30 days by hour p50 (ms)           ${results['REST counts 30 days by hour']!.p50.toFixed(1)}  [16 clients; the < 20 target is one at a time: bench:scale]
  the first pages in ${rounds.length} rounds of REST, GraphQL, by hash and the bare server, text and prepared (medians):
  GraphQL / REST CPU per page               ${cpuRatio(TEXT, REST)}  [<= 1.15]
  GraphQL by hash / text CPU per page       ${cpuRatio(BY_HASH, TEXT)}  [no target: a text sent again is not parsed or validated again]
  GraphQL by hash / REST CPU per page       ${cpuRatio(BY_HASH, REST)}
  REST / bare pg + HTTP CPU per page        ${cpuRatio(REST, BARE)}
  GraphQL / bare pg + HTTP CPU per page     ${cpuRatio(TEXT, BARE)}
  REST / bare, prepared, CPU per page       ${cpuRatio(REST, BARE_PREPARED)}
  GraphQL / bare, prepared, CPU per page    ${cpuRatio(TEXT, BARE_PREPARED)}
  REST first page p99 / p50                 ${roundsSpread(REST)}  [<= 2.2; bare pg+HTTP ${roundsSpread(BARE)}, prepared ${roundsSpread(BARE_PREPARED)}]
  GraphQL first page p99 / p50              ${roundsSpread(TEXT)}  [<= 2.2]
  GraphQL by hash p99 / p50                 ${roundsSpread(BY_HASH)}
  GraphQL by hash / text throughput         ${ratio(BY_HASH, TEXT, (r) => r.rps)}`);
