// bench/live: live events over GraphQL WebSocket subscriptions, at 5,000 and then 10,000
// concurrent subscribers on one instance, beside a bare graphql-ws server (in-memory pub/sub,
// no database, no auth, the same subscription schema shape), all in this one run.
//
// Each socket is a real graphql-ws client over its own WebSocket, in a second process
// (bench/live-load.ts, forked); the server runs in a third (forked with --expose-gc, so that
// its memory is measured after collection). A subscriber is one subscription: by default each
// socket carries one, watching one accessory, ten per accessory, each accessory its own
// account; with `--per-socket K` each account has K accessories and each of its sockets
// subscribes to all K (a dashboard watching K cameras over one socket). Changes are committed
// through the service's ingest path (a transaction per createActivity: its events, the commit,
// then the pub/sub) at a steady rate, round robin over the accessories; the bare server
// publishes the same events (two per change: activity_finished and activity_created) at the
// same rate. Printed: fan-out latency from commit to receipt in the subscriber process
// (p50/p99/max, both processes read CLOCK_MONOTONIC), delivered/expected, and server memory
// per subscriber (RSS and heap growth from before the clients connected to all subscribed,
// divided by the subscribers), with the ratios to the bare server. With `--floor`, also a floor
// server: the same events, each serialized once and written to every subscriber's socket with
// only its subscription id spliced in (no GraphQL, no per-subscription pipeline), which is what
// writing the messages alone costs on the machine.
//
//   npm run bench:live [-- --sizes 5000,10000 --rate 100 --seconds 10 --embedded --floor]
//   npm run bench:live -- --sizes 1000 --per-accessory 1000 --rate 1: one accessory's 1,000
//   subscribers (an accessory takes at most one new activity a second: ids are per second).
//   npm run bench:live -- --sizes 50000 --per-socket 10 --rate 100: 50,000 subscribers over
//   5,000 sockets, at 200 events/s.
//   BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test) names the PostgreSQL
//   server; the service runs on a fresh database clipgate_bench_live there. --embedded: PGlite.
//   Needs a file descriptor for each socket in both processes: `ulimit -n` above the sockets.
import { fork, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import fs from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { Duplex } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  GraphQLBoolean,
  GraphQLEnumType,
  GraphQLID,
  GraphQLNonNull,
  type GraphQLNullableType,
  GraphQLObjectType,
  GraphQLScalarType,
  GraphQLSchema,
  GraphQLString,
} from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { createPubSub } from 'graphql-yoga';
import pg from 'pg';
import { type WebSocket, WebSocketServer } from 'ws';
import { buildApp } from '../src/app.ts';
import { signDevToken } from '../src/accounts/auth.ts';
import { loadConfig } from '../src/config.ts';
import { recordedEventTypes } from '../src/events/types.ts';
import type { StoredEvent } from '../src/events/types.ts';
import { createLogger } from '../src/logger.ts';
import type { LoadCommand, LoadReport, Target } from './live-load.ts';

const { values } = parseArgs({
  options: {
    role: { type: 'string', default: 'main' },
    kind: { type: 'string', default: 'clipgate' },
    subscribers: { type: 'string', default: '5000' },
    database: { type: 'string' },
    sizes: { type: 'string', default: '5000,10000' },
    rate: { type: 'string', default: '100' },
    seconds: { type: 'string', default: '10' },
    'per-accessory': { type: 'string', default: '10' },
    'per-socket': { type: 'string', default: '1' },
    embedded: { type: 'boolean', default: false },
    floor: { type: 'boolean', default: false },
  },
});
const PER_ACCESSORY = Number(values['per-accessory']);
const PER_SOCKET = Number(values['per-socket']);
/** Accounts for `subscribers`: each has PER_SOCKET accessories and PER_ACCESSORY sockets. */
const accounts = (subscribers: number) => Math.ceil(subscribers / (PER_ACCESSORY * PER_SOCKET));
const SECRET = 'clipgate-bench-live-secret-0123456789';
const WARMUP_S = 1;

