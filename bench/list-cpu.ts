// bench/list-cpu: the service's CPU per page, of one checkout or of several side by side (before
// and after a change), on the data set bench:list loaded. Each checkout's service runs at once;
// each round drives every kind of page of each for a few seconds, the checkouts and the kinds in
// turns (forwards, then backwards), and reads the CPU time its process spent per page: the
// machine's noise falls on all alike. Prints each round, the medians, and per checkout the median
// of each round's ratio of a page's CPU to the first kind's (REST).
//
//   npm run bench:list -- --database clipgate_bench_list     # loads the data set once
//   npx tsx bench/list-cpu.ts [--dirs <checkout>,<checkout>[@NAME=value;...]] [--rounds 8]
//     [--seconds 2] [--warmup 4] [--pages rest,graphql,hash] [--env NAME=value,...]
//   A checkout is a directory with its own node_modules (a `git worktree` of another commit);
//   `@NAME=value;...` sets its service's environment, --env every service's.
import { createHash } from 'node:crypto';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { benchServer, listingEnv, readerToken, seededAccessories } from './lib/dataset.ts';
import { cpuMs, load, startServer } from './lib/load.ts';

const { values } = parseArgs({
  options: {
    dirs: { type: 'string', default: '.' },
    rounds: { type: 'string', default: '5' },
    seconds: { type: 'string', default: '2' },
    warmup: { type: 'string', default: '4' },
    concurrency: { type: 'string', default: '16' },
    pages: { type: 'string', default: 'rest,graphql,hash' },
    database: { type: 'string', default: 'clipgate_bench_list' },
    env: { type: 'string', default: '' },
  },
});
const databaseUrl = benchServer();
databaseUrl.pathname = `/${values.database}`;
const accessoryIds = await seededAccessories(databaseUrl);
const extraEnv = Object.fromEntries(
  values.env
    .split(',')
    .filter(Boolean)
    .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)] as [string, string]),
);
const token = await readerToken();
const PAGE = `query Page($id: ID!, $after: String) { accessory(id: $id) { activities(first: 20, after: $after) {
  edges { cursor node { activityId accessoryId startTime endTime playbackDuration relevanceLevel inProgress } }
  pageInfo { hasNextPage endCursor } nextStartActivityId } } }`;
const byHash = {
  persistedQuery: { version: 1, sha256Hash: createHash('sha256').update(PAGE).digest('hex') },
};
const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
const pick = (i: number) => accessoryIds[i % accessoryIds.length]!;
const bodies: Record<string, (i: number) => [string, unknown]> = {
  rest: (i) => [`/api/accessories/${pick(i)}/activities`, { limit: 20 }],
  graphql: (i) => ['/graphql', { query: PAGE, variables: { id: pick(i) } }],
  hash: (i) => ['/graphql', { variables: { id: pick(i) }, extensions: byHash }],
};
const pages = values.pages.split(',');
const concurrency = Number(values.concurrency);

async function start(spec: string) {
  const [dir, own = ''] = spec.split('@') as [string, string?];
  const ownEnv = Object.fromEntries(
    own
      .split(';')
      .filter(Boolean)
      .map(
        (kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)] as [string, string],
      ),
  );
  const { port, child } = await startServer(
    'src/main.ts',
    { ...listingEnv(databaseUrl), ...extraEnv, ...ownEnv },
    [],
    dir,
  );
  const http = new Pool(`http://127.0.0.1:${port}`, { connections: concurrency });
  const page = (kind: string) => async (i: number) => {
    const [p, body] = bodies[kind]!(i);
    const res = await http.request({
      method: 'POST',
      path: p,
      headers,
      body: JSON.stringify(body),
    });
    const text = await res.body.text();
    if (res.statusCode !== 200 || text.includes('"errors"'))
      throw new Error(`${dir} ${kind}: ${res.statusCode} ${text}`);
  };
  // registers the hash
  await page('graphql')(0).catch(() => undefined);
  {
    const res = await http.request({
      method: 'POST',
      path: '/graphql',
      headers,
      body: JSON.stringify({ query: PAGE, variables: { id: pick(0) }, extensions: byHash }),
    });
    await res.body.text();
  }
  return { dir: spec, child, http, page, pid: child.pid! };
}

const services = [];
for (const dir of values.dirs.split(',')) services.push(await start(dir));
for (const s of services) {
  await load(
    concurrency,
    Number(values.warmup) * 1000,
    (i) => s.page(pages[i % pages.length]!)(i),
    0,
  );
}
const results = new Map<string, number[]>();
for (let round = 0; round < Number(values.rounds); round++) {
  const order = round % 2 === 0 ? services : [...services].reverse();
  const line: string[] = [];
  for (const s of order) {
    line.push(`${s.dir}:`);
    for (const kind of round % 2 === 0 ? pages : [...pages].reverse()) {
      const before = cpuMs(s.pid);
      const r = await load(concurrency, Number(values.seconds) * 1000, s.page(kind), 200);
      const cpu = ((cpuMs(s.pid) - before) / r.requests) * 1000;
      const key = `${s.dir} ${kind}`;
      results.set(key, [...(results.get(key) ?? []), cpu]);
      line.push(`${kind} ${cpu.toFixed(0)} (${r.rps.toFixed(0)}/s)`);
    }
    line.push('|');
  }
  console.log(`round ${round + 1}: ${line.join(' ')}  load ${os.loadavg()[0]!.toFixed(2)}`);
}
const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)]!;
for (const [key, v] of results) console.log(`${key.padEnd(50)} median ${median(v).toFixed(0)} µs`);
for (const s of services) {
  const base = results.get(`${s.dir} ${pages[0]}`)!;
  for (const kind of pages.slice(1)) {
    const v = results.get(`${s.dir} ${kind}`)!;
    const ratios = v.map((x, i) => x / base[i]!);
    console.log(
      `${s.dir} ${kind}/${pages[0]} per round: ${ratios.map((r) => r.toFixed(2)).join(' ')}  median ${median(ratios).toFixed(2)}`,
    );
  }
}
for (const s of services) {
  await s.http.close();
  s.child.kill('SIGTERM');
}
