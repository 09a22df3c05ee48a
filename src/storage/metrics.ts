import { Gauge, type Registry } from 'prom-client';
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
