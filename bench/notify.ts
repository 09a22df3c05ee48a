// bench/notify: webhook delivery through the whole pipeline: ingest (the same service call the
// GraphQL mutations make, one transaction with its events) -> transactional outbox -> dispatcher
// -> signed POST -> a loopback receiver in its own process that verifies both signatures of
// every notification. Printed beside a bare undici POST loop to the same receiver (the ceiling),
// with the ratios, all in this one run, on a fresh database of the local PostgreSQL. Then the
// same backlog drain to each broker kind (MQTT, AMQP, NATS JetStream), each beside a bare
// client's publish loop to the same broker.
//
//   npm run bench:notify [-- --seconds 5 --concurrency 32 --fanout 1 --rate 200 --receivers 1
//                            --verify-every 1 --rounds 1 --only drain,mqtt,amqp,nats,brokers
//                            --cpu-prof <dir> --mqtt-url <url> --amqp-url <url> --nats-url <url>]
//   BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test) names the server; a
//   database clipgate_bench_notify_<random> is created for the run and dropped after it.
//
// `--receivers N` spreads the accounts (and the backlog of phase 3) over N receiver origins (N
// ports of the receiver process): the dispatcher sends at most 16 attempts at once to one origin,
// so one receiver is the case where that bound, not the dispatcher's work, sets the pace.
//
// `--verify-every N` has the receiver (and each broker's consumer) verify one notification in N
// (every one by default). On two cores the receiver's verification competes with the service for
// the same CPU (an ed25519 verification costs about three of its signatures): a larger N leaves
// the service's own cost.
//
// Phases: (1) the ceiling: `--connections` (16, the dispatcher's per-receiver limit) undici
// connections POSTing presigned notifications as fast as the receiver answers; (2) throughput:
// `--concurrency` ingest loops creating activities (each create commits activity_finished of
// the previous one and activity_created) for `--seconds`, deliveries counted at the receiver;
// (3) latency: motion events reported at `--rate` per second, open loop, from the ingest call's
// return (just after the commit) to the receiver's receipt. The backlog drain also prints the CPU
// time this process (the service runs in it) spent per delivery, beside what the bare loop spent
// per request in it: a ratio that other work on the machine moves less than it moves the rates.
//
// (5) Brokers: for each kind, a registration of that kind (a topic with the account and event
// type), a consumer in its own process (MQTT a QoS 0 subscription, AMQP a durable queue bound to
// a topic exchange, NATS a file-backed stream of the subjects and a subscription to them), and
// in turn: a bare client's publish loop (the same client library, options and receipt as the
// service's publisher, `--connections` publishes in flight on one connection, as the dispatcher
// allows one broker, each message signed as the service signs it and as large) for `--seconds`,
// and the drain of a backlog of `--backlog` copies of a real delivery, counted at the consumer.
// Each prints its rate and this process's CPU per publish or delivery. What a run creates at the
// brokers (exchange, queue, stream) is removed after it. `--mqtt-url` (default TEST_MQTT_URL or
// mqtt://127.0.0.1:1883), `--amqp-url` (TEST_AMQP_URL or amqp://guest:guest@127.0.0.1:5672) and
// `--nats-url` (TEST_NATS_URL or nats://127.0.0.1:4222) name the brokers; credentials in a URL
// become the registration's username and password.
//
// `--rounds N` runs the bare loop and the drain N times in turn (bare, drain, bare, drain...) and
// prints the median of the rounds' ratios. `--only` takes a list: `drain` (the webhook drain
// alone, without phases 2, 3b and 4, after a warm-up drain of a tenth of the backlog), `mqtt`,
// `amqp`, `nats` (that broker's drain), `brokers` (all three); left out, everything runs.
// `--cpu-prof <dir>` writes a V8 CPU profile of each drain and bare run there (taken with the
// inspector in this process, so its CPU figures include the profiler's) and prints where the
// first drain of each kind spent its time.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import os from 'node:os';
import path from 'node:path';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { Pool } from 'undici';
import { reportMotion } from '../src/activities/motion.ts';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { attemptRequest } from '../src/notifications/delivery/policy.ts';
import type { ClaimedDelivery } from '../src/notifications/delivery/queue/types.ts';
import { brokerTarget, type BrokerKind } from '../src/notifications/destinations/destination.ts';
import { verifyNotification } from '../src/notifications/receiver.ts';
import { notificationHeaders } from '../src/notifications/signing.ts';
import {
  barePublisher,
  brokerKinds,
  brokerReceipts,
  consumeBroker,
  defaultBrokerUrls,
  setUpBroker,
} from './lib/brokers.ts';
import { loadAverage, met, postgresCpuMs, postgresCpuSince } from './lib/load.ts';
import { printProfile, type CpuProfile } from './lib/profile.ts';

const AUTH_KEY = 'bench-receiver-key-0123456789';
/** User and system CPU time of this process since `start` (process.cpuUsage()), in µs. */
const cpuSinceUs = (start: NodeJS.CpuUsage) => {
  const { user, system } = process.cpuUsage(start);
  return user + system;
};
const now = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const { values } = parseArgs({
  options: {
    receiver: { type: 'boolean', default: false },
    consumer: { type: 'string' },
    consume: { type: 'string' },
    'broker-url': { type: 'string' },
    seconds: { type: 'string', default: '5' },
    concurrency: { type: 'string', default: '32' },
    connections: { type: 'string', default: '16' },
    fanout: { type: 'string', default: '1' },
    rate: { type: 'string', default: '200' },
    backlog: { type: 'string', default: '20000' },
    receivers: { type: 'string', default: '1' },
    'verify-every': { type: 'string', default: '1' },
    rounds: { type: 'string', default: '1' },
    only: { type: 'string' },
    'cpu-prof': { type: 'string' },
    'mqtt-url': { type: 'string', default: defaultBrokerUrls.mqtt },
    'amqp-url': { type: 'string', default: defaultBrokerUrls.amqp },
    'nats-url': { type: 'string', default: defaultBrokerUrls.nats },
  },
});

