import pg from 'pg';
import { freshPostgres } from '../../test/helpers/app.ts';
import { startTcpProxy } from '../../test/helpers/tcp-proxy.ts';
import { ClusterClient } from './client.ts';
import { Cluster } from './cluster.ts';
import { injectFaults, type FaultPlan } from './faults.ts';
import {
  driveIngest,
  driveQuiet,
  keepRegistered,
  QUIET_PACE,
  setupAccounts,
  type ChaosAccount,
} from './load.ts';
import { startChaosReceiver, type Behaviour } from './receivers.ts';
import { startSubscriber } from './subscribers.ts';
import { holds, QUIET_BOUND_MS, verify, type Latency, type Verdict } from './verify.ts';

export interface ChaosOptions {
  instances: number;
  seconds: number;
  /** An admin URL of a PostgreSQL server: the run creates (and drops) its own database there. */
  adminDatabaseUrl: string;
  redisUrl: string;
  accounts?: number;
  /** The quiet phase after the busy one (see `quietPlan`); 0: none. */
  quietSeconds?: number;
  log?: (line: string) => void;
}

export interface ChaosResult {
  verdict: Verdict;
  ok: boolean;
  /** The printed report, a line each. */
  lines: string[];
}

/** Every receiver kind once, and three healthy ones. */
const RECEIVERS: Behaviour[] = ['healthy', 'healthy', 'healthy', 'slow', 'failing', 'gone'];
const RETRY_DELAYS_MS = '200,500';
const DRAIN_MS = 90_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The quiet phase's faults, while the cameras send (their first burst of clips takes about ten
 * seconds, the second begins after the idle gap): the database cut at the moment of a commit in
 * the first burst, and in a phase of a minute or more SIGKILLs throughout and a Redis cut in the
 * second burst.
 */
function quietPlan(ms: number): FaultPlan {
  const long = ms >= 60_000;
  return {
    durationMs: ms - 3000,
    killEveryMs: long ? 10_000 : 0,
    database: { atMs: 4000, forMs: 3000, atCommit: true },
    ...(long && { redis: { atMs: QUIET_PACE.idleMs + 12_000, forMs: 3000 } }),
  };
}

const figures = (l: Latency) =>
  `${l.receipts} receipts, p50 ${l.p50Ms} ms, p99 ${l.p99Ms} ms, max ${l.maxMs} ms`;

/**
 * A run: N instances on one database and one Redis (each behind a proxy the run owns) under
 * ingest, webhooks and live subscribers, with SIGKILLs, a Redis outage and a database outage;
 * then a quiet phase (a clip every few seconds per camera, idle gaps of 30 s) under faults of
 * its own, where every event must reach every subscriber within QUIET_BOUND_MS of when it was
 * due; then the records are compared with the database.
 */
