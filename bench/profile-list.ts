// bench/profile-list: where the time of one listing page goes. Starts the service under the V8
// CPU profiler on the data set bench/list loaded, drives one kind of page for a few seconds, and
// prints the service's busy CPU time by layer: the self time of every sampled function, grouped
// by its package or source folder, and the bytes it allocated per page (V8's --trace-gc-nvp:
// the sum of what each collection says was allocated since the one before, over the measured
// seconds, divided by the pages answered in them; off by at most one young generation, a few MB)
// and its CPU time per page (user and system, under the profiler).
//
//   npm run bench:list -- --database clipgate_bench_list     # loads the data set once
//   npx tsx bench/profile-list.ts [--page graphql|graphql-hash|rest] [--seconds 5] [--concurrency 16]
//   (graphql-hash: the GraphQL page by its SHA-256, Apollo's persisted queries, registered first)
//   [--warmup 3] seconds before the measured ones, which alone the profile summary counts;
//   [--keep FILE] writes that profile (with `pages` and `busyMs`) for a comparison of two runs
//   BENCH_DATABASE_URL as for bench:list; --database names the loaded database.
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { benchServer, listingEnv, readerToken, seededAccessories } from './lib/dataset.ts';
import { cpuMs, fmt, load, startServer } from './lib/load.ts';
import { printProfile, type CpuProfile } from './lib/profile.ts';

/** A V8 CPU profile with its samples: the node of each and the µs since the one before. */
interface SampledProfile extends CpuProfile {
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/**
 * Keeps, as each node's hit count, only the samples taken between `from` and `to` (µs on the
 * monotonic clock): the measured load, without start-up and warm-up. Its busy time, in ms.
 */
function measuredOnly(profile: SampledProfile, from: number, to: number): { busyMs: number } {
  const hits = new Map<number, number>();
  let at = profile.startTime;
  let busy = 0;
  const idle = new Set(
    profile.nodes.filter((n) => n.callFrame.functionName === '(idle)').map((n) => n.id),
  );
  profile.samples.forEach((id, i) => {
    at += profile.timeDeltas[i]!;
    if (at < from || at > to) return;
    hits.set(id, (hits.get(id) ?? 0) + 1);
    if (!idle.has(id)) busy += profile.timeDeltas[i]!;
  });
  for (const node of profile.nodes) node.hitCount = hits.get(node.id) ?? 0;
  return { busyMs: busy / 1000 };
}

const { values } = parseArgs({
  options: {
    page: { type: 'string', default: 'graphql' },
    seconds: { type: 'string', default: '5' },
    concurrency: { type: 'string', default: '16' },
    warmup: { type: 'string', default: '3' },
    keep: { type: 'string' },
    database: { type: 'string', default: 'clipgate_bench_list' },
  },
});
const databaseUrl = benchServer();
databaseUrl.pathname = `/${values.database}`;
const accessoryIds = await seededAccessories(databaseUrl);

const token = await readerToken();
const PAGE = `query Page($id: ID!, $after: String) { accessory(id: $id) { activities(first: 20, after: $after) {
  edges { cursor node { activityId accessoryId startTime endTime playbackDuration relevanceLevel inProgress } }
  pageInfo { hasNextPage endCursor } nextStartActivityId } } }`;

const profileDir = await fs.mkdtemp(path.join(os.tmpdir(), 'clipgate-profile-'));
const service = await startServer('src/main.ts', listingEnv(databaseUrl), [
  '--cpu-prof',
  `--cpu-prof-dir=${profileDir}`,
  '--trace-gc-nvp',
]);
let allocated = 0;
readline.createInterface({ input: service.child.stdout! }).on('line', (line) => {
  // ` allocated=N` up to Node 24; Node 26 prints each collection as JSON (`"allocated":N`).
  const m = /[ "]allocated"?[=:](\d+)/.exec(line);
  if (m) allocated += Number(m[1]);
});
const http = new Pool(`http://127.0.0.1:${service.port}`, {
  connections: Number(values.concurrency),
});
const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
const pick = (i: number) => accessoryIds[i % accessoryIds.length]!;
const byHash = {
  persistedQuery: { version: 1, sha256Hash: createHash('sha256').update(PAGE).digest('hex') },
};
if (values.page === 'graphql-hash') {
  const body = JSON.stringify({ query: PAGE, variables: { id: pick(0) }, extensions: byHash });
  const res = await http.request({ method: 'POST', path: '/graphql', headers, body });
  await res.body.text();
}
const page = async (i: number) => {
  const [p, body] =
    values.page === 'rest'
      ? [`/api/accessories/${pick(i)}/activities`, { limit: 20 }]
      : values.page === 'graphql-hash'
        ? ['/graphql', { variables: { id: pick(i) }, extensions: byHash }]
        : ['/graphql', { query: PAGE, variables: { id: pick(i) } }];
  const res = await http.request({ method: 'POST', path: p, headers, body: JSON.stringify(body) });
  const text = await res.body.text();
  if (res.statusCode !== 200 || text.includes('"errors"'))
    throw new Error(`${res.statusCode} ${text}`);
};
const concurrency = Number(values.concurrency);
await load(concurrency, Number(values.warmup) * 1000, page, 0);
allocated = 0;
const cpuBefore = cpuMs(service.child.pid!);
// The measured seconds on the monotonic clock, which V8's profile timestamps share (µs).
const measuredFrom = Number(process.hrtime.bigint() / 1000n);
const result = await load(concurrency, Number(values.seconds) * 1000, page, 0);
const measuredTo = Number(process.hrtime.bigint() / 1000n);
const cpuPerPage = (cpuMs(service.child.pid!) - cpuBefore) / result.requests;
const allocatedPerPage = allocated / result.requests;
await http.close();
await service.stop();
console.log(
  `${values.page} first page  ${fmt(result)}  (load average ${os.loadavg()[0]!.toFixed(2)})`,
);
console.log(
  `allocated per page  ${(allocatedPerPage / 1024).toFixed(1)} KiB; CPU per page ${(cpuPerPage * 1000).toFixed(0)} µs (under the profiler)`,
);

// The service process writes one profile; tsx's own loader process may write another.
const files = await fs.readdir(profileDir);
let profile: SampledProfile | undefined;
for (const file of files) {
  const p = JSON.parse(await fs.readFile(path.join(profileDir, file), 'utf8')) as SampledProfile;
  if (!profile || p.nodes.length > profile.nodes.length) profile = p;
}
await fs.rm(profileDir, { recursive: true, force: true });
if (!profile) throw new Error('no CPU profile written');
const { busyMs } = measuredOnly(profile, measuredFrom, measuredTo);
console.log(
  `\nthe measured seconds only (no start-up, no warm-up): ${((busyMs * 1000) / result.requests).toFixed(0)} µs of sampled busy time per page`,
);
printProfile(profile);
if (values.keep) {
  await fs.writeFile(values.keep, JSON.stringify({ ...profile, pages: result.requests, busyMs }));
  console.log(`the profile, measured seconds only, with its pages: ${values.keep}`);
}
