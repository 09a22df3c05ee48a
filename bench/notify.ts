// bench/notify: webhook delivery through the whole pipeline: ingest (the same service call the
// GraphQL mutations make, one transaction with its events) -> transactional outbox -> dispatcher
// -> signed POST -> a loopback receiver in its own process that verifies both signatures of
// every notification. Printed beside a bare undici POST loop to the same receiver (the ceiling),
// with the ratios, all in this one run, on a fresh database of the local PostgreSQL.
//
//   npm run bench:notify [-- --seconds 5 --concurrency 32 --fanout 1 --rate 200 --receivers 1
//                            --verify-every 1 --rounds 1 --only drain --cpu-prof <dir>]
//   BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test) names the server; a
//   database clipgate_bench_notify_<random> is created for the run and dropped after it.
//
// `--receivers N` spreads the accounts (and the backlog of phase 3) over N receiver origins (N
// ports of the receiver process): the dispatcher sends at most 16 attempts at once to one origin,
// so one receiver is the case where that bound, not the dispatcher's work, sets the pace.
//
// `--verify-every N` has the receiver verify one notification in N (every one by default). On
// two cores the receiver's verification competes with the service for the same CPU (an ed25519
// verification costs about three of its signatures): a larger N leaves the service's own cost.
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
// `--rounds N` runs the bare loop and the drain N times in turn (bare, drain, bare, drain...) and
// prints the median of the rounds' ratios; `--only drain` leaves out the other phases (2, 3b, 4).
// `--cpu-prof <dir>` writes a V8 CPU profile of each drain there (taken with the inspector in
// this process, so its CPU figures include the profiler's) and prints where the first one's time
// went.
import { spawn } from 'node:child_process';
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
import { verifyNotification } from '../src/notifications/receiver.ts';
import { notificationHeaders } from '../src/notifications/signing.ts';
import { met } from './lib/load.ts';
import { printProfile, type CpuProfile } from './lib/profile.ts';

const AUTH_KEY = 'bench-receiver-key-0123456789';
/** User and system CPU time of this process since `start` (process.cpuUsage()), in µs. */
const cpuSinceUs = (start: NodeJS.CpuUsage) => {
  const { user, system } = process.cpuUsage(start);
  return user + system;
};
const now = () => performance.timeOrigin + performance.now();

const { values } = parseArgs({
  options: {
    receiver: { type: 'boolean', default: false },
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
  },
});

if (values.receiver) await runReceiver();
else await runBench();

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

async function runBench(): Promise<void> {
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
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      new URL(import.meta.url).pathname,
      '--receiver',
      '--receivers',
      String(receivers),
      '--verify-every',
      values['verify-every'],
    ],
    {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    },
  );
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
  const profiler = await cpuProfiler(values['cpu-prof']);
  const receiverUrls = ports.map((port) => `http://127.0.0.1:${port}/hook`);
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

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
    const onlyDrain = values.only === 'drain';
    const piped = onlyDrain ? undefined : await pipeline();

    // (3) The dispatcher alone: a backlog queued in one statement (copies of a real delivery,
    // with the keys of its registration as they are now), drained to the receiver; the same
    // receiver and per-receiver concurrency as the ceiling (with `--receivers`, as many copies
    // for each, interleaved as a fleet's backlog would be).
    const drain = async () => {
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
                (SELECT DISTINCT ON (url) * FROM deliveries ORDER BY url, id DESC) d
                JOIN notification_registrations r
                  ON r.account_id = d.account_id AND r.client_id = d.client_id
          ORDER BY g, d.url`,
        [perReceiver],
      );
      // Transactions of the database: each statement outside one is one. A backend reports its
      // counts when idle, at most once a second: read after that long.
      const transactions = async () => {
        await sleep(1100);
        const { rows } = await services.db.pool.query<{ n: string }>(
          'SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = current_database()',
        );
        return Number(rows[0]!.n);
      };
      const transactionsBefore = await transactions();
      await profiler.start();
      const drainStart = performance.now();
      const cpuStart = process.cpuUsage();
      await services.db.pool.query("SELECT pg_notify('clipgate_deliveries', 'bench')");
      while (received - receivedBeforeDrain < backlogSize) await sleep(5);
      const rate = backlogSize / ((performance.now() - drainStart) / 1000);
      const cpuUs = cpuSinceUs(cpuStart) / backlogSize;
      await profiler.stop('drain');
      let polls = 0;
      while (++polls && (await pendingCount()) > 0) await sleep(20);
      // Less this bench's own: the first read, the notify and the polls.
      const statements = (await transactions()) - transactionsBefore - 2 - polls;
      return { rate, cpuUs, statements: (statements / backlogSize) * 1000 };
    };
    // Round 1 is the bare loop of phase 1 and this drain; each further round runs both again.
    const rounds = [{ bare: firstBare, drain: await drain() }];
    for (let i = 1; i < Number(values.rounds); i++) {
      rounds.push({ bare: await bare(), drain: await drain() });
    }
    const median = (xs: number[]) => xs.sort((x, y) => x - y)[Math.floor((xs.length - 1) / 2)]!;
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
      `\nclipgate webhook delivery, ${seconds} s per phase, PostgreSQL ${server.host}, ${receivers === 1 ? 'a receiver' : `${receivers} receivers`} verifying both signatures of ${values['verify-every'] === '1' ? 'every notification' : `one notification in ${values['verify-every']}`} in its own process\n`,
    );
    console.log(
      `bare undici POST loop (${connections} connections)     ${f(bareRps).padStart(7)} req/s   p50 ${f(firstBare.p50, 2)} ms  p99 ${f(firstBare.p99, 2)} ms`,
    );
    console.log(
      `dispatcher draining a backlog of ${backlogSize}          ${f(first.drain.rate).padStart(7)} deliveries/s   (${f(first.drain.rate / bareRps, 2)} x bare)`,
    );
    console.log(
      `  this process's CPU per delivery ${f(first.drain.cpuUs)} µs, per bare request ${f(firstBare.cpuUs)} µs (${f(first.drain.cpuUs / firstBare.cpuUs, 2)} x bare)`,
    );
    console.log(
      `  statements per 1000 deliveries ${f(median(rounds.map((r) => r.drain.statements)))} (the median of the rounds)`,
    );
    if (rounds.length > 1) {
      console.log(`bare loop and drain in turn, ${rounds.length} rounds:`);
      for (const [i, { bare: b, drain: d }] of rounds.entries()) {
        console.log(
          `  ${String(i + 1).padStart(2)}  bare ${f(b.rps).padStart(6)} req/s, ${f(b.cpuUs).padStart(3)} µs CPU per request   drain ${f(d.rate).padStart(6)} deliveries/s, ${f(d.cpuUs).padStart(3)} µs CPU per delivery   ${f(d.rate / b.rps, 2)} x bare, CPU ${f(d.cpuUs / b.cpuUs, 2)} x bare`,
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
  } finally {
    await http.close();
    await app.close();
    child.disconnect();
    child.kill();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
    await rm(dataDir, { recursive: true, force: true });
  }
}