export async function runChaos(options: ChaosOptions): Promise<ChaosResult> {
  const log = options.log ?? ((line: string) => console.log(line));
  process.env.TEST_DATABASE_URL = options.adminDatabaseUrl;
  const database = await freshPostgres();
  const dbUrl = new URL(database.url);
  const redisUrl = new URL(options.redisUrl);
  const dbProxy = await startTcpProxy(dbUrl.hostname, Number(dbUrl.port || 5432));
  const redisProxy = await startTcpProxy(redisUrl.hostname, Number(redisUrl.port || 6379));
  const receivers = await Promise.all(
    RECEIVERS.map((b, i) =>
      startChaosReceiver(`${b}-${i}`, b, `chaos-receiver-key-${i}-0123456789`),
    ),
  );
  const cluster = new Cluster(options.instances, {
    DATABASE_URL: dbProxy.via(database.url),
    REDIS_URL: redisProxy.via(options.redisUrl),
    LOG_LEVEL: 'info',
    RATE_LIMIT_RPS: '0',
    // The run is about faults, not load shedding: on a loaded machine the lag would shed requests.
    OVERLOAD_LAG_MS: '0',
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    WEBHOOK_TIMEOUT_MS: '8000',
    WEBHOOK_RETRY_DELAYS_MS: RETRY_DELAYS_MS,
  });
  const client = new ClusterClient(cluster);
  try {
    await cluster.start();
    const prefix = `chaos-${Date.now().toString(36)}`;
    const accounts = await setupAccounts(client, prefix, options.accounts ?? 12, receivers);
    const subscribers = accounts.flatMap((a, i) => [
      startSubscriber(cluster, i % 2 ? 'ws' : 'sse', a),
      startSubscriber(cluster, i % 2 ? 'sse' : 'ws', a),
    ]);
    const durationMs = options.seconds * 1000;
    const quietMs = (options.quietSeconds ?? 0) * 1000;
    const startedAt = Date.now();
    const running = () => Date.now() - startedAt < durationMs;
    log(
      `chaos: ${options.instances} instances, ${accounts.length} accounts, ${subscribers.length} subscribers, ${options.seconds} s busy, ${options.quietSeconds ?? 0} s quiet`,
    );
    const proxies = { redis: redisProxy, database: dbProxy };
    const gone = accounts.filter((a) => a.receiver.behaviour === 'gone');
    const registering = keepRegistered(
      client,
      gone,
      () => Date.now() - startedAt < durationMs + quietMs,
      1000,
    );
    const [ingest, faults] = await Promise.all([
      driveIngest(client, accounts, running, 150),
      injectFaults(cluster, proxies, {
        durationMs: durationMs - 3000,
        killEveryMs: 5000,
        redis: { atMs: durationMs * 0.35, forMs: 3000 },
        database: { atMs: durationMs * 0.65, forMs: 4000 },
      }),
    ]);
    const quietFrom = Date.now();
    const quietRunning = () => Date.now() - quietFrom < quietMs;
    const [quiet, quietFaults] = await Promise.all([
      driveQuiet(client, accounts, quietRunning, QUIET_PACE),
      quietMs > 0 ? injectFaults(cluster, proxies, quietPlan(quietMs)) : { outages: [] },
    ]);
    const reRegistered = await registering;
    const endedAt = Date.now();
    const drained = await drain(database.url, accounts, subscribers);
    await Promise.all(subscribers.map((s) => s.stop()));
    const verdict = await verify({
      databaseUrl: database.url,
      accounts,
      receivers,
      subscribers,
      acknowledged: [...ingest.acknowledged, ...quiet.acknowledged],
      kills: cluster.kills,
      crashes: cluster.crashes,
      outages: [...faults.outages, ...quietFaults.outages],
      serverErrors: client.serverErrors,
      startedAt,
      quietFrom,
      endedAt,
    });
    const ok = holds(verdict) && drained;
    const lines = [
      `ingest: ${ingest.operations} operations, ${ingest.acknowledged.length} activities acknowledged, ` +
        `${ingest.failures.length} operations failed, ${client.retries} requests retried on another instance`,
      `faults: ${cluster.kills.length} SIGKILLs (${cluster.failedStarts} starts failed and were retried), ${cluster.crashes.length} crashes, ` +
        [...faults.outages, ...quietFaults.outages]
          .map(
            (o) =>
              `${o.what} cut ${o.atCommit ? 'at a commit ' : ''}${((o.to - o.from) / 1000).toFixed(1)} s`,
          )
          .join(', ') +
        `, ${reRegistered} registrations renewed after a 410`,
      `quiet: ${quiet.writes} clips sent with an Idempotency-Key (${quiet.inDoubt} answered only when sent again), ${quiet.failures.length} failed`,
      `quiet latency, commit to receipt: ${figures(verdict.quiet)}; later than ${QUIET_BOUND_MS} ms after due: ${verdict.held.length}`,
      'latency after each fault (events committed within 10 s of it, every subscriber):',
      ...verdict.afterFaults.map((f) => `  +${f.at.toFixed(1)} s ${f.fault}: ${figures(f)}`),
      `events: ${verdict.events} committed; deliveries ${JSON.stringify(verdict.deliveries)}; drained: ${drained}`,
      `unaccounted events: ${verdict.unaccounted.length}`,
      `duplicates: ${verdict.duplicates} (unexplained by a kill or an outage: ${verdict.unexplainedDuplicates.length})`,
      `deliveries in flight on two instances at once: ${verdict.overlaps.length}`,
      `live: ${subscribers.length} subscribers, ${verdict.liveEvents} events, ${verdict.resumes} resumes, gaps/out of order: ${verdict.gaps.length}`,
      `5xx: ${verdict.unavailableDuringOutages} 503 during the outages, others: ${verdict.badServerErrors.length}`,
      `figures: ${verdict.deliveriesPerSecond.toFixed(1)} deliveries/s, fan-out p50 ${verdict.fanOutP50Ms} ms p99 ${verdict.fanOutP99Ms} ms`,
      ...[
        ...verdict.unaccounted,
        ...verdict.unexplainedDuplicates.map((id) => `unexplained duplicate ${id}`),
        ...verdict.overlaps.map((o) => `overlap: ${o}`),
        ...verdict.gaps,
        ...verdict.held,
        ...verdict.badServerErrors,
        ...verdict.crashes,
        ...ingest.failures,
        ...quiet.failures,
        ...[...new Set(subscribers.flatMap((s) => s.errors))].map(
          (e) => `subscriber ended (then resumed): ${e}`,
        ),
      ]
        .slice(0, 40)
        .map((l) => `  ${l}`),
      ok ? 'chaos: every promise held' : 'chaos: FAILED',
    ];
    for (const line of lines) log(line);
    return { verdict, ok, lines };
  } finally {
    await cluster.stop();
    await Promise.all(receivers.map((r) => r.close()));
    await dbProxy.close();
    await redisProxy.close();
    await database.drop();
  }
}

/** Waits until no delivery of the run is pending and every subscriber has its account's log. */
async function drain(
  databaseUrl: string,
  accounts: ChaosAccount[],
  subscribers: ReturnType<typeof startSubscriber>[],
): Promise<boolean> {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const until = Date.now() + DRAIN_MS;
    while (Date.now() < until) {
      const { rows } = await db.query<{ account_id: string; pending: number; events: number }>(
        `SELECT a.id::text AS account_id,
                (SELECT count(*)::int FROM deliveries d WHERE d.account_id = a.id AND d.state = 'pending') AS pending,
                (SELECT count(*)::int FROM events e WHERE e.account_id = a.id AND e.id > s.since) AS events
           FROM accounts a JOIN unnest($1::uuid[], $2::bigint[]) AS s(id, since) ON s.id = a.id`,
        [accounts.map((a) => a.accountId), accounts.map((a) => a.since)],
      );
      const counts = new Map(rows.map((r) => [r.account_id, r]));
      const done =
        rows.every((r) => r.pending === 0) &&
        subscribers.every((s) => s.received.length >= counts.get(s.account.accountId)!.events);
      if (done) return true;
      await sleep(500);
    }
    return false;
  } finally {
    await db.end();
  }
}
