// bench/live-query: what keeps N dashboards of one account current while activities commit,
// measured two ways in one run on one instance:
//   live      each client runs the dashboard's query as a live query (`query @live`) over its
//             own WebSocket; the server executes it again at most once per
//             LIVE_QUERY_MIN_INTERVAL_MS and sends it when it changed.
//   baseline  each client subscribes to accountEvents over its own WebSocket and fetches the same
//             query over HTTP a second after the last activity_created it saw (what the
//             dashboard's chart did before: a trailing one-second debounce).
// The query is the timeline's first page and the counts per hour of the last day. Activities are
// created through the service's ingest path at a steady rate, round robin over ten accessories.
// Printed per way: executions of the query (the first ones included), results received, the time
// from the first commit until every client has shown a change (first update), and from the last
// commit until every client shows all activities (settled), with live's ratios to the baseline.
// The clients run in this process, beside the service: their CPU counts against it.
//
//   npx tsx bench/live-query.ts [--clients 50 --activities 100 --rate 20 --interval 1000]
//   BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test); --embedded: PGlite.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { buildApp } from '../src/app.ts';
import { signDevToken } from '../src/accounts/auth.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { BENCH_SECRET, freshDatabase } from './lib/dataset.ts';

const { values: args } = parseArgs({
  options: {
    clients: { type: 'string', default: '50' },
    activities: { type: 'string', default: '100' },
    rate: { type: 'string', default: '20' },
    interval: { type: 'string', default: '1000' },
    embedded: { type: 'boolean', default: false },
  },
});
const CLIENTS = Number(args.clients);
const ACTIVITIES = Number(args.activities);
const RATE = Number(args.rate);
const ACCESSORIES = 10;
const DEBOUNCE_MS = 1000;

const FIELDS = `viewer {
  activities(first: 20) { edges { node { activityId accessoryId inProgress relevanceLevel } } }
  activityCounts(from: $from, to: $to, bucket: HOUR) { buckets { start count } }
}`;
const VARIABLES = `($from: DateTime!, $to: DateTime!)`;
const LIVE = `query LiveDashboard${VARIABLES} @live { ${FIELDS} }`;
const ONCE = `query Dashboard${VARIABLES} { ${FIELDS} }`;
const EVENTS = `subscription { accountEvents(accountId: "self", eventTypes: [activity_created]) { eventId } }`;

type Data = { viewer: { activityCounts: { buckets: { count: number }[] } } };
const counted = (data: Data) =>
  data.viewer.activityCounts.buckets.reduce((sum, b) => sum + b.count, 0);

interface Seen {
  /** When the client first showed a count above the start, and when it showed them all. */
  changedAt?: number;
  settledAt?: number;
  results: number;
}

const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'clipgate-bench-lq-'));
const databaseUrl = args.embedded
  ? undefined
  : (await freshDatabase('clipgate_bench_lq')).toString();
const config = loadConfig({
  PORT: '0',
  DATA_DIR: dataDir,
  AUTH_DEV_SECRET: BENCH_SECRET,
  LOG_LEVEL: 'warn',
  RATE_LIMIT_RPS: '0',
  LIVE_MAX_CONNECTIONS_PER_SUBJECT: String(CLIENTS * 2),
  // The clients connect all at once: shedding for event-loop lag would refuse some of them.
  OVERLOAD_LAG_MS: '0',
  LIVE_QUERY_MIN_INTERVAL_MS: args.interval,
  ...(databaseUrl && { DATABASE_URL: databaseUrl }),
});
const app = await buildApp(config, { embeddedDir: 'memory://', logger: createLogger('warn') });
await app.listen();
const { services } = app;
const url = app.url();
const token = await signDevToken(BENCH_SECRET, {
  sub: 'bench',
  clientId: 'bench',
  scopes: ['service:activities_basic'],
});
const account = await services.accounts.upsert('bench', 30);
const accessoryIds: string[] = [];
for (let i = 0; i < ACCESSORIES; i++) {
  const accessory = await services.accessories.associate(account.accountId, `cam-${i}`, 'Bench');
  accessoryIds.push(accessory.accessoryId);
}
const variables = {
  from: new Date(Date.now() - 24 * 3600_000).toISOString(),
  to: new Date(Date.now() + 24 * 3600_000).toISOString(),
};

const socket = (): Client =>
  createClient({
    url: `${url.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${token}` },
    retryAttempts: 0,
    lazy: false,
  });

let executions = 0;
async function fetchOnce(): Promise<Data> {
  executions++;
  const res = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query: ONCE, variables }),
  });
  return ((await res.json()) as { data: Data }).data;
}

