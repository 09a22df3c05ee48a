import type { TcpProxy } from '../../test/helpers/tcp-proxy.ts';
import type { Cluster } from './cluster.ts';

/** When a dependency was cut and restored. */
export interface Outage {
  what: 'redis' | 'database';
  from: number;
  to: number;
}

export interface FaultPlan {
  /** How long the faults go on. */
  durationMs: number;
  /** A SIGKILL of a random instance about this often (jittered ±50%), each restarted. */
  killEveryMs: number;
  /** When (from the start) Redis is cut, and for how long: every connection to it dropped. */
  redisAtMs: number;
  redisForMs: number;
  /** When (from the start) the database is cut, and for how long. */
  databaseAtMs: number;
  databaseForMs: number;
}

export interface FaultLog {
  outages: Outage[];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Cuts `proxy` at `atMs` after `start` for `forMs`, and records the outage. */
async function outage(
  what: Outage['what'],
  proxy: TcpProxy,
  start: number,
  atMs: number,
  forMs: number,
  log: FaultLog,
) {
  await sleep(Math.max(0, start + atMs - Date.now()));
  const from = Date.now();
  proxy.cut();
  await sleep(forMs);
  proxy.restore();
  log.outages.push({ what, from, to: Date.now() });
}

/**
 * The faults of a run: random SIGKILLs (and restarts) throughout, one Redis outage and one
 * database outage, each through a proxy the run owns.
 */
export async function injectFaults(
  cluster: Cluster,
  proxies: { redis: TcpProxy; database: TcpProxy },
  plan: FaultPlan,
): Promise<FaultLog> {
  const log: FaultLog = { outages: [] };
  const start = Date.now();
  const restarts: Promise<void>[] = [];
  const kills = (async () => {
    for (;;) {
      await sleep(plan.killEveryMs * (0.5 + Math.random()));
      if (Date.now() - start >= plan.durationMs) return;
      // One of the running instances, as long as another one keeps serving meanwhile.
      const running = cluster.instances.filter((i) => i.service);
      if (running.length < 2) continue;
      const { index } = running[Math.floor(Math.random() * running.length)]!;
      await cluster.kill(index);
      restarts.push(cluster.restart(index));
    }
  })();
  await Promise.all([
    kills,
    outage('redis', proxies.redis, start, plan.redisAtMs, plan.redisForMs, log),
    outage('database', proxies.database, start, plan.databaseAtMs, plan.databaseForMs, log),
  ]);
  await Promise.all(restarts);
  return log;
}
