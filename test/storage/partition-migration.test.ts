import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { purgeExpiredActivities } from '../../src/activities/retention.ts';
import { createLogger } from '../../src/logger.ts';
import { migrate, migrationsDir } from '../../src/storage/migrate.ts';
import { createPartitionsAhead } from '../../src/storage/partitions.ts';
import { backends, freshPostgres } from '../helpers/app.ts';

const PARTITIONS = '20261123020000_partitions';
const logger = createLogger('silent');
const DAY_MS = 86_400_000;

/** Every row of every table touched by the partitioning, in key order. */
const TABLES: Record<string, string> = {
  accounts: 'id',
  accessories: 'id',
  activities: 'accessory_id, activity_id',
  media_objects: 'accessory_id, activity_id, kind',
  events: 'id',
  deliveries: 'id',
  delivery_attempts: 'id',
  media_garbage: 'id',
};

async function snapshot(pool: pg.Pool): Promise<Record<string, unknown[]>> {
  const all: Record<string, unknown[]> = {};
  for (const [table, key] of Object.entries(TABLES)) {
    all[table] = (await pool.query(`SELECT * FROM ${table} ORDER BY ${key}`)).rows;
  }
  return all;
}

// A database populated under the schema before partitioning (40 days of activities with media,
// events, deliveries and attempts) is upgraded by the service's migrations: every row and id
// survives, the sequences continue, and the old rows then leave by partition like any others.
describe.each(backends)('the partitioning migration on %s', (backend) => {
  let pool: pg.Pool;
  let close: () => Promise<void>;
  let before: string;
  beforeAll(async () => {
    if (backend === 'postgres') {
      const pgdb = await freshPostgres();
      pool = new pg.Pool({ connectionString: pgdb.url, max: 2 });
      close = async () => {
        await pool.end();
        await pgdb.drop();
      };
    } else {
      const pglite = await PGlite.create('memory://');
      const server = new PGLiteSocketServer({ db: pglite, host: '127.0.0.1', port: 0 });
      await server.start();
      pool = new pg.Pool({
        connectionString: `postgres://postgres@${server.getServerConn()}/postgres`,
        max: 1,
      });
      close = async () => {
        await pool.end();
        await server.stop();
        await pglite.close();
      };
    }
    // The migrations up to the one before partitioning.
    before = await fs.mkdtemp(path.join(os.tmpdir(), 'clipgate-migrations-'));
    for (const name of await fs.readdir(migrationsDir)) {
      if (name >= PARTITIONS) continue;
      await fs.cp(path.join(migrationsDir, name), path.join(before, name), { recursive: true });
    }
  });
  afterAll(async () => {
    await close?.();
    if (before) await fs.rm(before, { recursive: true, force: true });
  });

  it('keeps every row and id, and drops the old rows by partition afterwards', async () => {
    // The old release had its functions in its migrations: none of today's stored function files.
    await migrate(pool, logger, before, before);
    await pool.query(`
      INSERT INTO accounts (id, subject, retention_days)
        VALUES ('00000000-0000-4000-8000-000000000001', 'old', 30);
      INSERT INTO accessories (id, account_id, device_id, name)
        SELECT ('00000000-0000-4000-8000-0000000001' || lpad(i::text, 2, '0'))::uuid,
               '00000000-0000-4000-8000-000000000001', 'cam-' || i, 'Cam ' || i
          FROM generate_series(10, 19) AS i;
      INSERT INTO activities (accessory_id, activity_id, start_time, end_time, relevance_level,
                              motion_zones, object_locations, created_at)
        SELECT x.id, to_char(t AT TIME ZONE 'UTC', 'YYYYMMDD"T"HH24MISS"Z"'), t, t + interval '20 s',
               i % 4, ARRAY['z1'], ARRAY[i % 100]::smallint[], t
          FROM accessories x, generate_series(0, 399) AS i,
               LATERAL (SELECT date_trunc('second', now()) - i * interval '150 minutes') AS ts(t);
      INSERT INTO media_objects (accessory_id, activity_id, kind, upload_id, content_type, size, sha256)
        SELECT accessory_id, activity_id, 'image', 'u-' || activity_id, 'image/jpeg', 10, 'ab'
          FROM activities WHERE relevance_level = 1;
      INSERT INTO events (account_id, accessory_id, event_type, event_data, occurred_at)
        SELECT '00000000-0000-4000-8000-000000000001', accessory_id, 'activity_created',
               json_build_object('activityId', activity_id), created_at
          FROM activities WHERE relevance_level = 2;
      INSERT INTO deliveries (kind, event_id, account_id, client_id, event_type, event_data, url,
                              origin, auth_key, state, created_at, finished_at)
        SELECT 'event', id, account_id, 'c', event_type, event_data, 'https://r.example/',
               'https://r.example', 'v1.x', 'delivered', occurred_at, occurred_at
          FROM events;
      INSERT INTO delivery_attempts (delivery_id, attempt, started_at, duration_ms, outcome,
                                     status, response_snippet, instance_id)
        SELECT id, 1, created_at, 5, 'accepted', 204, '', 'i' FROM deliveries;
    `);
    const old = await snapshot(pool);
    expect(old.activities).toHaveLength(4000);
    expect(old.media_objects).toHaveLength(1000);
    expect(old.delivery_attempts).toHaveLength(1000);

    // Every migration from partitioning on: later ones may add columns, never change a row.
    await migrate(pool, logger);
    expect(await snapshot(pool)).toMatchObject(old);
    const { rows: archived } = await pool.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM activities_archive',
    );
    expect(archived[0]!.n).toBe(4000);

    // Sequences go on from where they were; rows after the archive (which ends after the newest
    // old row, here tomorrow) land in the days split off the guard.
    await createPartitionsAhead(pool);
    const { rows: next } = await pool.query<{ id: string }>(
      `INSERT INTO events (account_id, event_type, event_data, occurred_at)
         VALUES ('00000000-0000-4000-8000-000000000001', 'test', '{}', now() + interval '2 days')
         RETURNING id::text`,
    );
    const maxOld = Math.max(...old.events!.map((e) => Number((e as { id: string }).id)));
    expect(Number(next[0]!.id)).toBeGreaterThan(maxOld);
    const { rows: where } = await pool.query<{ partition: string }>(
      `SELECT tableoid::regclass::text AS partition FROM events WHERE id = $1`,
      [next[0]!.id],
    );
    expect(where[0]!.partition).toMatch(/^events_p\d{8}$/);

    // Once the archive is past the 30-day window it goes whole, queueing its media objects.
    const later = new Date((Math.floor(Date.now() / DAY_MS) + 1 + 30) * DAY_MS);
    expect(await purgeExpiredActivities({ pool }, later)).toBeGreaterThanOrEqual(2);
    const counts = await pool.query<{ activities: number; media: number; garbage: number }>(
      `SELECT (SELECT count(*)::int FROM activities) AS activities,
              (SELECT count(*)::int FROM media_objects) AS media,
              (SELECT count(*)::int FROM media_garbage) AS garbage`,
    );
    expect(counts.rows[0]).toEqual({ activities: 0, media: 0, garbage: 1000 });
    // Activities older than any partition still have one to go to.
    await pool.query(
      `INSERT INTO activities (accessory_id, account_id, activity_id, start_time, relevance_level,
                               created_at)
         VALUES ('00000000-0000-4000-8000-000000000110', '00000000-0000-4000-8000-000000000001',
                 '20200101T000000Z', now(), 0, now())`,
    );
  });
});
