// bench/ingest: the write path's throughput against what the database does bare, in one run, on a
// fresh database of the local PostgreSQL. Every loop is closed (the next change as soon as the
// previous one is answered) and works on an accessory of its own, creating activities: each
// create finishes the previous activity and inserts the new one with two events.
//
//   npm run bench:ingest [-- --seconds 5 --concurrency 32 --batch 100 --batch-loops 8]
//   BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test) names the server; a
//   database clipgate_bench_ingest_<random> is created for the run and dropped after it.
//
// The service runs in its own process (src/main.ts on the same database), so that this process's
// loops do not take its CPU; beside each of its figures the service's CPU time per change.
// Phases: (1) bare: `pg` with a pool of the service's size, one interactive transaction per
// change (finish the previous activity, insert the new one, insert two event rows), the
// baseline; (2) the same with the per-account event-stream lock (pg_advisory_xact_lock before
// the events), one account per loop and then every loop on one account: what the lock costs,
// which bounds what a lock-free ordering (xid8 / snapshot xmin) could gain; (3) createActivity
// over GraphQL (HTTP, undici); (4) POST /api/ingest with `--batch` creates per request from
// `--batch-loops` loops.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { Pool } from 'undici';
import { signDevToken } from '../src/accounts/auth.ts';
import { activityIdFromDate } from '../src/activity-ids.ts';
import { cpuMs, loadAverage, met, startServer } from './lib/load.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '5' },
    concurrency: { type: 'string', default: '32' },
    batch: { type: 'string', default: '100' },
    'batch-loops': { type: 'string', default: '8' },
  },
});
const seconds = Number(values.seconds);
const concurrency = Number(values.concurrency);
const batchSize = Number(values.batch);
const batchLoops = Number(values['batch-loops']);
const SECRET = 'bench-secret-0123456789abcdef0123456789';

/** A phase's changes per second, and the service's CPU time per change (none for bare phases). */
interface Rate {
  perSecond: number;
  cpuMsPerChange?: number;
}

/**
 * Runs `loops` closed loops for `seconds` after a second's warm-up; with `pid`, the CPU time that
 * process spent meanwhile is measured too.
 */
async function closedLoops(
  loops: number,
  step: (loop: number) => Promise<number>,
  pid?: number,
): Promise<Rate> {
  const run = async (ms: number) => {
    let changes = 0;
    const until = performance.now() + ms;
    await Promise.all(
      Array.from({ length: loops }, async (_, loop) => {
        while (performance.now() < until) {
          // Not `changes += await step(loop)`: that reads `changes` before the await, and the
          // other loops' increments made meanwhile would be lost.
          const done = await step(loop);
          changes += done;
        }
      }),
    );
    return changes;
  };
  await run(1000);
  const start = performance.now();
  const cpuBefore = pid === undefined ? 0 : cpuMs(pid);
  const changes = await run(seconds * 1000);
  return {
    perSecond: changes / ((performance.now() - start) / 1000),
    ...(pid !== undefined && { cpuMsPerChange: (cpuMs(pid) - cpuBefore) / changes }),
  };
}