/**
 * The receiver process: verifies every notification (Standard Webhooks, v1 with the authKey or
 * v1a with the account's public keys the parent sends, and X-Vendor-Verify), answers 204 (401
 * for a bad signature) and reports [webhook-id, receipt time] to the parent. It listens on
 * `--receivers` ports, each a receiver origin of its own.
 */
async function runReceiver(): Promise<void> {
  let pending: [string, number][] = [];
  let bad = 0;
  let publicKeys = new Map<string, string[]>();
  const verifyEvery = Number(values['verify-every']);
  let received = 0;
  process.on('message', (message: { publicKeys?: [string, string[]][] }) => {
    if (message.publicKeys) publicKeys = new Map(message.publicKeys);
  });
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      pending.push([String(req.headers['webhook-id']), now()]);
      if (received++ % verifyEvery !== 0) {
        res.writeHead(204).end();
        return;
      }
      const { 'x-vendor-verify': vendor, ...standard } = req.headers;
      const keys = String(standard['webhook-signature']).startsWith('v1a,')
        ? (publicKeys.get((JSON.parse(raw.toString()) as { accountId: string }).accountId) ?? [])
        : [AUTH_KEY];
      const ok =
        keys.some((key) => verifyNotification(raw, standard, key).ok) &&
        verifyNotification(raw, { 'x-vendor-verify': vendor }, AUTH_KEY, {
          allowLegacyVendorHeader: true,
        }).ok;
      if (!ok) bad++;
      res.writeHead(ok ? 204 : 401).end();
    });
  };
  setInterval(() => {
    if (pending.length === 0 && bad === 0) return;
    process.send!({ receipts: pending, bad });
    pending = [];
    bad = 0;
  }, 20);
  const ports = await Promise.all(
    Array.from({ length: Number(values.receivers) }, async () => {
      const server = createServer(handle);
      server.keepAliveTimeout = 60_000;
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return (server.address() as AddressInfo).port;
    }),
  );
  process.send!({ ports });
  process.on('disconnect', () => process.exit(0));
}

/**
 * A broker's consumer process (`--consumer <kind>`): takes what the run publishes to the broker
 * (bench/lib/brokers.ts), verifies the Standard Webhooks signature of one message in
 * `--verify-every`, and reports to the parent every 20 ms how many it took since the last
 * report and how many of them did not verify (counts, not ids: the parent's CPU is the service's,
 * and the same for the bare loop and the drain). Says `{ready: true}` once it consumes.
 */
async function runConsumer(kind: BrokerKind): Promise<void> {
  const verifyEvery = Number(values['verify-every']);
  let taken = 0;
  let count = 0;
  let bad = 0;
  const stop = await consumeBroker(
    kind,
    values['broker-url']!,
    values.consume!,
    (body, headers) => {
      if (taken++ % verifyEvery === 0 && !verifyNotification(body, headers, AUTH_KEY).ok) bad++;
      count++;
    },
  );
  setInterval(() => {
    if (count === 0 && bad === 0) return;
    process.send!({ count, bad });
    count = 0;
    bad = 0;
  }, 20);
  process.send!({ ready: true });
  process.on('disconnect', () => void stop().finally(() => process.exit(0)));
}

/** This file in a child process of its own, with `args`, talking over IPC. */
const spawnSelf = (args: string[]): ChildProcess =>
  spawn(process.execPath, ['--import', 'tsx', new URL(import.meta.url).pathname, ...args], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });

/**
 * With a directory, V8 CPU profiles of what runs between `start` and `stop` in this process,
 * written there as `<name>-<n>.cpuprofile`, the first of each name kept; without, nothing.
 */
async function cpuProfiler(dir: string | undefined) {
  const session = new Session();
  const first: Record<string, CpuProfile> = {};
  const counts = new Map<string, number>();
  if (dir) {
    await mkdir(dir, { recursive: true });
    session.connect();
    await session.post('Profiler.enable');
  }
  return {
    first,
    start: async () => {
      if (dir) await session.post('Profiler.start');
    },
    stop: async (name: string) => {
      if (!dir) return;
      const { profile } = await session.post('Profiler.stop');
      const n = (counts.get(name) ?? 0) + 1;
      counts.set(name, n);
      first[name] ??= profile;
      await writeFile(path.join(dir, `${name}-${n}.cpuprofile`), JSON.stringify(profile));
    },
  };
}

function quantile(sorted: number[], q: number): number {
  return sorted.length === 0
    ? NaN
    : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

type Services = Awaited<ReturnType<typeof buildApp>>['services'];
type Profiler = Awaited<ReturnType<typeof cpuProfiler>>;

/** What `--only` leaves to run: the webhook phases (all, the drain alone, none) and broker kinds. */
function parseOnly(only: string | undefined): {
  webhook: 'all' | 'drain' | undefined;
  brokers: BrokerKind[];
} {
  if (only === undefined) return { webhook: 'all', brokers: [...brokerKinds] };
  const names = only.split(',').map((name) => name.trim());
  const known = ['drain', 'brokers', ...brokerKinds];
  const unknown = names.find((name) => !known.includes(name));
  if (unknown !== undefined) {
    throw new Error(`--only takes a list of ${known.join(', ')}; not '${unknown}'`);
  }
  return {
    webhook: names.includes('drain') ? 'drain' : undefined,
    brokers: brokerKinds.filter((kind) => names.includes(kind) || names.includes('brokers')),
  };
}

const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor((xs.length - 1) / 2)]!;

/** The database's transactions so far: each statement outside one is one. */
async function transactions(services: Services): Promise<number> {
  // A backend reports its counts when idle, at most once a second: read after that long.
  await sleep(1100);
  const { rows } = await services.db.pool.query<{ n: string }>(
    'SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = current_database()',
  );
  return Number(rows[0]!.n);
}

const pendingDeliveries = async (services: Services) =>
  Number(
    (await services.db.pool.query("SELECT count(*) AS n FROM deliveries WHERE state = 'pending'"))
      .rows[0].n,
  );

