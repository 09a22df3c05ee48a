import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.ts';
import { migrate } from '../../src/storage/migrate.ts';
import { backends, freshPostgres, startApp, type Backend, type TestApp } from '../helpers/app.ts';
import { rest } from '../helpers/client.ts';
import { seedAccessory, seedActivities } from '../helpers/fixtures.ts';

/** A second, migrated database of the backend's kind (PGlite takes one connection: the app's). */
async function openReplica(backend: Backend): Promise<{ url: string; close(): Promise<void> }> {
  let replica: { url: string; close(): Promise<void> };
  if (backend === 'postgres') {
    const pgdb = await freshPostgres();
    replica = { url: pgdb.url, close: pgdb.drop };
  } else {
    const pglite = await PGlite.create('memory://');
    const server = new PGLiteSocketServer({ db: pglite, host: '127.0.0.1', port: 0 });
    await server.start();
    replica = {
      url: `postgres://postgres@${server.getServerConn()}/postgres`,
      close: async () => {
        await server.stop();
        await pglite.close();
      },
    };
  }
  const pool = new pg.Pool({ connectionString: replica.url, max: 1 });
  await migrate(pool, createLogger('silent'));
  await pool.end();
  return replica;
}

// A second database of the same schema plays the replica: the test copies the primary's rows
// into it, as replication would, and sees listings follow the copy, not the primary.
describe.each(backends)('DATABASE_READ_URL on %s', (backend) => {
  let t: TestApp;
  let replica: { url: string; close(): Promise<void> };
  beforeAll(async () => {
    replica = await openReplica(backend);
    t = await startApp(backend, { DATABASE_READ_URL: replica.url });
  });
  afterAll(async () => {
    await t?.close();
    await replica?.close();
  });

  /** Copies every row of these tables from the primary to the replica. */
  async function replicate(): Promise<void> {
    for (const table of ['accounts', 'accessories', 'activities']) {
      const { rows } = await t.app.services.db.pool.query(`SELECT * FROM ${table}`);
      await t.app.services.db.readPool.query(
        `INSERT INTO ${table} SELECT * FROM json_populate_recordset(null::${table}, $1)
           ON CONFLICT DO NOTHING`,
        [JSON.stringify(rows)],
      );
    }
  }

  it('serves activity listings from the replica, and single reads from the primary', async () => {
    const { ingest, accessoryId } = await seedAccessory(t);
    const reader = await t.token(['activities_basic']);
    const list = async () =>
      (
        await rest(t.url, reader, 'POST', `/api/accessories/${accessoryId}/activities`, {})
      ).body.activities.map((a: { activityId: string }) => a.activityId);

    const first = await seedActivities(t, ingest, accessoryId, 3, 3_600_000);
    expect(await list()).toEqual([]);
    await replicate();
    expect(await list()).toEqual([...first].reverse());

    const [late] = await seedActivities(t, ingest, accessoryId, 1);
    const single = await rest(
      t.url,
      reader,
      'GET',
      `/api/accessories/${accessoryId}/activities/${late}`,
    );
    expect(single.status).toBe(200);
    expect(await list()).toEqual([...first].reverse());
    await replicate();
    expect(await list()).toEqual([late, ...[...first].reverse()]);
  });
});