const server = new URL(process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test');
const name = `clipgate_bench_ingest_${randomBytes(6).toString('hex')}`;
const admin = new pg.Client({ connectionString: server.toString() });
await admin.connect();
await admin.query(`CREATE DATABASE ${name}`);
const databaseUrl = new URL(server);
databaseUrl.pathname = `/${name}`;
const dataDir = await mkdtemp(path.join(os.tmpdir(), 'clipgate-bench-ingest-'));
const service = await startServer('src/main.ts', {
  PORT: '0',
  DATA_DIR: dataDir,
  DATABASE_URL: databaseUrl.toString(),
  AUTH_DEV_SECRET: SECRET,
  RATE_LIMIT_RPS: '0',
  LOG_LEVEL: 'info',
});
// A failed run must not leave the service running.
process.on('exit', () => service.child.kill());
const bare = new pg.Pool({ connectionString: databaseUrl.toString(), max: 10 });
const http = new Pool(`http://127.0.0.1:${service.port}`, { connections: concurrency });
const token = await signDevToken(SECRET, {
  sub: 'bench',
  clientId: 'bench',
  scopes: ['service:ingest'],
});
const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
/** POSTs `body` to `path` and answers the JSON answer; throws on an error status or item. */
async function post(p: string, body: string, contentType = 'application/json'): Promise<unknown> {
  const res = await http.request({
    path: p,
    method: 'POST',
    headers: { ...headers, 'content-type': contentType },
    body,
  });
  const text = await res.body.text();
  if (res.statusCode !== 200 || text.includes('"errors"') || text.includes('"ok":false')) {
    throw new Error(`${p} answered ${res.statusCode}: ${text.slice(0, 300)}`);
  }
  return JSON.parse(text);
}
const graphql = async <T>(query: string, variables: Record<string, unknown>) =>
  ((await post('/graphql', JSON.stringify({ query, variables }))) as { data: T }).data;

try {
  // One account per loop, each with an accessory per phase; and one shared account.
  const accessories = async (prefix: string, shared: boolean) => {
    const out: { accountId: string; accessoryId: string }[] = [];
    for (let i = 0; i < concurrency; i++) {
      const { upsertAccount } = await graphql<{ upsertAccount: { accountId: string } }>(
        'mutation($s: String!) { upsertAccount(subject: $s, retentionDays: 30) { accountId } }',
        { s: shared ? prefix : `${prefix}-${i}` },
      );
      const { associateAccessory } = await graphql<{ associateAccessory: { id: string } }>(
        'mutation($a: ID!, $d: String!) { associateAccessory(accountId: $a, deviceId: $d, name: $d) { id } }',
        { a: upsertAccount.accountId, d: `cam-${i}` },
      );
      out.push({ accountId: upsertAccount.accountId, accessoryId: associateAccessory.id });
    }
    return out;
  };
  const base = Date.now() - 20 * 86_400_000;
  let clock = 0;
  const nextCreatedAt = () => new Date(base + ++clock * 1000);

  // (1, 2) Bare pg: one transaction per change, the rows the service writes.
  const bareLoop = (targets: { accountId: string; accessoryId: string }[], lock: boolean) => {
    const previous = new Map<number, string>();
    return closedLoops(concurrency, async (loop) => {
      const { accountId, accessoryId } = targets[loop]!;
      const createdAt = nextCreatedAt();
      const activityId = activityIdFromDate(createdAt);
      const client = await bare.connect();
      try {
        await client.query('BEGIN');
        const before = previous.get(loop);
        if (before) {
          await client.query(
            `UPDATE activities SET end_time = $3, playback_duration = 1000, updated_at = now()
              WHERE accessory_id = $1 AND activity_id = $2`,
            [accessoryId, before, createdAt],
          );
        }
        await client.query(
          `INSERT INTO activities (accessory_id, account_id, activity_id, start_time, relevance_level,
                                   created_at)
           VALUES ($1, $4, $2, $3, 1, $3)`,
          [accessoryId, activityId, createdAt, accountId],
        );
        if (lock) {
          await client.query('SELECT pg_advisory_xact_lock(1818851941, hashtext($1))', [accountId]);
        }
        const data = JSON.stringify({ activityId, accessoryId, relevanceLevel: 1 });
        await client.query(
          `INSERT INTO events (account_id, accessory_id, event_type, event_data)
           VALUES ($1, $2, 'activity_finished', $3), ($1, $2, 'activity_created', $3)`,
          [accountId, accessoryId, data],
        );
        await client.query('COMMIT');
        previous.set(loop, activityId);
      } finally {
        client.release();
      }
      return 1;
    });
  };
  const bareRate = await bareLoop(await accessories('bare', false), false);
  const bareLockRate = await bareLoop(await accessories('bare-lock', false), true);
  const sharedTargets = await accessories('bare-shared', true);
  const bareSharedRate = await bareLoop(sharedTargets, false);
  const bareSharedLockRate = await bareLoop(await accessories('bare-shared-lock', true), true);

  // (3) createActivity over GraphQL.
  const query =
    'mutation($x: ID!, $i: CreateActivityInput!) { createActivity(accessoryId: $x, input: $i) { activityId } }';
  const pid = service.child.pid!;
  const graphqlLoops = (targets: { accessoryId: string }[]) =>
    closedLoops(
      concurrency,
      async (loop) => {
        const variables = {
          x: targets[loop]!.accessoryId,
          i: { createdAt: nextCreatedAt().toISOString(), relevanceLevel: 1 },
        };
        await post('/graphql', JSON.stringify({ query, variables }));
        return 1;
      },
      pid,
    );
  const gqlRate = await graphqlLoops(await accessories('graphql', false));
  const gqlSharedRate = await graphqlLoops(await accessories('graphql-shared', true));

  // (4) The bulk operation: `batchSize` creates per request, NDJSON.
  const bulkTargets = await accessories('bulk', false);
  const bulkRate = await closedLoops(
    batchLoops,
    async (loop) => {
      const accessoryId = bulkTargets[loop]!.accessoryId;
      const lines = Array.from({ length: batchSize }, () =>
        JSON.stringify({
          op: 'createActivity',
          accessoryId,
          input: { createdAt: nextCreatedAt().toISOString(), relevanceLevel: 1 },
        }),
      );
      await post('/api/ingest', lines.join('\n'), 'application/x-ndjson');
      return batchSize;
    },
    pid,
  );

  const line = (label: string, rate: Rate) => {
    const ratio =
      rate === bareRate ? '' : `  (${(rate.perSecond / bareRate.perSecond).toFixed(2)} x bare)`;
    const cpu =
      rate.cpuMsPerChange === undefined
        ? ''
        : `  service CPU ${rate.cpuMsPerChange.toFixed(3)} ms/change`;
    console.log(
      `${label.padEnd(48)} ${rate.perSecond.toFixed(0).padStart(7)} changes/s${ratio}${cpu}`,
    );
  };
  console.log(
    `\nclipgate ingest, ${seconds} s per phase, PostgreSQL ${server.host}, ${concurrency} loops, Node ${process.version}; each create = finish previous + insert new + 2 events\n`,
  );
  line('bare pg, one transaction per change (pool 10)', bareRate);
  line('  + account event lock, an account per loop', bareLockRate);
  line('  one account for all loops, no lock', bareSharedRate);
  line('  one account for all loops, account lock', bareSharedLockRate);
  line('GraphQL createActivity, an account per loop', gqlRate);
  line('GraphQL createActivity, one account', gqlSharedRate);
  line(`POST /api/ingest, ${batchSize} creates per request, ${batchLoops} loops`, bulkRate);
  console.log(
    `targets: GraphQL >= 0.5 x bare: ${met(gqlRate.perSecond >= bareRate.perSecond / 2)}; bulk >= 2 x bare: ${met(bulkRate.perSecond >= 2 * bareRate.perSecond)}`,
  );
  console.log(loadAverage());
} finally {
  await http.close();
  await bare.end();
  await service.stop();
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.end();
  await rm(dataDir, { recursive: true, force: true });
}