async function runBench(): Promise<void> {
  const only = parseOnly(values.only);
  const profiler = await cpuProfiler(values['cpu-prof']);
  // The receiver and the first run of the bare POST loop come before the database.
  const webhook = only.webhook ? await webhookBench(profiler, only.webhook === 'drain') : undefined;

  // A fresh database.
  const server = new URL(
    process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
  );
  const name = `clipgate_bench_notify_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: server.toString() });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const databaseUrl = new URL(server);
  databaseUrl.pathname = `/${name}`;

  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'clipgate-bench-notify-'));
  const config = loadConfig({
    PORT: '0',
    DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl.toString(),
    AUTH_DEV_SECRET: 'bench-secret-0123456789abcdef0123456789',
    SECRETS_KEY: randomBytes(32).toString('base64'),
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    LOG_LEVEL: 'warn',
  });
  const app = await buildApp(config, { logger: createLogger('warn') });
  const { services } = app;
  try {
    if (webhook) await webhook.run(services, server.host);
    const brokers: BrokerResult[] = [];
    for (const kind of only.brokers) brokers.push(await brokerBench(kind, services, profiler));
    if (brokers.length > 0) printBrokers(brokers, profiler);
    console.log(`\nNode ${process.version}, ${loadAverage()} at the end of the run`);
  } finally {
    await webhook?.close();
    await app.close();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
    await rm(dataDir, { recursive: true, force: true });
  }
}

/**
 * The webhook phases (1) to (4): the receiver and the first bare loop now, the rest in `run`
 * once the service is up.
 */
async function webhookBench(profiler: Profiler, onlyDrain: boolean) {
  const seconds = Number(values.seconds);
  const concurrency = Number(values.concurrency);
  const connections = Number(values.connections);
  const fanout = Number(values.fanout);
  const rate = Number(values.rate);
  const receivers = Number(values.receivers);
  // The backlog is queued as as many copies for each receiver.
  const perReceiver = Math.ceil(Number(values.backlog) / receivers);
  const backlogSize = perReceiver * receivers;

  // The receiver, in its own process.
  const child = spawnSelf([
    '--receiver',
    '--receivers',
    String(receivers),
    '--verify-every',
    values['verify-every'],
  ]);
  const receipts = new Map<string, number>();
  let received = 0;
  let lastReceiptAt = 0;
  let badSignatures = 0;
  const ports = await new Promise<number[]>((resolve, reject) => {
    child.on(
      'message',
      (message: { ports?: number[]; receipts?: [string, number][]; bad?: number }) => {
        if (message.ports) resolve(message.ports);
        for (const [id, at] of message.receipts ?? []) {
          received++;
          lastReceiptAt = Math.max(lastReceiptAt, at);
          if (!receipts.has(id)) receipts.set(id, at);
        }
        badSignatures += message.bad ?? 0;
      },
    );
    child.once('exit', (code) => reject(new Error(`the receiver exited with ${code}`)));
  });
  const receiverUrls = ports.map((port) => `http://127.0.0.1:${port}/hook`);

  // (1) The ceiling: a bare undici POST loop, notification-sized presigned bodies.
  const body = Buffer.from(
    JSON.stringify({
      accountId: randomUUID(),
      eventType: 'activity_created',
      eventData: {
        activityId: '20261121T204117Z',
        accessoryId: randomUUID(),
        startTime: new Date().toISOString(),
        endTime: null,
        playbackDuration: null,
        relevanceLevel: 1,
        inProgress: true,
        motionZones: ['z1'],
        objectLocations: [3, 4],
      },
    }),
  );
  const http = new Pool(`http://127.0.0.1:${ports[0]}`, { connections });
  let bareLatencies: number[] = [];
  let bareCount = 0;
  const bareFor = async (ms: number, record: boolean) => {
    const until = performance.now() + ms;
    await Promise.all(
      Array.from({ length: connections }, async () => {
        while (performance.now() < until) {
          const started = performance.now();
          const headers = await notificationHeaders({
            body,
            keys: { authKey: AUTH_KEY },
            webhookId: `bare-${bareCount}`,
            timestamp: Math.floor(Date.now() / 1000),
            userAgent: 'bench',
          });
          const res = await http.request({ path: '/hook', method: 'POST', headers, body });
          await res.body.dump();
          if (record) {
            bareCount++;
            bareLatencies.push(performance.now() - started);
          }
        }
      }),
    );
  };
  /** One run of the bare loop after a second's warm-up: its rate and CPU time per request. */
  const bare = async () => {
    await bareFor(1000, false);
    bareCount = 0;
    bareLatencies = [];
    await profiler.start();
    const start = performance.now();
    const cpuStart = process.cpuUsage();
    await bareFor(seconds * 1000, true);
    const rps = bareCount / ((performance.now() - start) / 1000);
    const cpuUs = cpuSinceUs(cpuStart) / bareCount;
    await profiler.stop('bare');
    bareLatencies.sort((a, b) => a - b);
    await sleep(100);
    return { rps, cpuUs, p50: quantile(bareLatencies, 0.5), p99: quantile(bareLatencies, 0.99) };
  };
  const firstBare = await bare();
  const bareRps = firstBare.rps;
  receipts.clear();
  received = 0;

  const run = async (services: Services, databaseHost: string) => {
    // One account per ingest loop, each with one accessory and `fanout` registered clients, the
    // accounts' receivers taken in turn.
    const accessories: string[] = [];
    const registrations: { accountId: string; clientId: string; url: string }[] = [];
    const eventTypes = ['activity_created', 'activity_finished', 'motion_started', 'motion_ended'];
    for (let i = 0; i < concurrency; i++) {
      const account = await services.accounts.upsert(`bench-${i}`, 30);
      const accessory = await services.accessories.associate(
        account.accountId,
        `cam-${i}`,
        `cam ${i}`,
      );
      accessories.push(accessory.accessoryId);
      for (let c = 0; c < fanout; c++) {
        const registration = {
          accountId: account.accountId,
          clientId: `client-${c}`,
          url: receiverUrls[i % receivers]!,
        };
        registrations.push(registration);
        await services.notifications.register(
          registration,
          { url: registration.url, authKey: AUTH_KEY, eventTypes },
          true,
        );
      }
    }

    // (2) Throughput: closed-loop ingest on every accessory for `seconds`.
    const pendingCount = async () =>
      Number(
        (
          await services.db.pool.query(
            "SELECT count(*) AS n FROM deliveries WHERE state = 'pending'",
          )
        ).rows[0].n,
      );
    let created = 0;
    let ingestErrors = 0;
    const base = Date.now() - 10 * 86_400_000;
    // Each loop's creates a second apart, on from where its previous phase stopped: a create must
    // be newer than its accessory's newest activity.
    const steps = accessories.map(() => 0);
    const ingestFor = async (ms: number) => {
      const until = performance.now() + ms;
      await Promise.all(
        accessories.map(async (accessoryId, i) => {
          while (performance.now() < until) {
            try {
              await services.activities.create(accessoryId, {
                createdAt: new Date(base + steps[i]!++ * 1000),
                relevanceLevel: 1,
              });
              created++;
            } catch {
              ingestErrors++;
            }
          }
        }),
      );
    };
    await ingestFor(1000); // warm-up
    const warmDeliveries = (
      await services.db.pool.query('SELECT count(*)::int AS n FROM deliveries')
    ).rows[0].n as number;
    while ((await pendingCount()) > 0) await sleep(50);
    // Measured unless `--only drain`.
    const pipeline = async () => {
      const receivedBefore = received;
      const createdBefore = created;
      const start = performance.now();
      const startedAt = now();
      await ingestFor(seconds * 1000);
      const ingestMs = performance.now() - start;
      const receivedInWindow = received - receivedBefore;
      const events = (created - createdBefore) * 2;
      const backlog = await pendingCount();
      // Done when nothing is pending, and timed to the last receipt: the count walks the queue,
      // so it is asked rarely, not to load the database being measured (the receiver reports its
      // receipts every 20 ms).
      while ((await pendingCount()) > 0) await sleep(250);
      await sleep(50);
      const drainedMs = lastReceiptAt - startedAt;
      const totalDeliveries =
        (await services.db.pool.query('SELECT count(*)::int AS n FROM deliveries')).rows[0].n -
        warmDeliveries;
      const sustained = receivedInWindow / (ingestMs / 1000);
      const throughput = totalDeliveries / (drainedMs / 1000);
      return {
        events: events / (ingestMs / 1000),
        transactions: (created - createdBefore) / (ingestMs / 1000),
        sustained,
        throughput,
        backlog,
      };
    };
    const piped = onlyDrain ? undefined : await pipeline();

    // (3) The dispatcher alone: a backlog queued in one statement (copies of a real delivery,
    // with the keys of its registration as they are now), drained to the receiver; the same
    // receiver and per-receiver concurrency as the ceiling (with `--receivers`, as many copies
    // for each, interleaved as a fleet's backlog would be). `copies` per receiver; `measured`
    // false: a warm-up, whose figures are not kept.
    const drain = async (copies = perReceiver, measured = true) => {
      const size = copies * receivers;
      await sleep(200);
      const receivedBeforeDrain = received;
      await services.db.pool.query(
        `INSERT INTO deliveries (kind, event_id, account_id, client_id, event_type, event_data,
                                 user_data, url, origin, auth_key, previous_auth_key,
                                 previous_key_until, signing_key, previous_signing_key)
         SELECT d.kind, d.event_id, d.account_id, d.client_id, d.event_type, d.event_data,
                d.user_data, d.url, d.origin, r.auth_key, r.previous_auth_key,
                r.previous_key_until, r.signing_key, r.previous_signing_key
           FROM generate_series(1, $1) g,
                (SELECT DISTINCT ON (url) * FROM deliveries WHERE destination IS NULL
                  ORDER BY url, id DESC) d
                JOIN notification_registrations r
                  ON r.account_id = d.account_id AND r.client_id = d.client_id
          ORDER BY g, d.url`,
        [copies],
      );
      const transactionsBefore = await transactions(services);
      if (measured) await profiler.start();
      const drainStart = performance.now();
      const cpuStart = process.cpuUsage();
      const postgresStart = postgresCpuMs();
      await services.db.pool.query("SELECT pg_notify('clipgate_deliveries', 'bench')");
      while (received - receivedBeforeDrain < size) await sleep(5);
      const rate = size / ((performance.now() - drainStart) / 1000);
      const cpuUs = cpuSinceUs(cpuStart) / size;
      const postgresUs = (postgresCpuSince(postgresStart) * 1000) / size;
      if (measured) await profiler.stop('drain');
      let polls = 0;
      while (++polls && (await pendingCount()) > 0) await sleep(20);
      // Less this bench's own: the first read, the notify and the polls.
      const statements = (await transactions(services)) - transactionsBefore - 2 - polls;
      return { rate, cpuUs, postgresUs, statements: (statements / size) * 1000 };
    };
    // Without phase 2 before it, the dispatcher's first drain would run on cold code: a drain of
    // a tenth of the backlog first, as each broker's (phase 5).
    if (onlyDrain) await drain(Math.ceil(perReceiver / 10), false);
    // Round 1 is the bare loop of phase 1 and this drain; each further round runs both again.
    const rounds = [{ bare: firstBare, drain: await drain() }];
    for (let i = 1; i < Number(values.rounds); i++) {
      rounds.push({ bare: await bare(), drain: await drain() });
    }
    const rateRatio = median(rounds.map((r) => r.drain.rate / r.bare.rps));
    const cpuRatio = median(rounds.map((r) => r.drain.cpuUs / r.bare.cpuUs));

    // (3b) The same drain per signing mode, A B C C B A: HMAC, a rotation's overlap (two v1
    // signatures; rotated to the same key, so that the receiver's checks stay the same) and
    // ed25519 (v1a, verified with each account's public key).
    type Signing = 'hmac' | 'rotation' | 'ed25519';
    const setSigning = async (mode: Signing) => {
      const publicKeys = new Map<string, string[]>();
      for (const { url, ...caller } of registrations) {
        const registered = await services.notifications.register(
          caller,
          { url, authKey: AUTH_KEY, eventTypes, signing: mode === 'ed25519' ? 'ed25519' : null },
          true,
        );
        if (mode === 'rotation') {
          await services.notifications.rotate(caller, { authKey: AUTH_KEY, overlapSeconds: 3600 });
        }
        if (registered.publicKey) {
          publicKeys.set(caller.accountId, [
            ...(publicKeys.get(caller.accountId) ?? []),
            registered.publicKey,
          ]);
        }
      }
      child.send({ publicKeys: [...publicKeys] });
    };
    const signingPhase = async () => {
      const signingRates: Record<Signing, number[]> = { hmac: [], rotation: [], ed25519: [] };
      const signingCpu: Record<Signing, number[]> = { hmac: [], rotation: [], ed25519: [] };
      // A B C C B A: each mode runs as early as late on average, so that what changes along the
      // run (the tables' growth, a checkpoint) does not favour the first.
      for (const order of [
        ['hmac', 'rotation', 'ed25519'],
        ['ed25519', 'rotation', 'hmac'],
      ] as const) {
        for (const mode of order) {
          await setSigning(mode);
          const { rate, cpuUs } = await drain();
          signingRates[mode].push(rate);
          signingCpu[mode].push(cpuUs);
        }
      }
      const mean = (rates: number[]) => rates.reduce((a, b) => a + b, 0) / rates.length;
      return {
        rates: signingRates,
        rate: (mode: Signing) => mean(signingRates[mode]),
        cpuUs: (mode: Signing) => mean(signingCpu[mode]),
      };
    };
    const signing = onlyDrain ? undefined : await signingPhase();

    // (4) Latency at a fixed rate: motion events, open loop.
    const latencyPhase = async () => {
      await sleep(200);
      receipts.clear();
      const committed = new Map<string, number>();
      const latencyMs = seconds * 1000;
      const interval = 1000 / rate;
      const tasks: Promise<void>[] = [];
      const latencyStart = performance.now();
      for (let i = 0; performance.now() - latencyStart < latencyMs; i++) {
        const due = latencyStart + i * interval;
        const wait = due - performance.now();
        if (wait > 1) await sleep(wait);
        const accessoryId = accessories[i % accessories.length]!;
        tasks.push(
          reportMotion(services, {
            accessoryId,
            state: i % 2 === 0 ? 'started' : 'ended',
            at: new Date(),
            motionZones: ['z1'],
          }).then((event) => {
            committed.set(event.eventId, now());
          }),
        );
      }
      await Promise.all(tasks);
      const offered = tasks.length / (latencyMs / 1000);
      for (let i = 0; i < 200 && [...committed.keys()].some((id) => !receipts.has(id)); i++)
        await sleep(25);
      const latencies = [...committed]
        .map(([id, at]) => (receipts.get(id) ?? NaN) - at)
        .filter(Number.isFinite)
        .sort((a, b) => a - b);
      const lost = committed.size - latencies.length;
      return { offered, latencies, lost };
    };
    const latency = onlyDrain ? undefined : await latencyPhase();

    const f = (n: number, digits = 0) => n.toFixed(digits);
    const first = rounds[0]!;
    console.log(
      `\nclipgate webhook delivery, ${seconds} s per phase, PostgreSQL ${databaseHost}, ${receivers === 1 ? 'a receiver' : `${receivers} receivers`} verifying both signatures of ${values['verify-every'] === '1' ? 'every notification' : `one notification in ${values['verify-every']}`} in its own process\n`,
    );
    console.log(
      `bare undici POST loop (${connections} connections)     ${f(bareRps).padStart(7)} req/s   p50 ${f(firstBare.p50, 2)} ms  p99 ${f(firstBare.p99, 2)} ms`,
    );
    console.log(
      `dispatcher draining a backlog of ${backlogSize}          ${f(first.drain.rate).padStart(7)} deliveries/s   (${f(first.drain.rate / bareRps, 2)} x bare)`,
    );
    console.log(
      `  this process's CPU per delivery ${f(first.drain.cpuUs)} µs, per bare request ${f(firstBare.cpuUs)} µs (${f(first.drain.cpuUs / firstBare.cpuUs, 2)} x bare); PostgreSQL's per delivery ${f(first.drain.postgresUs)} µs`,
    );
    console.log(
      `  statements per 1000 deliveries ${f(median(rounds.map((r) => r.drain.statements)))} (the median of the rounds)`,
    );
    if (rounds.length > 1) {
      console.log(`bare loop and drain in turn, ${rounds.length} rounds:`);
      for (const [i, { bare: b, drain: d }] of rounds.entries()) {
        console.log(
          `  ${String(i + 1).padStart(2)}  bare ${f(b.rps).padStart(6)} req/s, ${f(b.cpuUs).padStart(3)} µs CPU per request   drain ${f(d.rate).padStart(6)} deliveries/s, ${f(d.cpuUs).padStart(3)} µs CPU per delivery (PostgreSQL ${f(d.postgresUs)} µs, ${f(d.statements)} statements per 1000)   ${f(d.rate / b.rps, 2)} x bare, CPU ${f(d.cpuUs / b.cpuUs, 2)} x bare`,
        );
      }
      console.log(
        `  median   drain ${f(rateRatio, 2)} x bare, CPU per delivery ${f(cpuRatio, 2)} x bare`,
      );
    }
    if (profiler.first.drain) {
      console.log(`\nthe first drain under the profiler (all in ${values['cpu-prof']}):`);
      printProfile(profiler.first.drain);
    }
    if (signing) {
      const { rate, cpuUs } = signing;
      const rates = (mode: Signing) => signing.rates[mode].map((r) => f(r)).join(', ');
      console.log(
        `the same drain by signing, A B C C B A (mean of 2):\n` +
          `  hmac-sha256                              ${f(rate('hmac')).padStart(7)} deliveries/s   ${f(cpuUs('hmac')).padStart(3)} µs CPU each (${rates('hmac')})\n` +
          `  rotation overlap, two v1 signatures      ${f(rate('rotation')).padStart(7)} deliveries/s   ${f(cpuUs('rotation')).padStart(3)} µs CPU each (${f(rate('rotation') / rate('hmac'), 2)} x hmac; ${rates('rotation')})\n` +
          `  ed25519, v1a                             ${f(rate('ed25519')).padStart(7)} deliveries/s   ${f(cpuUs('ed25519')).padStart(3)} µs CPU each (${f(rate('ed25519') / rate('hmac'), 2)} x hmac; ${rates('ed25519')})`,
      );
    }
    if (piped) {
      console.log(`pipeline, ${concurrency} ingest loops, fan-out ${fanout}:`);
      console.log(
        `  ingested                                 ${f(piped.events).padStart(7)} events/s (${f(piped.transactions)} transactions/s)`,
      );
      console.log(
        `  delivered while ingesting                ${f(piped.sustained).padStart(7)} deliveries/s   (${f(piped.sustained / bareRps, 2)} x bare)`,
      );
      console.log(
        `  delivered, ingest to last receipt        ${f(piped.throughput).padStart(7)} deliveries/s   (${f(piped.throughput / bareRps, 2)} x bare; backlog ${piped.backlog} when ingest stopped)`,
      );
    }
    if (latency) {
      const { offered, latencies, lost } = latency;
      console.log(
        `latency at ${rate} events/s (offered ${f(offered)}), commit -> receipt:  p50 ${f(quantile(latencies, 0.5), 2)} ms  p99 ${f(quantile(latencies, 0.99), 2)} ms  max ${f(latencies.at(-1) ?? NaN, 2)} ms  (${latencies.length} events${lost ? `, ${lost} not received` : ''})`,
      );
    }
    console.log(
      `receipts ${received} with bad signatures ${badSignatures}; ingest errors ${ingestErrors}`,
    );
    const targets = [
      `backlog drain >= 10000 deliveries/s: ${met(rounds[0]!.drain.rate >= 10_000)}`,
      `drain >= 0.45 x bare: ${met(rateRatio >= 0.45)}`,
      `CPU per delivery <= 1.8 x a bare request's: ${met(cpuRatio <= 1.8)}`,
      ...(piped ? [`end to end >= 3000 deliveries/s: ${met(piped.throughput >= 3000)}`] : []),
      ...(latency
        ? [`p99 < 100 ms at ${rate}/s: ${met(quantile(latency.latencies, 0.99) < 100)}`]
        : []),
      ...(signing
        ? [
            `rotation and ed25519 within 10 % of hmac: ${met(signing.rate('rotation') >= 0.9 * signing.rate('hmac') && signing.rate('ed25519') >= 0.9 * signing.rate('hmac'))}`,
          ]
        : []),
    ];
    console.log(
      `targets${rounds.length > 1 ? ' (medians of the rounds)' : ''}: ${targets.join('; ')}`,
    );
  };
  return {
    run,
    close: async () => {
      await http.close();
      child.disconnect();
      child.kill();
    },
  };
}

