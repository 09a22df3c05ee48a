/**
 * Redis calls per request: starts a Redis of its own (`--redis-port`, no persistence) and the
 * service on it (the embedded database; BENCH_SERVICE_DIR runs another checkout's, e.g. an older
 * commit: lib/load.ts), sends `--requests` GraphQL queries and as many REST listings, and prints
 * the commands Redis ran for each kind (INFO commandstats, before and after: nothing else talks
 * to this Redis), and which.
 *
 *   npm run bench:redis-calls -- [--requests 200] [--redis-port 7390]
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { signDevToken } from '../src/accounts/auth.ts';
import { startServer } from './lib/load.ts';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '200' },
    'redis-port': { type: 'string', default: '7390' },
  },
});
const requests = Number(values.requests);
const redisPort = Number(values['redis-port']);
const SECRET = 'redis-calls-bench-secret-0123456789abcdef';

const redisServer = spawn(
  'redis-server',
  ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
  { stdio: 'ignore' },
);
process.on('exit', () => redisServer.kill('SIGTERM'));
// It reconnects until the server listens (events.once would reject at the first refusal).
const redis = new Redis({ port: redisPort });
redis.on('error', () => {});
await new Promise((resolve) => redis.once('ready', resolve));
const dataDir = await mkdtemp(path.join(os.tmpdir(), 'clipgate-redis-calls-'));
const service = await startServer(
  'src/main.ts',
  {
    PORT: '0',
    DATA_DIR: dataDir,
    DATABASE_URL: '',
    REDIS_URL: `redis://127.0.0.1:${redisPort}`,
    AUTH_DEV_SECRET: SECRET,
    LOG_LEVEL: 'info',
    RATE_LIMIT_RPS: '100000',
    RATE_LIMIT_BURST: '100000',
    // The machine may be busy: no request is shed.
    OVERLOAD_LAG_MS: '0',
  },
  [],
);
const base = `http://127.0.0.1:${service.port}`;
const token = await signDevToken(SECRET, {
  sub: 'bench',
  clientId: 'redis-calls',
  scopes: ['service:activities_basic'],
});
const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };

/** Commands Redis has run so far, by name (INFO commandstats), without the INFO calls. */
async function commandStats(): Promise<Map<string, number>> {
  const info = await redis.info('commandstats');
  const calls = new Map<string, number>();
  for (const m of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
    if (m[1] !== 'info') calls.set(m[1]!, Number(m[2]));
  }
  return calls;
}

async function measure(what: string, send: () => Promise<Response>): Promise<void> {
  const before = await commandStats();
  for (let i = 0; i < requests; i++) {
    const res = await send();
    if (!res.ok) throw new Error(`${what}: ${res.status} ${await res.text()}`);
    await res.arrayBuffer();
  }
  const after = await commandStats();
  const by = [...after]
    .map(([name, calls]) => [name, calls - (before.get(name) ?? 0)] as const)
    .filter(([, calls]) => calls > 0);
  // A script's own commands (GET, SET) are counted too: the round trips are the calls made by
  // the clients, every command but those.
  const perRequest = (calls: number) => (calls / requests).toFixed(2);
  const trips = by.filter(([name]) => !['get', 'set'].includes(name));
  const total = trips.reduce((sum, [, calls]) => sum + calls, 0);
  const which = by.map(([name, calls]) => `${name} ${perRequest(calls)}`).join(', ');
  console.log(`${what}: ${perRequest(total)} Redis round trips per request (commands: ${which})`);
}

try {
  // Warm up: the script is loaded once (SCRIPT LOAD / EVAL), not per request.
  await fetch(`${base}/api/accessories`, { headers }).then((r) => r.arrayBuffer());
  await measure('GraphQL query', () =>
    fetch(`${base}/graphql`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ query: '{ accessories(first: 5) { edges { node { id } } } }' }),
    }),
  );
  await measure('REST listing', () => fetch(`${base}/api/accessories`, { headers }));
} finally {
  await service.stop();
  redis.disconnect();
  await rm(dataDir, { recursive: true, force: true });
}
