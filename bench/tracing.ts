// bench/tracing: what tracing costs the server. The same service (src/main.ts, each run its own
// process) serves a GraphQL listing page with tracing off and with tracing on (every request
// traced: HTTP, GraphQL phases and SQL spans, exported over OTLP/HTTP to a loopback collector in
// this process that reads and discards them), in alternating order (off, on, off, on). Prints
// req/s, p50/p99 and the server's CPU time per request for each run, and the on/off ratios.
//
//   npm run bench:tracing [-- --seconds 5 --concurrency 16]
//   BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test) names the server; the
//   data set (20 accessories x 1,000 activities) is loaded afresh into clipgate_bench_tracing.
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { freshDatabase, listingEnv, loadActivities, readerToken } from './lib/dataset.ts';
import { cpuMs, fmt, load, startServer, type LoadResult } from './lib/load.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '5' },
    concurrency: { type: 'string', default: '16' },
  },
});
const seconds = Number(values.seconds);
const concurrency = Number(values.concurrency);
const ACCESSORIES = 20;
const PER_ACCESSORY = 1000;

const databaseUrl = await freshDatabase('clipgate_bench_tracing');
const { db, accessoryIds } = await loadActivities(databaseUrl, ACCESSORIES, PER_ACCESSORY);
await db.close();
console.log(
  `data set: ${ACCESSORIES * PER_ACCESSORY} activities over ${ACCESSORIES} accessories, external PostgreSQL, Node ${process.version}`,
);
console.log(`${concurrency} concurrent clients, ${seconds} s per figure (after 3 s of warm-up)\n`);

// The collector: reads each export whole, answers it, and counts the bytes it was sent.
let exportedBytes = 0;
const collector = http.createServer((req, res) => {
  req.on('data', (chunk: Buffer) => (exportedBytes += chunk.length));
  req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
});
// A server stopped between runs resets its idle connections to the collector.
collector.on('connection', (socket: Socket) => socket.on('error', () => undefined));
await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
const collectorUrl = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;

const token = await readerToken();
const PAGE = `query Page($id: ID!) { accessory(id: $id) { activities(first: 20) {
  edges { cursor node { activityId startTime endTime relevanceLevel inProgress } }
  pageInfo { hasNextPage endCursor } } } }`;

interface Run extends LoadResult {
  cpuPerRequestMs: number;
  errors: number;
}

async function run(name: string, tracing: boolean): Promise<Run> {
  const service = await startServer('src/main.ts', {
    ...listingEnv(databaseUrl),
    OTEL_EXPORTER_OTLP_ENDPOINT: tracing ? collectorUrl : '',
  });
  const client = new Pool(`http://127.0.0.1:${service.port}`, { connections: concurrency });
  let errors = 0;
  const request = async (i: number) => {
    const res = await client.request({
      method: 'POST',
      path: '/graphql',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: PAGE, variables: { id: accessoryIds[i % ACCESSORIES] } }),
    });
    const body = (await res.body.json()) as {
      errors?: unknown;
      data?: { accessory?: { activities: { edges: unknown[] } } };
    };
    if (
      res.statusCode !== 200 ||
      body.errors ||
      body.data?.accessory?.activities.edges.length !== 20
    )
      errors++;
  };
  await load(concurrency, 3000, request, 0); // warm-up
  const before = cpuMs(service.child.pid!);
  const result = await load(concurrency, seconds * 1000, request, 0);
  const cpuPerRequestMs = (cpuMs(service.child.pid!) - before) / result.requests;
  await client.close();
  await service.stop();
  console.log(
    `${name.padEnd(16)} ${fmt(result)}  server CPU ${cpuPerRequestMs.toFixed(3)} ms/req  errors ${errors}`,
  );
  return { ...result, cpuPerRequestMs, errors };
}

const runs: Record<string, Run> = {};
for (const round of [1, 2]) {
  runs[`off ${round}`] = await run(`tracing off (${round})`, false);
  runs[`on ${round}`] = await run(`tracing on (${round})`, true);
}
collector.close();
console.log(`\ncollector received ${(exportedBytes / 1024 / 1024).toFixed(1)} MiB of OTLP JSON`);

const ratio = (on: Run, off: Run, f: (r: Run) => number) => (f(on) / f(off)).toFixed(2);
console.log('\nratios, tracing on / off, per round (round 1, round 2)');
for (const [label, f] of [
  ['server CPU per request', (r: Run) => r.cpuPerRequestMs],
  ['throughput (req/s)', (r: Run) => r.rps],
  ['p50 latency', (r: Run) => r.p50],
] as const) {
  console.log(
    `  ${label.padEnd(24)} ${ratio(runs['on 1']!, runs['off 1']!, f)}  ${ratio(runs['on 2']!, runs['off 2']!, f)}`,
  );
}