/** One bare loop or drain: its rate per second, and this process's CPU per message in µs. */
interface Run {
  rate: number;
  cpuUs: number;
  /** ms from the publish to its receipt: the bare loop's, or the drain's attempts' (logged in whole ms) */
  p50: number;
  p99: number;
}

interface BrokerResult {
  kind: BrokerKind;
  /** The broker's URL, without credentials, and what it says it is. */
  url: string;
  server: string;
  bodyBytes: number;
  rounds: { bare: Run; drain: Run & { statements: number; postgresUs: number } }[];
  /** Messages of the drains the consumer did not take (it waited 10 s without one). */
  lost: number;
  bad: number;
  /** The drains' attempts that failed, by error and message. */
  failed: { error: string; message: string; n: number }[];
}

/** How long a consumer may take nothing before what it has not taken counts as lost. */
const STALL_MS = 10_000;

/**
 * (5) A broker kind: a registration of that kind, a consumer in its own process, and in turn
 * `--rounds` times the bare client's publish loop and the drain of a backlog (after a drain
 * of a tenth of it to warm the dispatcher's path to the broker).
 */
async function brokerBench(
  kind: BrokerKind,
  services: Services,
  profiler: Profiler,
): Promise<BrokerResult> {
  const seconds = Number(values.seconds);
  const connections = Number(values.connections);
  const backlog = Number(values.backlog);
  const url = values[`${kind}-url`]!;
  const fixture = await setUpBroker(kind, url, `clipgate-bench-${randomBytes(4).toString('hex')}`);
  const consumed = { count: 0, bad: 0 };
  const consumer = spawnSelf([
    '--consumer',
    kind,
    '--broker-url',
    url,
    '--consume',
    fixture.consume,
    '--verify-every',
    values['verify-every'],
  ]);
  const exited = new Promise<number | null>((resolve) => consumer.once('exit', resolve));
  let bare: Awaited<ReturnType<typeof barePublisher>> | undefined;
  try {
    await new Promise<void>((resolve, reject) => {
      consumer.on('message', (message: { ready?: boolean; count?: number; bad?: number }) => {
        if (message.ready) resolve();
        consumed.count += message.count ?? 0;
        consumed.bad += message.bad ?? 0;
      });
      void exited.then((code) => reject(new Error(`the ${kind} consumer exited with ${code}`)));
    });
    /** What the consumer should have taken so far: every publish acknowledged, every delivery. */
    let published = 0;
    let lost = 0;
    /**
     * Waits until the consumer took `published` (less what was lost before) and nothing is
     * pending; what it has not taken once it took nothing for STALL_MS is lost.
     */
    const settle = async () => {
      let seen = consumed.count;
      let seenAt = performance.now();
      while (consumed.count < published - lost) {
        await sleep(20);
        if (consumed.count !== seen) [seen, seenAt] = [consumed.count, performance.now()];
        else if (performance.now() - seenAt > STALL_MS) lost = published - consumed.count;
      }
      while ((await pendingDeliveries(services)) > 0) await sleep(50);
    };

    // The registration, and a first delivery through it: the service opens its connection.
    const account = await services.accounts.upsert(`bench-${kind}`, 30);
    const accessory = await services.accessories.associate(
      account.accountId,
      `cam-${kind}`,
      `cam ${kind}`,
    );
    const caller = { accountId: account.accountId, clientId: `bench-${kind}` };
    await services.notifications.register(
      caller,
      { ...fixture.destination, authKey: AUTH_KEY, eventTypes: ['activity_created'] },
      true,
    );
    await services.activities.create(accessory.accessoryId, {
      createdAt: new Date(),
      relevanceLevel: 1,
    });
    // Its first attempt: delivered, or the run stops with what the broker said.
    const first = async () =>
      (
        await services.db.pool.query<ClaimedDelivery & { state: string; failure: string | null }>(
          `SELECT d.*, (SELECT a.error_message FROM delivery_attempts a WHERE a.delivery_id = d.id
                         ORDER BY a.attempt DESC LIMIT 1) AS failure
             FROM deliveries d WHERE d.account_id = $1 AND d.client_id = $2
            ORDER BY d.id DESC LIMIT 1`,
          [caller.accountId, caller.clientId],
        )
      ).rows[0];
    let delivery = await first();
    for (let i = 0; delivery?.state === 'pending' && delivery.failure === null && i < 300; i++) {
      await sleep(50);
      delivery = await first();
    }
    if (delivery?.state !== 'delivered') {
      throw new Error(
        `the first delivery to ${kind} is ${delivery?.state ?? 'not queued'}: ${delivery?.failure ?? 'no attempt within 15 s'}`,
      );
    }
    published++;
    await settle();
    // The body and topic of the deliveries, as the service makes them.
    const body = Buffer.from(attemptRequest(delivery, { authKey: AUTH_KEY }).body);
    const { topic } = brokerTarget(delivery, delivery.destination!, null);

    // The bare client: `connections` publishes in flight on one connection, each signed.
    bare = await barePublisher(kind, url, fixture.destination.exchange);
    const publisher = bare;
    let bareId = 0;
    const bareFor = async (ms: number) => {
      const until = performance.now() + ms;
      const latencies: number[] = [];
      await Promise.all(
        Array.from({ length: connections }, async () => {
          while (performance.now() < until) {
            const started = performance.now();
            const id = `bare-${bareId++}`;
            const signed = await notificationHeaders({
              body,
              keys: { authKey: AUTH_KEY },
              webhookId: id,
              timestamp: Math.floor(Date.now() / 1000),
              userAgent: 'bench',
            });
            const headers = {
              'content-type': 'application/json',
              'webhook-id': id,
              'webhook-timestamp': signed['webhook-timestamp']!,
              'webhook-signature': signed['webhook-signature']!,
            };
            await publisher.publish(topic, { id, headers, body });
            latencies.push(performance.now() - started);
            published++;
          }
        }),
      );
      return latencies.sort((a, b) => a - b);
    };
    /** One run of the bare loop after a second's warm-up. */
    const bareRun = async (): Promise<Run> => {
      await settle();
      await bareFor(1000);
      await profiler.start();
      const start = performance.now();
      const cpuStart = process.cpuUsage();
      const latencies = await bareFor(seconds * 1000);
      const rate = latencies.length / ((performance.now() - start) / 1000);
      const cpuUs = cpuSinceUs(cpuStart) / latencies.length;
      await profiler.stop(`${kind}-bare`);
      return { rate, cpuUs, p50: quantile(latencies, 0.5), p99: quantile(latencies, 0.99) };
    };

    // The drain: `size` copies of the delivery, with the keys and destination of its
    // registration, each with an event id (and so a webhook-id, and a Nats-Msg-Id) of its own.
    let eventIds = 10n ** 15n;
    const drain = async (size: number, measured: boolean) => {
      await settle();
      await sleep(200);
      await services.db.pool.query(
        `INSERT INTO deliveries (kind, event_id, account_id, client_id, event_type, event_data,
                                 user_data, url, origin, auth_key, previous_auth_key,
                                 previous_key_until, signing_key, previous_signing_key,
                                 destination)
         SELECT d.kind, $2::bigint + g, d.account_id, d.client_id, d.event_type, d.event_data,
                d.user_data, r.url, d.origin, r.auth_key, r.previous_auth_key,
                r.previous_key_until, r.signing_key, r.previous_signing_key, r.destination
           FROM generate_series(1, $1) g, deliveries d
                JOIN notification_registrations r
                  ON r.account_id = d.account_id AND r.client_id = d.client_id
          WHERE d.id = $3
          ORDER BY g`,
        [size, String(eventIds), delivery.id],
      );
      const ids = [String(eventIds), String(eventIds + BigInt(size))];
      eventIds += BigInt(size);
      const before = consumed.count;
      const transactionsBefore = await transactions(services);
      if (measured) await profiler.start();
      const start = performance.now();
      const cpuStart = process.cpuUsage();
      const postgresStart = postgresCpuMs();
      await services.db.pool.query("SELECT pg_notify('clipgate_deliveries', 'bench')");
      let seen = before;
      let seenAt = start;
      while (consumed.count - before < size && performance.now() - seenAt < STALL_MS) {
        await sleep(5);
        if (consumed.count !== seen) [seen, seenAt] = [consumed.count, performance.now()];
      }
      const taken = Math.min(size, consumed.count - before);
      const rate = taken / ((seenAt - start) / 1000);
      const cpuUs = cpuSinceUs(cpuStart) / taken;
      const postgresUs = (postgresCpuSince(postgresStart) * 1000) / taken;
      if (measured) await profiler.stop(`${kind}-drain`);
      published += size;
      let polls = 0;
      while (++polls && (await pendingDeliveries(services)) > 0) await sleep(20);
      // Less this bench's own: the first read, the notify and the polls.
      const statements = (await transactions(services)) - transactionsBefore - 2 - polls;
      const { rows } = await services.db.pool.query<{ p50: number; p99: number }>(
        `SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY a.duration_ms) AS p50,
                percentile_cont(0.99) WITHIN GROUP (ORDER BY a.duration_ms) AS p99
           FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id
          WHERE d.account_id = $1 AND d.event_id > $2 AND d.event_id <= $3`,
        [caller.accountId, ...ids],
      );
      return { rate, cpuUs, postgresUs, statements: (statements / size) * 1000, ...rows[0]! };
    };

    await drain(Math.ceil(backlog / 10), false);
    const rounds: BrokerResult['rounds'] = [];
    for (let i = 0; i < Number(values.rounds); i++) {
      rounds.push({ bare: await bareRun(), drain: await drain(backlog, true) });
    }
    await settle();
    const { rows: failed } = await services.db.pool.query<{
      error: string;
      message: string;
      n: number;
    }>(
      `SELECT a.error, a.error_message AS message, count(*)::int AS n
         FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id
        WHERE d.account_id = $1 AND a.outcome <> 'accepted'
        GROUP BY 1, 2 ORDER BY 3 DESC`,
      [caller.accountId],
    );
    return {
      kind,
      url: fixture.destination.url,
      server: fixture.server,
      bodyBytes: body.byteLength,
      rounds,
      lost,
      bad: consumed.bad,
      failed,
    };
  } finally {
    await bare?.close().catch(() => {});
    if (consumer.connected) consumer.disconnect();
    await Promise.race([exited, sleep(5000)]);
    consumer.kill();
    await fixture.tearDown();
  }
}