type Kind = 'clipgate' | 'bare' | 'floor';
type ServerCommand =
  | { type: 'measure' }
  | { type: 'stats' }
  | { type: 'publish'; rate: number; seconds: number }
  | { type: 'stop' };
type ServerReport =
  | { type: 'ready'; url: string; targets: Target[] }
  | { type: 'memory'; rss: number; heapUsed: number; external: number }
  | { type: 'stats'; subscriptions: number }
  | { type: 'published'; eventIds: string[]; micros: number[]; changes: number }
  | { type: 'stopped' };

const nowMicros = () => Number(process.hrtime.bigint() / 1000n);

// ---------------------------------------------------------------------------------------------
// Server processes

interface BenchServer {
  url: string;
  /** One per account: its accessories, each watched by PER_ACCESSORY sockets. */
  targets: Target[];
  /** Every accessory, in the order changes go round. */
  accessoryIds: string[];
  subscriptions(): number;
  /** One change on the accessory; records the commit time of its events. */
  change(accessoryId: string): Promise<void>;
  stop(): Promise<void>;
}

const commitIds: string[] = [];
const commitMicros: number[] = [];

async function clipgateServer(subscribers: number, databaseUrl?: string): Promise<BenchServer> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'clipgate-bench-live-'));
  const config = loadConfig({
    PORT: '0',
    DATA_DIR: dataDir,
    AUTH_DEV_SECRET: SECRET,
    LOG_LEVEL: 'warn',
    LIVE_MAX_CONNECTIONS: String(subscribers * 2),
    LIVE_MAX_CONNECTIONS_PER_SUBJECT: String(PER_ACCESSORY * 2),
    // One token drives the whole load: per-client rate limits would measure 429s instead.
    RATE_LIMIT_RPS: '0',
    ...(databaseUrl && { DATABASE_URL: databaseUrl }),
  });
  const app = await buildApp(config, { embeddedDir: 'memory://', logger: createLogger('warn') });
  await app.listen();
  const { services } = app;
  const targets: Target[] = [];
  for (let i = 0; i < accounts(subscribers); i++) {
    const subject = `bench-${i}`;
    const account = await services.accounts.upsert(subject, 30);
    const accessoryIds: string[] = [];
    for (let j = 0; j < PER_SOCKET; j++) {
      const accessory = await services.accessories.associate(
        account.accountId,
        `cam-${j}`,
        'Bench',
      );
      accessoryIds.push(accessory.accessoryId);
      // An activity in progress, so that every measured change is two events (finished, created).
      await services.activities.create(accessory.accessoryId, {
        createdAt: new Date(Date.now() - 60_000),
      });
    }
    const token = await signDevToken(SECRET, {
      sub: subject,
      clientId: 'bench',
      scopes: ['service:activities_basic'],
      ttlSeconds: 3600,
    });
    targets.push({ accessoryIds, token });
  }
  // The commit time of an event: when its committer reports it, right before the pub/sub.
  const committed = services.signal.committed.bind(services.signal);
  services.signal.committed = (events: StoredEvent[]) => {
    const at = nowMicros();
    for (const e of events) {
      commitIds.push(e.eventId);
      commitMicros.push(at);
    }
    committed(events);
  };
  return {
    url: app.url(),
    targets,
    accessoryIds: targets.flatMap((t) => t.accessoryIds),
    subscriptions: () => services.live.activeSubscriptions,
    change: async (accessoryId) => {
      await services.activities.create(accessoryId, {});
    },
    stop: async () => {
      await app.close();
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** The same subscription shape on graphql-js + graphql-ws + Yoga's in-memory pub/sub. */
async function bareServer(subscribers: number): Promise<BenchServer> {
  const eventTarget = new EventTarget();
  setMaxListeners(0, eventTarget); // one listener per subscriber on a topic, by design
  const pubsub = createPubSub<Record<string, [unknown]>>({ eventTarget });
  const nonNull = <T extends GraphQLNullableType>(type: T) => new GraphQLNonNull(type);
  const EventType = new GraphQLEnumType({
    name: 'EventType',
    values: Object.fromEntries(recordedEventTypes.map((t) => [t, { value: t }])),
  });
  const DateTime = new GraphQLScalarType({
    name: 'DateTime',
    serialize: (v) => (v as Date).toISOString(),
  });
  const JSONScalar = new GraphQLScalarType({ name: 'JSON', serialize: (v) => v });
  const LiveEvent = new GraphQLObjectType({
    name: 'LiveEvent',
    fields: {
      eventId: { type: nonNull(GraphQLString) },
      accountId: { type: nonNull(GraphQLID) },
      accessoryId: { type: GraphQLID },
      eventType: { type: nonNull(EventType) },
      eventData: { type: nonNull(JSONScalar) },
      occurredAt: { type: nonNull(DateTime) },
    },
  });
  const schema = new GraphQLSchema({
    query: new GraphQLObjectType({ name: 'Query', fields: { ok: { type: GraphQLBoolean } } }),
    subscription: new GraphQLObjectType({
      name: 'Subscription',
      fields: {
        accessoryEvents: {
          type: nonNull(LiveEvent),
          args: { accessoryId: { type: nonNull(GraphQLID) }, after: { type: GraphQLString } },
          subscribe: (_root, args: { accessoryId: string }) =>
            pubsub.subscribe(`accessory:${args.accessoryId}`),
          resolve: (event: unknown) => event,
        },
      },
    }),
  });
  let active = 0;
  const server = createServer((_req, res) => res.writeHead(404).end());
  const wss = new WebSocketServer({ server, path: '/graphql' });
  useServer(
    {
      schema,
      onOperation: () => void active++,
      onComplete: () => void active--,
    },
    wss,
  );
  const synthetic = await listenSynthetic(server, wss, subscribers);
  return {
    ...synthetic,
    subscriptions: () => active,
    change: async (accessoryId) => {
      for (const event of synthetic.events(accessoryId)) {
        pubsub.publish(`accessory:${accessoryId}`, { ...event, occurredAt: new Date() });
      }
    },
  };
}

interface SyntheticEvent {
  eventId: string;
  accountId: string | undefined;
  accessoryId: string;
  eventType: string;
  eventData: Record<string, unknown>;
}

/**
 * The servers without a database: listens, makes accounts and accessories of random ids, and
 * gives the two events of a change (recording their commit time).
 */
async function listenSynthetic(
  server: Server,
  wss: WebSocketServer,
  subscribers: number,
): Promise<
  Pick<BenchServer, 'url' | 'targets' | 'accessoryIds' | 'stop'> & {
    events(accessoryId: string): SyntheticEvent[];
  }
> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const accountIds = new Map<string, string>();
  const targets: Target[] = Array.from({ length: accounts(subscribers) }, () => {
    const accountId = randomUUID();
    const accessoryIds = Array.from({ length: PER_SOCKET }, () => randomUUID());
    for (const accessoryId of accessoryIds) accountIds.set(accessoryId, accountId);
    return { accessoryIds, token: 'none' };
  });
  let sequence = 0;
  const activity = (accessoryId: string) => ({
    activityId: new Date().toISOString(),
    accessoryId,
    startTime: new Date().toISOString(),
    endTime: null,
    playbackDuration: null,
    relevanceLevel: 0,
    inProgress: true,
    motionZones: [],
    objectLocations: [],
  });
  return {
    url: `http://127.0.0.1:${port}`,
    targets,
    accessoryIds: targets.flatMap((t) => t.accessoryIds),
    events: (accessoryId) => {
      const at = nowMicros();
      return ['activity_finished', 'activity_created'].map((eventType) => {
        const eventId = String(++sequence);
        commitIds.push(eventId);
        commitMicros.push(at);
        return {
          eventId,
          accountId: accountIds.get(accessoryId),
          accessoryId,
          eventType,
          eventData: activity(accessoryId),
        };
      });
    },
    stop: async () => {
      for (const client of wss.clients) client.terminate();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * The floor: just enough of graphql-transport-ws (connection_init, subscribe, complete, ping)
 * for the load's graphql-ws clients, and each event serialized once, then written to every
 * subscriber with its subscription id spliced in. The two events of a change leave a socket in
 * one write, as the service's do.
 */
async function floorServer(subscribers: number): Promise<BenchServer> {
  interface Subscriber {
    socket: WebSocket;
    raw: Duplex;
    id: string;
  }
  const byAccessory = new Map<string, Set<Subscriber>>();
  let active = 0;
  const server = createServer((_req, res) => res.writeHead(404).end());
  const wss = new WebSocketServer({
    server,
    path: '/graphql',
    handleProtocols: () => 'graphql-transport-ws',
  });
  wss.on('connection', (socket, request) => {
    const own = new Map<string, () => void>();
    const end = (id: string) => {
      own.get(id)?.();
      own.delete(id);
    };
    socket.on('message', (data) => {
      const message = JSON.parse(String(data)) as {
        type: string;
        id?: string;
        payload?: { variables?: { accessoryId?: string } };
      };
      if (message.type === 'connection_init') socket.send('{"type":"connection_ack"}');
      else if (message.type === 'ping') socket.send('{"type":"pong"}');
      else if (message.type === 'complete') end(message.id!);
      else if (message.type === 'subscribe') {
        const accessoryId = message.payload?.variables?.accessoryId ?? '';
        let set = byAccessory.get(accessoryId);
        if (!set) byAccessory.set(accessoryId, (set = new Set()));
        const subscriber = { socket, raw: request.socket, id: JSON.stringify(message.id) };
        set.add(subscriber);
        active++;
        own.set(message.id!, () => {
          set.delete(subscriber);
          active--;
        });
      }
    });
    socket.on('close', () => {
      for (const id of [...own.keys()]) end(id);
    });
  });
  const synthetic = await listenSynthetic(server, wss, subscribers);
  return {
    ...synthetic,
    subscriptions: () => active,
    change: async (accessoryId) => {
      const payloads = synthetic.events(accessoryId).map((event) =>
        JSON.stringify({
          data: { accessoryEvents: { ...event, occurredAt: new Date().toISOString() } },
        }),
      );
      for (const { socket, raw, id } of byAccessory.get(accessoryId) ?? []) {
        raw.cork();
        for (const payload of payloads)
          socket.send(`{"id":${id},"type":"next","payload":${payload}}`);
        raw.uncork();
      }
    },
  };
}

async function serverRole(): Promise<void> {
  const send = (report: ServerReport) => process.send!(report);
  const subscribers = Number(values.subscribers);
  const server =
    values.kind === 'bare'
      ? await bareServer(subscribers)
      : values.kind === 'floor'
        ? await floorServer(subscribers)
        : await clipgateServer(subscribers, values.database);
  const gc = (globalThis as { gc?: () => void }).gc;
  process.on('message', (command: ServerCommand) => {
    void (async () => {
      if (command.type === 'measure') {
        for (let i = 0; i < 3; i++) {
          gc?.();
          await sleep(100);
        }
        const { rss, heapUsed, external } = process.memoryUsage();
        send({ type: 'memory', rss, heapUsed, external });
      } else if (command.type === 'stats') {
        send({ type: 'stats', subscriptions: server.subscriptions() });
      } else if (command.type === 'publish') {
        commitIds.length = 0;
        commitMicros.length = 0;
        const total = command.rate * command.seconds;
        const start = performance.now();
        const inFlight: Promise<void>[] = [];
        for (let i = 0; i < total; i++) {
          const due = start + (i * 1000) / command.rate;
          const wait = due - performance.now();
          if (wait > 0) await sleep(wait);
          inFlight.push(server.change(server.accessoryIds[i % server.accessoryIds.length]!));
        }
        await Promise.all(inFlight);
        send({ type: 'published', eventIds: commitIds, micros: commitMicros, changes: total });
      } else {
        await server.stop();
        send({ type: 'stopped' });
        process.exit(0);
      }
    })();
  });
  send({ type: 'ready', url: server.url, targets: server.targets });
}

// ---------------------------------------------------------------------------------------------
// The orchestrator

function next<T extends { type: string }, K extends T['type']>(
  child: ChildProcess,
  type: K,
  timeoutMs = 300_000,
): Promise<Extract<T, { type: K }>> {
  return new Promise((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
    };
    const timer = setTimeout(() => {
      done();
      reject(new Error(`timed out waiting for ${type}`));
    }, timeoutMs);
    const onMessage = (message: T) => {
      if (message.type !== type) return;
      done();
      resolve(message as Extract<T, { type: K }>);
    };
    const onExit = (code: number | null) => {
      done();
      reject(new Error(`child exited (${code}) waiting for ${type}`));
    };
    child.on('message', onMessage);
    child.on('exit', onExit);
  });
}

interface Result {
  kind: Kind;
  subscribers: number;
  connected: number;
  p50: number;
  p99: number;
  max: number;
  delivered: number;
  expected: number;
  rssPerSubscriber: number;
  heapPerSubscriber: number;
  errors: number;
}

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;

async function freshDatabase(): Promise<string> {
  const server = new URL(
    process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
  );
  const admin = new pg.Client({ connectionString: server.toString() });
  await admin.connect();
  await admin.query('DROP DATABASE IF EXISTS clipgate_bench_live WITH (FORCE)');
  await admin.query('CREATE DATABASE clipgate_bench_live');
  await admin.end();
  server.pathname = '/clipgate_bench_live';
  return server.toString();
}

async function scenario(kind: Kind, subscribers: number): Promise<Result> {
  const self = fileURLToPath(import.meta.url);
  const database = kind === 'clipgate' && !values.embedded ? await freshDatabase() : undefined;
  const server = fork(
    self,
    [
      '--role',
      'server',
      '--kind',
      kind,
      '--subscribers',
      String(subscribers),
      '--per-accessory',
      String(PER_ACCESSORY),
      '--per-socket',
      String(PER_SOCKET),
      ...(database ? ['--database', database] : []),
    ],
    { execArgv: ['--import', 'tsx', '--expose-gc'] },
  );
  const ask = <K extends ServerReport['type']>(command: ServerCommand, type: K) => {
    const reply = next<ServerReport, K>(server, type);
    server.send(command);
    return reply;
  };
  const { url, targets } = await next<ServerReport, 'ready'>(server, 'ready');
  const before = await ask({ type: 'measure' }, 'memory');

  const load = fork(path.join(path.dirname(self), 'live-load.ts'), [], {
    execArgv: ['--import', 'tsx'],
  });
  // PER_ACCESSORY sockets per account, each subscribed to the account's PER_SOCKET accessories.
  const sockets = targets.length * PER_ACCESSORY;
  const command: LoadCommand = { type: 'connect', url, targets, count: sockets };
  load.send(command);
  const { connected } = await next<LoadReport, 'connected'>(load, 'connected');
  const deadline = Date.now() + 120_000;
  while ((await ask({ type: 'stats' }, 'stats')).subscriptions < connected * PER_SOCKET) {
    if (Date.now() > deadline) throw new Error('the subscriptions did not all start');
    await sleep(200);
  }
  const after = await ask({ type: 'measure' }, 'memory');

  const rate = Number(values.rate);
  const seconds = Number(values.seconds);
  const published = await ask({ type: 'publish', rate, seconds }, 'published');
  await sleep(1000);
  const collected = next<LoadReport, 'receipts'>(load, 'receipts');
  load.send({ type: 'collect' } satisfies LoadCommand);
  const receipts = await collected;

  const committedAt = new Map<string, number>();
  published.eventIds.forEach((id, i) => committedAt.set(id, published.micros[i]!));
  const warmEnd = (published.micros[0] ?? 0) + WARMUP_S * 1e6;
  const latencies: number[] = [];
  receipts.eventIds.forEach((id, i) => {
    const at = committedAt.get(id);
    if (at !== undefined && at >= warmEnd) latencies.push((receipts.micros[i]! - at) / 1000);
  });
  latencies.sort((a, b) => a - b);

  load.send({ type: 'close' } satisfies LoadCommand);
  await next<LoadReport, 'closed'>(load, 'closed').catch(() => {});
  await ask({ type: 'stop' }, 'stopped').catch(() => {});
  server.kill();
  load.kill();
  return {
    kind,
    subscribers,
    connected,
    p50: quantile(latencies, 0.5),
    p99: quantile(latencies, 0.99),
    max: latencies.at(-1) ?? NaN,
    delivered: receipts.eventIds.length,
    expected: published.eventIds.length * PER_ACCESSORY,
    rssPerSubscriber: (after.rss - before.rss) / (connected * PER_SOCKET),
    heapPerSubscriber:
      (after.heapUsed + after.external - before.heapUsed - before.external) /
      (connected * PER_SOCKET),
    errors: receipts.errors,
  };
}

async function main(): Promise<void> {
  const sizes = values.sizes.split(',').map(Number);
  console.log(
    `live fan-out: ${PER_ACCESSORY} subscribers per accessory, ${PER_SOCKET} per socket, ${values.rate} changes/s (2 events each) for ${values.seconds} s, ` +
      `database: ${values.embedded ? 'embedded PGlite' : 'PostgreSQL'}; latency excludes the first ${WARMUP_S} s`,
  );
  const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
  const ms = (v: number) => `${v.toFixed(1)} ms`;
  const kinds: Kind[] = values.floor ? ['clipgate', 'bare', 'floor'] : ['clipgate', 'bare'];
  for (const size of sizes) {
    const found = new Map<Kind, Result>();
    for (const kind of kinds) {
      const r = await scenario(kind, size);
      found.set(kind, r);
      console.log(
        `${kind.padEnd(8)} ${String(size).padStart(6)} subscribers (${r.connected} sockets connected): ` +
          `p50 ${ms(r.p50)}, p99 ${ms(r.p99)}, max ${ms(r.max)}; delivered ${r.delivered}/${r.expected}` +
          `${r.errors ? `, ${r.errors} errors` : ''}; per subscriber: RSS ${kib(r.rssPerSubscriber)}, heap ${kib(r.heapPerSubscriber)}`,
      );
    }
    const [c, b, f] = [found.get('clipgate')!, found.get('bare')!, found.get('floor')];
    console.log(
      `ratio clipgate/bare at ${size}: p50 ${(c.p50 / b.p50).toFixed(2)}x, p99 ${(c.p99 / b.p99).toFixed(2)}x, ` +
        `RSS per subscriber ${(c.rssPerSubscriber / b.rssPerSubscriber).toFixed(2)}x, ` +
        `heap per subscriber ${(c.heapPerSubscriber / b.heapPerSubscriber).toFixed(2)}x` +
        `  (targets: p99 < 50 ms, memory per subscriber at most the bare server's)` +
        (f
          ? `; clipgate/floor: p50 ${(c.p50 / f.p50).toFixed(2)}x, p99 ${(c.p99 / f.p99).toFixed(2)}x`
          : ''),
    );
  }
}

if (values.role === 'server') await serverRole();
else await main();