/** Writes `ACTIVITIES` activities at `RATE` a second; the commit time of the first and last. */
async function write(): Promise<{ first: number; last: number }> {
  let first = 0;
  const start = performance.now();
  for (let i = 0; i < ACTIVITIES; i++) {
    const due = start + (i * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    await services.activities.create(accessoryIds[i % ACCESSORIES]!, {});
    if (i === 0) first = performance.now();
  }
  return { first, last: performance.now() };
}

interface Way {
  name: string;
  executions: number;
  results: number;
  firstUpdateMs: number;
  settledMs: number;
}

/** Runs one way: its clients until each shows every activity written so far. */
async function run(
  name: string,
  open: (seen: Seen, total: () => number, clients: Client[]) => Promise<void>,
  before: number,
): Promise<Way> {
  const clients: Client[] = [];
  const seen = Array.from({ length: CLIENTS }, (): Seen => ({ results: 0 }));
  const total = () => before + ACTIVITIES;
  await Promise.all(seen.map((s) => open(s, total, clients)));
  const runsBefore = executions + (await liveExecutions());
  const { first, last } = await write();
  const deadline = performance.now() + 60_000;
  while (seen.some((s) => s.settledAt === undefined) && performance.now() < deadline) {
    await sleep(10);
  }
  const way: Way = {
    name,
    executions: executions + (await liveExecutions()) - runsBefore + CLIENTS,
    results: seen.reduce((sum, s) => sum + s.results, 0),
    firstUpdateMs: Math.max(...seen.map((s) => (s.changedAt ?? Infinity) - first)),
    settledMs: Math.max(...seen.map((s) => (s.settledAt ?? Infinity) - last)),
  };
  await Promise.all(clients.map((c) => c.dispose()));
  while (services.live.activeSubscriptions > 0) await sleep(10);
  return way;
}

async function liveExecutions(): Promise<number> {
  const { values } = await services.metrics.liveQueryExecutions.get();
  return values.reduce((sum, v) => sum + v.value, 0);
}

function show(seen: Seen, data: Data, start: number, total: number): void {
  seen.results++;
  const count = counted(data);
  if (count > start) seen.changedAt ??= performance.now();
  if (count >= total) seen.settledAt ??= performance.now();
}

const live = await run(
  'live',
  async (seen, total, clients) => {
    const client = socket();
    clients.push(client);
    let start: number | undefined;
    await new Promise<void>((resolve) => {
      client.subscribe<Data>(
        { query: LIVE, variables },
        {
          next: ({ data }) => {
            if (!data) return;
            start ??= counted(data);
            if (seen.results === 0) resolve();
            show(seen, data, start, total());
          },
          error: (err) => console.error('live query failed', err),
          complete: () => undefined,
        },
      );
    });
    seen.results = 0; // the first result is not an update
  },
  0,
);

const baseline = await run(
  'baseline',
  async (seen, total, clients) => {
    const client = socket();
    clients.push(client);
    const start = counted(await fetchOnce());
    let timer: NodeJS.Timeout | undefined;
    await new Promise<void>((resolve) => {
      client.subscribe(
        { query: EVENTS },
        {
          next: () => {
            clearTimeout(timer);
            timer = setTimeout(
              () => void fetchOnce().then((data) => show(seen, data, start, total())),
              DEBOUNCE_MS,
            );
          },
          error: (err) => console.error('subscription failed', err),
          complete: () => undefined,
        },
      );
      // graphql-ws has no "subscribed" callback: the subscriptions are counted by the service.
      const check = setInterval(() => {
        if (services.live.activeSubscriptions >= clients.length) {
          clearInterval(check);
          resolve();
        }
      }, 5);
    });
  },
  ACTIVITIES,
);

const ratio = (a: number, b: number) => (b === 0 ? '-' : `${(a / b).toFixed(2)}x`);
console.log(
  `${CLIENTS} clients of one account, ${ACTIVITIES} activities at ${RATE}/s, ` +
    `LIVE_QUERY_MIN_INTERVAL_MS=${args.interval}, ${args.embedded ? 'PGlite' : 'PostgreSQL'}`,
);
console.log('way       executions  results  first update (ms, slowest client)  settled (ms)');
for (const way of [live, baseline]) {
  console.log(
    `${way.name.padEnd(9)} ${String(way.executions).padStart(10)}  ${String(way.results).padStart(7)}  ` +
      `${way.firstUpdateMs.toFixed(0).padStart(34)}  ${way.settledMs.toFixed(0).padStart(12)}`,
  );
}
console.log(
  `live / baseline: executions ${ratio(live.executions, baseline.executions)}, ` +
    `first update ${ratio(live.firstUpdateMs, baseline.firstUpdateMs)}, ` +
    `settled ${ratio(live.settledMs, baseline.settledMs)}`,
);
await app.close();
await fs.rm(dataDir, { recursive: true, force: true });
