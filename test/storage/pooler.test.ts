/**
 * Behind a transaction pooler (DATABASE_DIRECT_URL): CI runs one Node line of the suite with
 * TEST_DATABASE_URL on a local PgBouncer in transaction mode (scripts/pgbouncer-local.sh), and
 * this file checks that it really is one, and what the service changes there.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isTransactionPooler } from '../../src/storage/pooler.ts';
import { startApp, TEST_SECRET, type TestApp } from '../helpers/app.ts';
import { rest } from '../helpers/client.ts';
import { seedAccessory, seedActivities } from '../helpers/fixtures.ts';
import { runToEnd } from '../helpers/process.ts';

const pooled = Boolean(process.env.TEST_DATABASE_DIRECT_URL);
if (!pooled)
  console.warn(
    'the pooler tests run only with TEST_DATABASE_DIRECT_URL (.ci/run sets it on one line)',
  );

describe.skipIf(!pooled)('behind a transaction pooler', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp('postgres');
  });
  afterAll(async () => {
    await t?.close();
  });

  it('is a transaction pooler: a statement prepared by name is gone in the next transaction', async () => {
    // Two clients hold two server sessions at once; the first client's next statement may run
    // in either. A pooler that kept sessions (or no pooler) would never fail here.
    const pool = new pg.Pool({ connectionString: t.config.databaseUrl, max: 8 });
    const named = async (i: number) =>
      pool.query({ name: 'clipgate_pooler_probe', text: 'SELECT $1::int AS n', values: [i] });
    const outcomes = await Promise.allSettled(Array.from({ length: 200 }, (_, i) => named(i)));
    await pool.end();
    const errors = outcomes.flatMap((o) => (o.status === 'rejected' ? [String(o.reason)] : []));
    expect(errors.length).toBeGreaterThan(0);
    expect(errors[0]).toMatch(/prepared statement .* (does not exist|already exists)/);
  });

  it('serves listings and ingest through it, and listens for wake-ups on a session of its own', async () => {
    const { ingest, accessoryId } = await seedAccessory(t);
    const ids = await seedActivities(t, ingest, accessoryId, 20);
    const reader = await t.token(['activities_basic']);
    // Concurrent pages on many pooled connections: the listing's statements would be named on
    // a direct connection (src/storage/statements.ts).
    const pages = await Promise.all(
      Array.from({ length: 64 }, () =>
        rest(t.url, reader, 'POST', `/api/accessories/${accessoryId}/activities`, { limit: 5 }),
      ),
    );
    for (const page of pages) {
      expect(page.status).toBe(200);
      expect(page.body.activities.map((a: { activityId: string }) => a.activityId)).toEqual(
        ids.slice(-5).reverse(),
      );
    }
    // The webhook wake-ups listen on a session of their own: through a transaction pooler the
    // LISTEN would end with its transaction.
    const direct = new pg.Client({ connectionString: t.config.databaseDirectUrl });
    await direct.connect();
    const listening = async () =>
      (
        await direct.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity
            WHERE datname = current_database() AND query LIKE 'LISTEN %'`,
        )
      ).rows[0]!.n;
    await expect.poll(listening, { timeout: 5000 }).toBe(1);
    await direct.end();
  });

  it('tells the pooler from the database itself', async () => {
    expect(await isTransactionPooler(process.env.TEST_DATABASE_URL!, 5000)).toBe(true);
    expect(await isTransactionPooler(process.env.TEST_DATABASE_DIRECT_URL!, 5000)).toBe(false);
  });

  it('refuses to start through it without DATABASE_DIRECT_URL, in one line naming it', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'clipgate-pooler-'));
    try {
      const { code, lines } = await runToEnd(
        process.execPath,
        ['--import', 'tsx', 'src/main.ts'],
        {
          PORT: '0',
          DATA_DIR: dataDir,
          AUTH_DEV_SECRET: TEST_SECRET,
          DATABASE_URL: process.env.TEST_DATABASE_URL!,
          DATABASE_DIRECT_URL: '',
        },
        30_000,
      );
      expect(code).toBe(1);
      expect(lines).toHaveLength(1);
      const line = JSON.parse(lines[0]!) as { level: number; msg: string };
      expect(line.level).toBe(60);
      expect(line.msg).toMatch(
        /^configuration refused: DATABASE_DIRECT_URL must be set: DATABASE_URL reaches the database through a transaction pooler/,
      );
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 40_000);
});
