import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryPage } from '../../src/activities/store.ts';
import { StatementNames } from '../../src/storage/statements.ts';
import { backends, directUrlOf, freshPostgres, startApp, type TestApp } from '../helpers/app.ts';
import { seedAccessory, seedActivities } from '../helpers/fixtures.ts';

describe('statement names', () => {
  it('names the first texts it sees, always alike, and leaves the others unnamed', () => {
    const names = new StatementNames(2);
    const a = names.query('SELECT 1', []);
    const b = names.query('SELECT 2', [1]);
    expect(a.name).toMatch(/^clipgate_[\w-]{24}$/);
    expect(b).toMatchObject({ text: 'SELECT 2', values: [1] });
    expect(names.query('SELECT 1', []).name).toBe(a.name);
    expect(b.name).not.toBe(a.name);
    expect(names.query('SELECT 3', [])).toEqual({ text: 'SELECT 3', values: [] });
    expect(names.size).toBe(2);
  });
});

describe.each(backends)('read statements on %s', (backend) => {
  let t: TestApp;
  let accessoryId: string;
  let drop: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    // Behind a transaction pooler the service names no statements (test/storage/pooler.test.ts):
    // what this checks is a direct connection's, so the app connects to the database itself.
    const pooled =
      backend === 'postgres' && process.env.TEST_DATABASE_DIRECT_URL
        ? await freshPostgres()
        : undefined;
    const direct = pooled && directUrlOf(pooled.url);
    drop = pooled?.drop;
    t = await startApp(backend, direct ? { DATABASE_URL: direct, DATABASE_DIRECT_URL: '' } : {});
    const seeded = await seedAccessory(t);
    accessoryId = seeded.accessoryId;
    await seedActivities(t, seeded.ingest, accessoryId, 3);
  });
  afterAll(async () => {
    await t.close();
    await drop?.();
  });

  it('runs a page as a statement prepared once per connection, with the same rows each time', async () => {
    const client = await t.app.services.db.pool.connect();
    try {
      const page = () =>
        queryPage(client as never, {
          scope: { accessoryId },
          floor: '0',
          scanDirectionNewer: true,
          limit: 2,
          locations: false,
        });
      const first = await page();
      expect(first.activities).toHaveLength(2);
      expect(await page()).toEqual(first);
      const { rows } = await client.query<{ statement: string }>(
        "SELECT statement FROM pg_prepared_statements WHERE name LIKE 'clipgate\\_%'",
      );
      // Other read statements of the suite may have run on this connection before.
      const pages = rows.filter((r) =>
        /ORDER BY activity_id DESC, accessory_id DESC LIMIT/.test(r.statement),
      );
      expect(pages).toHaveLength(1);
    } finally {
      client.release();
    }
  });

  it('plans a page once per listing connection on PostgreSQL (a generic plan), not per run', async () => {
    const client = await t.app.services.db.readPool.connect();
    try {
      const page = (limit: number) =>
        queryPage(client as never, {
          scope: { accessoryId },
          floor: '0',
          scanDirectionNewer: true,
          limit,
          locations: false,
        });
      for (let limit = 1; limit <= 8; limit++) {
        expect((await page(limit)).activities).toHaveLength(Math.min(limit, 3));
      }
      const { rows } = await client.query<{ custom: string; generic: string; mode: string }>(
        `SELECT custom_plans AS custom, generic_plans AS generic,
                current_setting('plan_cache_mode') AS mode
           FROM pg_prepared_statements
          WHERE name LIKE 'clipgate\\_%' AND statement ~ 'ORDER BY activity_id DESC, accessory_id DESC LIMIT'`,
      );
      const [plans] = rows;
      // The embedded database has one connection, shared with everything else: PostgreSQL's
      // default there (a custom plan per run while it looks cheaper).
      expect(plans).toMatchObject(
        backend === 'postgres' ? { mode: 'force_generic_plan', custom: '0' } : { mode: 'auto' },
      );
      if (backend === 'postgres') expect(Number(plans!.generic)).toBeGreaterThanOrEqual(8);
    } finally {
      client.release();
    }
  });
});