/** The broker drains' figures: each round, the medians, a table to paste, the targets. */
function printBrokers(results: BrokerResult[], profiler: Profiler): void {
  const f = (n: number, digits = 0) =>
    n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
  const connections = values.connections;
  const verified =
    values['verify-every'] === '1' ? 'every message' : `one message in ${values['verify-every']}`;
  console.log(
    `\nbroker drains: ${connections} publishes in flight (the dispatcher's per-broker limit) on one connection, backlogs of ${f(Number(values.backlog))}, bare loops of ${values.seconds} s; a consumer per broker in its own process verifying ${verified}`,
  );
  const medians = results.map((r) => ({
    ...r,
    bare: median(r.rounds.map((x) => x.bare.rate)),
    drain: median(r.rounds.map((x) => x.drain.rate)),
    bareCpu: median(r.rounds.map((x) => x.bare.cpuUs)),
    drainCpu: median(r.rounds.map((x) => x.drain.cpuUs)),
    postgresUs: median(r.rounds.map((x) => x.drain.postgresUs)),
    ratio: median(r.rounds.map((x) => x.drain.rate / x.bare.rate)),
    cpuRatio: median(r.rounds.map((x) => x.drain.cpuUs / x.bare.cpuUs)),
    statements: median(r.rounds.map((x) => x.drain.statements)),
  }));
  for (const r of medians) {
    console.log(
      `${r.kind} at ${r.url}, ${r.server}: ${brokerReceipts[r.kind]}; bodies of ${r.bodyBytes} bytes`,
    );
    for (const [i, { bare, drain }] of r.rounds.entries()) {
      console.log(
        `  ${String(i + 1).padStart(2)}  bare ${f(bare.rate).padStart(6)} publishes/s, ${f(bare.cpuUs).padStart(3)} µs CPU each, p50 ${f(bare.p50, 1)} p99 ${f(bare.p99, 1)} ms   drain ${f(drain.rate).padStart(6)} deliveries/s, ${f(drain.cpuUs).padStart(3)} µs CPU each (PostgreSQL ${f(drain.postgresUs)}), attempts p50 ${f(drain.p50)} p99 ${f(drain.p99)} ms   ${f(drain.rate / bare.rate, 2)} x bare, CPU ${f(drain.cpuUs / bare.cpuUs, 2)} x bare`,
      );
    }
    const failed = r.failed.reduce((n, x) => n + x.n, 0);
    console.log(
      `  ${r.rounds.length > 1 ? 'median   ' : ''}drain ${f(r.ratio, 2)} x bare, CPU per delivery ${f(r.cpuRatio, 2)} x bare; statements per 1000 deliveries ${f(r.statements)}; failed attempts ${failed}, lost ${r.lost}, bad signatures ${r.bad}`,
    );
    for (const x of r.failed.slice(0, 3)) console.log(`    ${x.n} x ${x.error}: ${x.message}`);
    const profile = profiler.first[`${r.kind}-drain`];
    if (profile) {
      console.log(`  the first ${r.kind} drain under the profiler (all in ${values['cpu-prof']}):`);
      printProfile(profile);
    }
  }
  const rows = medians.map((r) => [
    r.kind,
    r.server,
    f(r.bare),
    f(r.drain),
    f(r.ratio, 2),
    f(r.bareCpu),
    f(r.drainCpu),
    f(r.cpuRatio, 2),
    f(r.postgresUs),
  ]);
  const header = [
    'kind',
    'broker',
    'bare loop, publishes/s',
    'drain, deliveries/s',
    'drain / bare',
    'CPU per publish, µs',
    'CPU per delivery, µs',
    'CPU / bare',
    'PostgreSQL per delivery, µs',
  ];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ')} |`;
  console.log(`\n${line(header)}`);
  console.log(
    `| ${widths.map((w, i) => (i < 2 ? '-'.repeat(w) : `${'-'.repeat(w - 1)}:`)).join(' | ')} |`,
  );
  for (const row of rows) console.log(line(row));
  console.log(
    `\ntargets${results[0]!.rounds.length > 1 ? ' (medians of the rounds)' : ''}: ${medians
      .map((r) => `${r.kind} drain >= 0.5 x bare: ${met(r.ratio >= 0.5 && r.lost === 0)}`)
      .join('; ')}`,
  );
}

// Last, once every constant above is set.
if (values.receiver) await runReceiver();
else if (values.consumer) await runConsumer(values.consumer as BrokerKind);
else await runBench();
