import { Counter, Gauge, type Registry } from 'prom-client';
import type { PoolObserver } from './fair-pool.ts';
import type { ReplicaState } from './replica.ts';

/** The read replica's lag and whether it serves listings (DATABASE_READ_URL), read when scraped. */
export function registerReplicaMetrics(registry: Registry, state: () => ReplicaState): void {
  new Gauge({
    name: 'clipgate_read_replica_lag_seconds',
    help: 'How far the read replica is behind the primary, in seconds (to the check interval, 250 ms)',
    registers: [registry],
    collect() {
      this.set(state().lagSeconds);
    },
  });
  new Gauge({
    name: 'clipgate_read_replica_in_service',
    help: 'Whether listing reads go to the read replica (1), or all to the primary because it lags beyond DATABASE_READ_MAX_LAG_MS (0)',
    registers: [registry],
    collect() {
      this.set(state().inService ? 1 : 0);
    },
  });
}

/** What the pools of request work refuse and stop (./fair-pool.ts). */
export function poolMetrics(registry: Registry): PoolObserver {
  const busy = new Counter({
    name: 'clipgate_database_busy_total',
    help: 'Requests answered busy after waiting for a database connection past the pool\'s wait: for their own share of the pool (share="own", 429), or for any connection (share="pool", 503)',
    labelNames: ['share'],
    registers: [registry],
  });
  const stopped = new Counter({
    name: 'clipgate_database_statements_stopped_total',
    help: 'Statements of requests stopped: past DATABASE_STATEMENT_TIMEOUT_MS (reason="timeout"), or because their client went away (reason="gone")',
    labelNames: ['reason'],
    registers: [registry],
  });
  return {
    busy: (share) => busy.inc({ share }),
    stopped: (reason) => stopped.inc({ reason }),
  };
}
