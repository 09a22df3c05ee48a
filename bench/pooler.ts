// bench/pooler: many instances behind one PgBouncer against a few connected directly, in one run.
// A throwaway PostgreSQL cluster (test/helpers/throwaway-postgres.ts, port 5440) runs with
// max_connections = 40; PgBouncer (transaction pooling, scripts/pgbouncer-local.sh, port 6440)
// holds up to --pool-size server connections to it. Phases, each on the same data:
//   direct: --direct instances (2) with DATABASE_URL on the server, their default pools;
//   pooled: --direct instances, then --instances instances (8), with DATABASE_URL on PgBouncer
//           and DATABASE_DIRECT_URL on the server (migrations and one LISTEN each);
//   direct-many: the same number directly, without a pooler: what the pooler is for.
// Each phase runs closed loops spread over its instances, half listing pages (REST, 20 items),
// half single changes (GraphQL createActivity), and prints their rates, p99 and errors, and the
// pooled rates as a ratio of the direct ones.
//
//   npm run bench:pooler [-- --seconds 10 --concurrency 32 --instances 8 --direct 2 --pool-size 28]
//   Needs Debian's postgresql (initdb, pg_ctl) and pgbouncer.
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { Pool } from 'undici';
import { signDevToken } from '../src/accounts/auth.ts';
import { startThrowawayPostgres } from '../test/helpers/throwaway-postgres.ts';
import { startServer } from './lib/load.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    concurrency: { type: 'string', default: '32' },
    instances: { type: 'string', default: '8' },
    direct: { type: 'string', default: '2' },
    'pool-size': { type: 'string', default: '28' },
  },
});
const seconds = Number(values.seconds);
const concurrency = Number(values.concurrency);
const SECRET = 'bench-secret-0123456789abcdef0123456789';
const PG_PORT = 5440;
const BOUNCER_PORT = 6440;

const server = startThrowawayPostgres(PG_PORT, { max_connections: 40 });
const tmp = server.dir;
const bouncerEnv = {
  ...process.env,
  PGBOUNCER_DIR: path.join(tmp, 'pgbouncer'),
  PGBOUNCER_PORT: String(BOUNCER_PORT),
  PGBOUNCER_UPSTREAM_PORT: String(PG_PORT),
  PGBOUNCER_POOL_SIZE: values['pool-size'],
};
execFileSync('sh', ['scripts/pgbouncer-local.sh'], { env: bouncerEnv, stdio: 'inherit' });
const direct = `postgres://postgres@127.0.0.1:${PG_PORT}/bench`;
const pooled = `postgres://postgres@127.0.0.1:${BOUNCER_PORT}/bench`;
const admin = new pg.Client({
  connectionString: `postgres://postgres@127.0.0.1:${PG_PORT}/postgres`,
});
admin.on('error', (err) => console.error(`the admin connection failed: ${err.message}`));
await admin.connect();
await admin.query('CREATE DATABASE bench');

type Instance = Awaited<ReturnType<typeof startServer>>;
const running = new Set<Instance>();
process.on('exit', () => {
  for (const instance of running) instance.child.kill('SIGKILL');
});

async function startInstances(n: number, env: Record<string, string>): Promise<Instance[]> {
  const out: Instance[] = [];
  for (let i = 0; i < n; i++) {
    const instance = await startServer('src/main.ts', {
      PORT: '0',
      DATA_DIR: mkdtempSync(path.join(tmp, 'instance-')),
      AUTH_DEV_SECRET: SECRET,
      RATE_LIMIT_RPS: '0',
      // Eight processes on a small machine lag behind their event loops: this measures the
      // database's connections, not load shedding.
      OVERLOAD_LAG_MS: '0',
      LOG_LEVEL: 'info',
      ...env,
    });
    running.add(instance);
    out.push(instance);
  }
  return out;
}

async function stopInstances(instances: Instance[]): Promise<void> {
  await Promise.all(instances.map((i) => i.stop()));
  for (const i of instances) running.delete(i);
}

const token = await signDevToken(SECRET, {
  sub: 'bench',
  clientId: 'bench',
  scopes: ['service:ingest', 'service:activities_basic'],
});
const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };

/** The accessories the loops list and write: made once through the first phase's first instance. */
const accessories: string[] = [];

async function seed(port: number): Promise<void> {
  const http = new Pool(`http://127.0.0.1:${port}`);
  const post = async (p: string, body: unknown) => {
    const res = await http.request({
      path: p,
      method: 'POST',
      headers,
      body: JSON.stringify(body),
    });
    const json = (await res.body.json()) as {
      data: Record<string, { accountId?: string; id?: string }>;
    };
    return json;
  };
  const account = await post('/graphql', {
    query: 'mutation { upsertAccount(subject: "bench", retentionDays: 30) { accountId } }',
  });
  const accountId = account.data.upsertAccount!.accountId!;
  for (let i = 0; i < 16; i++) {
    const made = await post('/graphql', {
      query:
        'mutation($a: ID!, $d: String!) { associateAccessory(accountId: $a, deviceId: $d, name: $d) { id } }',
      variables: { a: accountId, d: `cam-${i}` },
    });
    accessories.push(made.data.associateAccessory!.id!);
  }
  const start = Date.now() - 30 * 86_400_000;
  for (const accessoryId of accessories) {
    const items = Array.from({ length: 500 }, (_, k) => ({
      op: 'createActivity',
      accessoryId,
      input: { createdAt: new Date(start + k * 3_600_000).toISOString(), relevanceLevel: k % 4 },
    }));
    await post('/api/ingest', items);
  }
  await http.close();
}

interface PhaseResult {
  list: { rps: number; p99: number };
  ingest: { rps: number; p99: number };
  errors: number;
  firstError?: string;
}

