import type pg from 'pg';
import type { Database } from '../../../storage/database.ts';

/**
 * The dispatcher's own connections on PostgreSQL, so that claims and outcomes never queue behind
 * request traffic in the shared pool, with `synchronous_commit = off`: losing the last claims or
 * outcomes in a crash only repeats an attempt (at least once), while the outbox rows themselves
 * are written by the ingest transactions, durably. The embedded database has one connection,
 * shared.
 */
export function dispatcherPool(db: Database): { pool: pg.Pool; end(): Promise<void> } {
  if (db.kind !== 'postgres') return { pool: db.pool, end: async () => undefined };
  const pool = db.openPool({
    applicationName: 'clipgate-dispatcher',
    max: 4,
    // A burst of deliveries (say, after an outage) is claimed before autovacuum has analyzed
    // the table: planned from stale statistics, the claim would bitmap-scan and sort every
    // pending row each time instead of walking the due index in order. Each statement is planned
    // once per connection (and again after an ANALYZE), not per run: a custom plan of the claim
    // costs 5-20 ms. Its generic plan is estimated dear enough to be compiled by JIT, which a
    // run would pay again each time (200 ms against 3 ms). See
    // docs/decisions/0163-dispatcher-generic-plans.md.
    settings: {
      synchronous_commit: 'off',
      enable_bitmapscan: 'off',
      plan_cache_mode: 'force_generic_plan',
      jit: 'off',
    },
  });
  return { pool, end: () => pool.end() };
}
