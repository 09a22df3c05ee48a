// bench/promotion: what each kind of request leaves for V8's young-generation collections
// (scavenges). One service process per kind, under --trace-gc-nvp, with `--concurrency` clients
// for `--seconds` after a warm-up: the scavenges' mean pause and the bytes each promotes to the
// old generation, beside the bare pg + HTTP server's page (bench/bare-list-server.ts) in the same
// run. A request that survives a scavenge it should not is copied, and then promoted: the
// scavenges grow long, and the requests that meet one are the slowest percent.
//
//   npm run bench:promotion [-- --seconds 4 --concurrency 16 --only rest-page,graphql-page]
//   Needs the listing benches' data set (npm run bench:list makes it).
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { signDevToken } from '../src/accounts/auth.ts';
import { BENCH_SECRET, benchServer, listingEnv, seededAccessories } from './lib/dataset.ts';
import { fmt, load, loadAverage, startServer } from './lib/load.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '4' },
    warmup: { type: 'string', default: '2' },
    concurrency: { type: 'string', default: '16' },
    database: { type: 'string', default: 'clipgate_bench_list' },
    only: { type: 'string' },
  },
});

const url = benchServer();
url.pathname = `/${values.database}`;
const accessories = await seededAccessories(url);
const token = await signDevToken(BENCH_SECRET, {
  sub: 'bench',
  clientId: 'bench',
  scopes: ['service:activities_basic', 'service:zones'],
  ttlSeconds: 3600,
});
const PAGE = `query Page($id: ID!) { accessory(id: $id) { activities(first: 20) {
  edges { cursor node { activityId accessoryId startTime endTime playbackDuration relevanceLevel inProgress } }
  pageInfo { hasNextPage endCursor } } } }`;
const UNKNOWN = '00000000-0000-4000-8000-000000000000';

interface Kind {
  file: string;
  path: (accessory: string) => string;
  method?: 'GET' | 'POST';
  body?: (accessory: string) => string;
}
const json = { 'content-type': 'application/json' };
const kinds: Record<string, Kind> = {
  'bare pg + HTTP page': { file: 'bench/bare-list-server.ts', path: (a) => `/?a=${a}` },
  'GET /api/event-types': { file: 'src/main.ts', path: () => '/api/event-types' },
  'REST page': {
    file: 'src/main.ts',
    path: (a) => `/api/accessories/${a}/activities`,
    method: 'POST',
    body: () => '{"limit":20}',
  },
  'REST page, unknown accessory (404)': {
    file: 'src/main.ts',
    path: () => `/api/accessories/${UNKNOWN}/activities`,
    method: 'POST',
    body: () => '{"limit":20}',
  },
  'REST zones': { file: 'src/main.ts', path: (a) => `/api/accessories/${a}/zones` },
  'GraphQL page': {
    file: 'src/main.ts',
    path: () => '/graphql',
    method: 'POST',
    body: (a) => JSON.stringify({ query: PAGE, variables: { id: a } }),
  },
};
const chosen = values.only?.split(',');
/** A kind's name as `--only` takes it: lower case, words joined by hyphens ("rest-page"). */
const slug = (name: string) =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
/** `--only` names a kind by its slug, or by a part of its name. */
const isChosen = (name: string) =>
  !chosen || chosen.some((c) => slug(name) === c || name.toLowerCase().includes(c));

/** V8's --trace-gc-nvp line of a scavenge: JSON (Node 22 and later) or name=value pairs. */
function scavenge(line: string): { pause: number; promoted: number } | undefined {
  const json = /GC: (\{.*\})/.exec(line);
  if (json) {
    const gc = JSON.parse(json[1]!) as { gc: string; pause: number; promoted: number };
    return gc.gc === 's' ? gc : undefined;
  }
  const pairs = /pause=([\d.]+) .*\bgc=s .*\bpromoted=(\d+)/.exec(line);
  return pairs ? { pause: Number(pairs[1]), promoted: Number(pairs[2]) } : undefined;
}

console.log(
  `Node ${process.version}, ${loadAverage()}; ${values.concurrency} clients, ${values.seconds} s each`,
);
for (const [name, kind] of Object.entries(kinds)) {
  if (!isChosen(name)) continue;
  const server = await startServer(kind.file, listingEnv(url), ['--trace-gc-nvp']);
  const scavenges: { pause: number; promoted: number }[] = [];
  let measuring = false;
  let partial = '';
  server.child.stdout!.on('data', (chunk: Buffer) => {
    const lines = (partial + chunk.toString()).split('\n');
    partial = lines.pop()!;
    for (const line of lines) {
      const gc = measuring && scavenge(line);
      if (gc) scavenges.push(gc);
    }
  });
  const http = new Pool(`http://127.0.0.1:${server.port}`, {
    connections: Number(values.concurrency),
  });
  const headers = { authorization: `Bearer ${token}`, ...json };
  const result = await load(
    Number(values.concurrency),
    Number(values.seconds) * 1000,
    async (i) => {
      const accessory = accessories[i % accessories.length]!;
      const res = await http.request({
        path: kind.path(accessory),
        method: kind.method ?? 'GET',
        headers,
        body: kind.body?.(accessory),
      });
      await res.body.dump();
    },
    Number(values.warmup) * 1000,
    () => (measuring = true),
  );
  measuring = false;
  await http.close();
  await server.stop();
  const mean = (of: 'pause' | 'promoted') =>
    scavenges.reduce((sum, gc) => sum + gc[of], 0) / Math.max(1, scavenges.length);
  console.log(
    `${name.padEnd(36)} ${fmt(result)}  p99/p50 ${(result.p99 / result.p50).toFixed(2)}  ` +
      `${String(scavenges.length).padStart(3)} scavenges, ${mean('pause').toFixed(1).padStart(4)} ms, ` +
      `${(mean('promoted') / 1024).toFixed(0).padStart(5)} kB promoted each`,
  );
}