/** Closed loops over the instances: even loops list a page, odd loops create an activity. */
async function drive(instances: Instance[]): Promise<PhaseResult> {
  const pools = instances.map(
    (i) => new Pool(`http://127.0.0.1:${i.port}`, { connections: concurrency }),
  );
  const latencies = { list: [] as number[], ingest: [] as number[] };
  let errors = 0;
  let firstError: string | undefined;
  const request = async (loop: number, i: number) => {
    const http = pools[(loop + i) % pools.length]!;
    // Each writing loop has an accessory of its own (a change of an accessory's older activity
    // would be a conflict); reading loops share them.
    const accessoryId = accessories[Math.floor(loop / 2) % accessories.length]!;
    const kind = loop % 2 === 0 ? 'list' : 'ingest';
    const started = performance.now();
    const res =
      kind === 'list'
        ? await http.request({
            path: `/api/accessories/${accessoryId}/activities`,
            method: 'POST',
            headers,
            body: '{"limit": 20}',
          })
        : await http.request({
            path: '/graphql',
            method: 'POST',
            headers,
            body: JSON.stringify({
              query:
                'mutation($x: ID!) { createActivity(accessoryId: $x, input: {relevanceLevel: 1}) { activityId } }',
              variables: { x: accessoryId },
            }),
          });
    const text = await res.body.text();
    const failed = res.statusCode !== 200 || text.includes('"errors"');
    if (failed) {
      errors++;
      firstError ??= `${res.statusCode} ${text.slice(0, 200)}`;
    }
    return { kind, ms: performance.now() - started, failed };
  };
  const run = async (ms: number, record: boolean) => {
    const until = performance.now() + ms;
    await Promise.all(
      Array.from({ length: concurrency }, async (_, loop) => {
        for (let i = 0; performance.now() < until; i++) {
          const r = await request(loop, i).catch((err: Error) => {
            errors++;
            firstError ??= err.message;
            return undefined;
          });
          if (record && r && !r.failed) latencies[r.kind as 'list' | 'ingest'].push(r.ms);
        }
      }),
    );
  };
  await run(2000, false);
  errors = 0;
  firstError = undefined;
  const started = performance.now();
  await run(seconds * 1000, true);
  const elapsed = (performance.now() - started) / 1000;
  await Promise.all(pools.map((p) => p.close()));
  const summary = (xs: number[]) => {
    xs.sort((a, b) => a - b);
    return { rps: xs.length / elapsed, p99: xs[Math.floor(xs.length * 0.99)] ?? NaN };
  };
  return { list: summary(latencies.list), ingest: summary(latencies.ingest), errors, firstError };
}

const line = (name: string, n: number, r: PhaseResult) =>
  `${name.padEnd(12)} ${String(n).padStart(2)} instances  list ${r.list.rps.toFixed(0).padStart(6)}/s p99 ${r.list.p99.toFixed(1).padStart(6)} ms  ingest ${r.ingest.rps.toFixed(0).padStart(6)}/s p99 ${r.ingest.p99.toFixed(1).padStart(6)} ms  errors ${r.errors}${r.firstError ? ` (first: ${r.firstError})` : ''}`;

try {
  const directCount = Number(values.direct);
  const many = Number(values.instances);
  const connections = async () =>
    (
      await admin.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1',
        ['bench'],
      )
    ).rows[0]!.n;

  const directInstances = await startInstances(directCount, { DATABASE_URL: direct });
  console.log('seeding 16 accessories x 500 activities');
  await seed(directInstances[0]!.port);
  const directResult = await drive(directInstances);
  console.log(
    line('direct', directCount, directResult),
    ` server connections ${await connections()}`,
  );
  await stopInstances(directInstances);

  const pooledFew = await startInstances(directCount, {
    DATABASE_URL: pooled,
    DATABASE_DIRECT_URL: direct,
  });
  const pooledFewResult = await drive(pooledFew);
  console.log(
    line('pooled', directCount, pooledFewResult),
    ` server connections ${await connections()}`,
  );
  await stopInstances(pooledFew);

  const pooledInstances = await startInstances(many, {
    DATABASE_URL: pooled,
    DATABASE_DIRECT_URL: direct,
  });
  const pooledResult = await drive(pooledInstances);
  console.log(line('pooled', many, pooledResult), ` server connections ${await connections()}`);
  await stopInstances(pooledInstances);

  let manyResult: PhaseResult | string;
  try {
    const manyInstances = await startInstances(many, { DATABASE_URL: direct });
    manyResult = await drive(manyInstances);
    await stopInstances(manyInstances);
  } catch (err) {
    manyResult = `did not start: ${(err as Error).message}`;
  }
  console.log(
    typeof manyResult === 'string'
      ? `direct-many  ${many} instances  ${manyResult}`
      : line('direct-many', many, manyResult),
  );

  const ratio = (a: number, b: number) => (a / b).toFixed(2);
  console.log(
    `pooled ${directCount} / direct ${directCount}: list ${ratio(pooledFewResult.list.rps, directResult.list.rps)}x, ingest ${ratio(pooledFewResult.ingest.rps, directResult.ingest.rps)}x (what the pooler costs)`,
  );
  console.log(
    `pooled ${many} / direct ${directCount}: list ${ratio(pooledResult.list.rps, directResult.list.rps)}x, ingest ${ratio(pooledResult.ingest.rps, directResult.ingest.rps)}x; pooled errors ${pooledResult.errors} (target: >= 1.0x and 0 errors)`,
  );
} finally {
  for (const instance of running) instance.child.kill('SIGKILL');
  await admin.end();
  try {
    execFileSync('sh', ['-c', `kill $(cat '${bouncerEnv.PGBOUNCER_DIR}/pgbouncer.pid')`]);
  } catch {
    // already gone
  }
  server.stop();
}
