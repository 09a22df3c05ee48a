import pg from 'pg';
import type { TestApp } from './app.ts';

/**
 * The activities table locked by a transaction of its own, on an app's PostgreSQL: every query
 * of activities then waits on the lock, so each request executing shows as one waiting query.
 */
export interface LockedActivities {
  /** How many queries of activities wait on the lock now. */
  waiting(): Promise<number>;
  /** Polls until at least `n` queries wait, then gives latecomers `settleMs` to join them. */
  settle(n: number, settleMs?: number): Promise<number>;
  /** Ends the transaction: the waiting queries run. */
  release(): Promise<void>;
  end(): Promise<void>;
}

export async function lockActivities(t: TestApp): Promise<LockedActivities> {
  const locker = new pg.Client({ connectionString: t.config.databaseUrl });
  // Another connection: inside the locker's transaction pg_stat_activity would not change.
  const observer = new pg.Client({ connectionString: t.config.databaseUrl });
  await locker.connect();
  await observer.connect();
  await locker.query('BEGIN');
  await locker.query('LOCK TABLE activities IN ACCESS EXCLUSIVE MODE');
  const waiting = async () =>
    Number(
      (
        await observer.query<{ n: string }>(
          `SELECT count(*) AS n FROM pg_stat_activity
            WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%activities%'`,
        )
      ).rows[0]!.n,
    );
  return {
    waiting,
    settle: async (n, settleMs = 300) => {
      for (let i = 0; i < 100 && (await waiting()) < n; i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await new Promise((resolve) => setTimeout(resolve, settleMs));
      return waiting();
    },
    release: async () => {
      await locker.query('COMMIT');
    },
    end: async () => {
      await Promise.all([locker.end(), observer.end()]);
    },
  };
}
