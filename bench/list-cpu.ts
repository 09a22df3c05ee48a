// bench/list-cpu: the service's CPU per page, of one checkout or of several side by side (before
// and after a change), on the data set bench:list loaded. Each checkout's service runs at once;
// each round drives every kind of page of each for a few seconds, the checkouts and the kinds in
// turns (forwards, then backwards), and reads the CPU time its process spent per page: the
// machine's noise falls on all alike. Prints each round, the medians (CPU per page, its user and
// system parts, and p99 / p50), and per checkout the median of each round's ratio of a page's CPU
// to the first kind's (REST).
// Each load runs on a thread of its own (loadOnThread), so the tails are the services'.
//
//   npm run bench:list -- --database clipgate_bench_list     # loads the data set once
//   npx tsx --no-memory-reducer bench/list-cpu.ts [--dirs <checkout>,<checkout>[@NAME=value;...]]
//     [--rounds 8] [--seconds 2] [--warmup 4] [--pages rest,graphql,hash] [--env NAME=value,...]
//   A checkout is a directory with its own node_modules (a `git worktree` of another commit);
//   `@NAME=value;...` sets its service's environment, --env every service's.
import { createHash } from 'node:crypto';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { benchServer, listingEnv, readerToken, seededAccessories } from './lib/dataset.ts';
import { cpuTimesMs, loadOnThread, startServer } from './lib/load.ts';
import { http, type Sent } from './lib/requests.ts';

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
const post = (path: string, body: unknown): Sent => ({
  method: 'POST',
  path,
  headers,
  body: JSON.stringify(body),
});
const bodies: Record<string, Sent[]> = {
  rest: accessoryIds.map((id) => post(`/api/accessories/${id}/activities`, { limit: 20 })),
  graphql: accessoryIds.map((id) => post('/graphql', { query: PAGE, variables: { id } })),
  hash: accessoryIds.map((id) => post('/graphql', { variables: { id }, extensions: byHash })),
};
const pages = values.pages.split(',');
const concurrency = Number(values.concurrency);

async function start(spec: string, label: string) {
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
  const origin = `http://127.0.0.1:${port}`;
  // Registers the hash: the document with its hash, once.
  const once = await http({
    origin,
    connections: 1,
    sent: [
      post('/graphql', { query: PAGE, variables: { id: accessoryIds[0] }, extensions: byHash }),
    ],
  });
  await once.request(0);
  await once.close();
  /** A load of `kinds` (round robin) from a thread of its own. */
  const run = (kinds: string[], durationMs: number, warmupMs: number, measuring?: () => void) =>
    loadOnThread(
      'http',
      { origin, connections: concurrency, sent: kinds.flatMap((k) => bodies[k]!) },
      concurrency,
      durationMs,
      warmupMs,
      measuring,
    );
  return { dir: label, child, run, pid: child.pid! };
}

const services = [];
// A checkout given twice (an A/A run, the noise between two alike) is told apart by its place.
const specs = values.dirs.split(',');
for (const [i, spec] of specs.entries()) {
  services.push(await start(spec, specs.indexOf(spec) === i ? spec : `${spec} (#${i + 1})`));
}
for (const s of services) await s.run(pages, Number(values.warmup) * 1000, 0);
/** A round's figures of a checkout's kind of page: user and system CPU per page (µs), p99 / p50. */
interface Round {
  user: number;
  system: number;
  spread: number;
}
const results = new Map<string, Round[]>();
const cpu = (r: Round) => r.user + r.system;
for (let round = 0; round < Number(values.rounds); round++) {
  const order = round % 2 === 0 ? services : [...services].reverse();
  const line: string[] = [];
  for (const s of order) {
    line.push(`${s.dir}:`);
    for (const kind of round % 2 === 0 ? pages : [...pages].reverse()) {
      let before = { user: 0, system: 0 };
      const r = await s.run([kind], Number(values.seconds) * 1000, 500, () => {
        before = cpuTimesMs(s.pid);
      });
      const after = cpuTimesMs(s.pid);
      const figures: Round = {
        user: ((after.user - before.user) / r.requests) * 1000,
        system: ((after.system - before.system) / r.requests) * 1000,
        spread: r.p99 / r.p50,
      };
      const key = `${s.dir} ${kind}`;
      results.set(key, [...(results.get(key) ?? []), figures]);
      line.push(
        `${kind} ${cpu(figures).toFixed(0)} (${r.rps.toFixed(0)}/s, ${figures.spread.toFixed(2)})`,
      );
    }
    line.push('|');
  }
  console.log(`round ${round + 1}: ${line.join(' ')}  load ${os.loadavg()[0]!.toFixed(2)}`);
}
const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)]!;
for (const [key, rounds] of results) {
  const of = (figure: (r: Round) => number) => median(rounds.map(figure));
  const apart = `user ${of((r) => r.user).toFixed(0)}, system ${of((r) => r.system).toFixed(0)}`;
  console.log(
    `${key.padEnd(50)} median ${of(cpu).toFixed(0)} µs (${apart}), p99 / p50 ${of((r) => r.spread).toFixed(2)}`,
  );
}
for (const s of services) {
  const base = results.get(`${s.dir} ${pages[0]}`)!;
  for (const kind of pages.slice(1)) {
    const v = results.get(`${s.dir} ${kind}`)!;
    const ratios = v.map((x, i) => cpu(x) / cpu(base[i]!));
    console.log(
      `${s.dir} ${kind}/${pages[0]} per round: ${ratios.map((r) => r.toFixed(2)).join(' ')}  median ${median(ratios).toFixed(2)}`,
    );
  }
}
for (const s of services) s.child.kill('SIGTERM');
