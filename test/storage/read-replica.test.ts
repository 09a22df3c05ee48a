import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.ts';
import { migrate } from '../../src/storage/migrate.ts';
import { lsnValue, ReplicaReads } from '../../src/storage/replica.ts';
import { backends, freshPostgres, startApp, type Backend, type TestApp } from '../helpers/app.ts';
import { rest } from '../helpers/client.ts';
import { seedAccessory, seedActivities } from '../helpers/fixtures.ts';
import {
  freePort,
  startThrowawayPostgres,
  type ThrowawayPostgres,
} from '../helpers/throwaway-postgres.ts';

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
    // PGlite serves one connection, one session: the listings' pool keeps to one.
    t = await startApp(backend, {
      DATABASE_READ_URL: replica.url,
      ...(backend === 'pglite' && { DATABASE_POOL_SIZE: '1' }),
    });
    // Until its first check the app cannot tell this copy from a lagging standby, and sends a
    // writer's reads to the primary: the test starts once it knows.
    await t.app.services.db.replica!.check();
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

// A real streaming standby of the test server (CI starts one: scripts/standby-local.sh).
const standbyServer = process.env.TEST_DATABASE_STANDBY_URL;
if (process.env.CI && process.env.TEST_DATABASE_URL && !standbyServer) {
  throw new Error('CI must set TEST_DATABASE_STANDBY_URL: the standby tests run there');
}
if (!standbyServer)
  console.warn('the standby tests run only with TEST_DATABASE_STANDBY_URL (.ci/run sets it)');

describe.runIf(standbyServer)('a streaming standby as DATABASE_READ_URL', () => {
  let pgdb: { url: string; drop: () => Promise<void> };
  let standby: pg.Client;
  let t: TestApp;
  let other: TestApp;
  beforeAll(async () => {
    pgdb = await freshPostgres();
    const url = new URL(standbyServer!);
    url.pathname = new URL(pgdb.url).pathname;
    // The new database reaches the standby with the WAL that created it.
    standby = new pg.Client({ connectionString: standbyServer });
    await standby.connect();
    const name = url.pathname.slice(1);
    const exists = async () =>
      (await standby.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 1;
    for (let i = 0; i < 200 && !(await exists()); i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    t = await startApp('postgres', {
      DATABASE_URL: pgdb.url,
      DATABASE_READ_URL: url.toString(),
      DATABASE_READ_MAX_LAG_MS: '5000',
    });
    // Another instance on the same primary, without the replica: its writes are not this one's.
    other = await startApp('postgres', { DATABASE_URL: pgdb.url });
  });
  afterAll(async () => {
    await standby?.query('SELECT pg_wal_replay_resume()').catch(() => undefined);
    await standby?.end();
    await other?.close();
    await t?.close();
    await pgdb?.drop();
  });

  const metric = async (name: string) => {
    const text = await (await fetch(`${t.url}/metrics`)).text();
    return Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
  };

  it('lets an account read its own writes while replay is paused, serves the others from the standby, and takes a stalled standby out of reads until it catches up', async () => {
    const a = await seedAccessory(t, 'writer', 'cam-a');
    const b = await seedAccessory(t, 'reader', 'cam-b');
    const list = async (s: { ingest: string; accessoryId: string }, subject: string) => {
      const token = await t.token(['activities_basic'], subject);
      const res = await rest(
        t.url,
        token,
        'POST',
        `/api/accessories/${s.accessoryId}/activities`,
        {},
      );
      return res.body.activities.map((x: { activityId: string }) => x.activityId) as string[];
    };
    const [bFirst] = await seedActivities(t, b.ingest, b.accessoryId, 1, 3_600_000);
    // Until the standby has replayed B's own write, B reads the primary; then the standby.
    const { db } = t.app.services;
    await expect
      .poll(() => db.readPoolFor(b.accountId) === db.readPool, { timeout: 10_000 })
      .toBe(true);
    expect(await list(b, 'reader')).toEqual([bFirst]);

    await standby.query('SELECT pg_wal_replay_pause()');
    await expect
      .poll(
        async () =>
          (await standby.query<{ s: string }>('SELECT pg_get_wal_replay_pause_state() AS s'))
            .rows[0]!.s,
      )
      .toBe('paused');
    // Written through the other instance: this one does not know, and reads the paused standby.
    const [bLate] = await seedActivities(other, b.ingest, b.accessoryId, 1, 60_000);
    expect(await list(b, 'reader')).toEqual([bFirst]);
    // Written through this one: the writer's next read goes to the primary.
    const [aOwn] = await seedActivities(t, a.ingest, a.accessoryId, 1);
    expect(await list(a, 'writer')).toEqual([aOwn]);

    // The standby falls behind beyond DATABASE_READ_MAX_LAG_MS: every read goes to the primary.
    await expect
      .poll(() => metric('clipgate_read_replica_in_service'), { timeout: 20_000 })
      .toBe(0);
    expect(await metric('clipgate_read_replica_lag_seconds')).toBeGreaterThan(5);
    expect(await list(b, 'reader')).toEqual([bLate, bFirst]);

    await standby.query('SELECT pg_wal_replay_resume()');
    await expect
      .poll(() => metric('clipgate_read_replica_in_service'), { timeout: 10_000 })
      .toBe(1);
    expect(await list(b, 'reader')).toEqual([bLate, bFirst]);
  }, 60_000);
});

// A PostgreSQL that recovered from a crash keeps the position its recovery replayed to, and is
// no standby: the router takes it for a copy (CI's server is often one).
describe.runIf(process.env.TEST_DATABASE_URL)('a replica that is not in recovery', () => {
  let server: ThrowawayPostgres;
  let primary: pg.Pool;
  let replica: pg.Pool;
  beforeAll(async () => {
    server = startThrowawayPostgres(await freePort());
    server.crash();
    primary = new pg.Pool({ connectionString: process.env.TEST_DATABASE_URL });
    replica = new pg.Pool({ connectionString: server.url('postgres') });
  });
  afterAll(async () => {
    await primary?.end();
    await replica?.end();
    server?.stop();
  });

  it("serves every read, also a writer's, after a crash recovery left it a replayed position", async () => {
    const { rows } = await replica.query<{ lsn: string | null; recovering: boolean }>(
      'SELECT pg_last_wal_replay_lsn()::text AS lsn, pg_is_in_recovery() AS recovering',
    );
    expect(rows[0]).toMatchObject({ lsn: expect.any(String), recovering: false });
    const router = new ReplicaReads({
      primary,
      replica,
      maxLagMs: 5000,
      logger: createLogger('silent'),
    });
    await router.check();
    router.noteWrite('account');
    expect(router.poolFor('account')).toBe(replica);
    expect(router.state()).toEqual({ lagSeconds: expect.any(Number), inService: true });
  });
});

describe('WAL positions', () => {
  it('order as PostgreSQL orders them, across the high word', () => {
    const positions = ['0/0', '0/16B3740', '0/FFFFFFFF', '1/0', '16/B374D848', 'A/1'];
    const values = positions.map(lsnValue);
    expect([...values].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0))).toEqual([
      values[0],
      values[1],
      values[2],
      values[3],
      values[5],
      values[4],
    ]);
    expect(lsnValue('1/0')).toBe(2n ** 32n);
  });
});
