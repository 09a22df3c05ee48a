import type { TcpProxy } from '../../test/helpers/tcp-proxy.ts';
import type { Cluster } from './cluster.ts';

/** When a dependency was cut and restored. */
export interface Outage {
  what: 'redis' | 'database';
  from: number;
  to: number;
  /** A database cut that waited for a commit and lost its answer first. */
  atCommit?: boolean;
}

/** A dependency cut: when (from the start of the plan), for how long. */
export interface Cut {
  atMs: number;
  forMs: number;
}

export interface FaultPlan {
  /** How long the faults go on. */
  durationMs: number;
  /** A SIGKILL of a random instance about this often (jittered ±50%), each restarted; 0: none. */
  killEveryMs: number;
  /** Redis cut: every connection to it dropped, new ones refused. */
  redis?: Cut;
  /**
   * The database cut. `atCommit`: from `atMs` on, the cut waits (a few seconds at most) for an
   * ingest statement to run, drops its answer and then cuts, so that a write commits without
   * its writer knowing (it answers 503, and is sent again).
   */
  database?: Cut & { atCommit?: boolean };
}

export interface FaultLog {
  outages: Outage[];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** How long a cut at a commit waits for one before it cuts anyway. */
const COMMIT_WAIT_MS = 5000;

/** Cuts `proxy` at `cut.atMs` after `start` for `cut.forMs`, and records the outage. */
async function outage(
  what: Outage['what'],
  proxy: TcpProxy,
  start: number,
  cut: Cut & { atCommit?: boolean },
  log: FaultLog,
) {
  await sleep(Math.max(0, start + cut.atMs - Date.now()));
  let atCommit = false;
  if (cut.atCommit) {
    atCommit = await Promise.race([
      proxy.loseAnswer('clipgate_ingest_settled').then(() => true),
      sleep(COMMIT_WAIT_MS).then(() => false),
    ]);
  }
  const from = Date.now();
  proxy.cut();
  await sleep(cut.forMs);
  proxy.restore();
  log.outages.push({ what, from, to: Date.now(), ...(cut.atCommit && { atCommit }) });
}

/**
 * The faults of a phase: random SIGKILLs (and restarts) throughout, and a Redis outage and a
 * database outage where the plan has them, each through a proxy the run owns.
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
    if (plan.killEveryMs === 0) return;
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
    plan.redis && outage('redis', proxies.redis, start, plan.redis, log),
    plan.database && outage('database', proxies.database, start, plan.database, log),
  ]);
  await Promise.all(restarts);
  return log;
}
