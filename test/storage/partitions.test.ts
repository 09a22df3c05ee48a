import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createPartitionsAhead,
  daysToCreate,
  expiredPartitions,
  parseBound,
  PARTITIONS_AHEAD_DAYS,
} from '../../src/storage/partitions.ts';
import { backends, startApp, type TestApp } from '../helpers/app.ts';
import { rest } from '../helpers/client.ts';
import { seedAccessory } from '../helpers/fixtures.ts';

const day = (iso: string) => new Date(`${iso}T00:00:00Z`);

describe('partition policy', () => {
  it('reads the bounds pg_get_expr prints, text or timestamp, MINVALUE and MAXVALUE', () => {
    expect(parseBound('a', "FOR VALUES FROM ('20261123') TO ('20261124')")).toEqual({
      name: 'a',
      from: day('2026-11-23'),
      to: day('2026-11-24'),
    });
    expect(parseBound('e', "FOR VALUES FROM (MINVALUE) TO ('2026-11-24 00:00:00+00')")).toEqual({
      name: 'e',
      from: undefined,
      to: day('2026-11-24'),
    });
    expect(parseBound('f', "FOR VALUES FROM ('20261201') TO (MAXVALUE)")).toEqual({
      name: 'f',
      from: day('2026-12-01'),
      to: undefined,
    });
    expect(() => parseBound('x', 'DEFAULT')).toThrow(/unexpected/);
  });

  it('creates the days from the guard up to the days ahead of now', () => {
    const now = new Date('2026-11-23T15:00:00Z');
    expect(daysToCreate(day('2026-11-23'), now, 2)).toEqual([
      day('2026-11-23'),
      day('2026-11-24'),
      day('2026-11-25'),
    ]);
    expect(daysToCreate(day('2026-11-26'), now, 2)).toEqual([]);
  });

  it('drops only partitions bounded at or before the cutoff, never the guard', () => {
    const parts = [
      { name: 'archive', from: undefined, to: day('2026-11-20') },
      { name: 'p20', from: day('2026-11-20'), to: day('2026-11-21') },
      { name: 'p21', from: day('2026-11-21'), to: day('2026-11-22') },
      { name: 'future', from: day('2026-11-22'), to: undefined },
    ];
    const names = (cutoff: string) => expiredPartitions(parts, new Date(cutoff)).map((p) => p.name);
    expect(names('2026-11-20T23:59:59Z')).toEqual(['archive']);
    expect(names('2026-11-21T00:00:00Z')).toEqual(['archive', 'p20']);
    expect(names('2030-01-01T00:00:00Z')).toEqual(['archive', 'p20', 'p21']);
  });
});

describe.each(backends)('partitions on %s', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp(backend);
  });
  afterAll(() => t.close());

  it('keeps days ready ahead, moves rows out of the guard, and pages across days', async () => {
    const pool = t.app.services.db.pool;
    await createPartitionsAhead(pool);
    const { rows } = await pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_partition_tree('activities') WHERE isleaf AND relid::text LIKE 'activities_p%'`,
    );
    expect(rows[0]!.n).toBeGreaterThanOrEqual(PARTITIONS_AHEAD_DAYS + 1);

    // Rows beyond the created days wait in the guard, and get their day when it is created.
    const { accessoryId, accountId } = await seedAccessory(t);
    const far = new Date(Date.now() + 30 * 86_400_000);
    const ids = [0, 1, 2, 3, 4].map(
      (i) =>
        new Date(far.getTime() + i * 86_400_000).toISOString().slice(0, 19).replace(/[-:]/g, '') +
        'Z',
    );
    for (const id of ids) {
      await pool.query(
        `INSERT INTO activities (accessory_id, account_id, activity_id, start_time, relevance_level,
                                 created_at)
           VALUES ($1, $3, $2, now(), 0, now())`,
        [accessoryId, id, accountId],
      );
    }
    const where = async () =>
      (
        await pool.query<{ p: string }>(
          `SELECT tableoid::regclass::text AS p FROM activities WHERE accessory_id = $1 ORDER BY activity_id`,
          [accessoryId],
        )
      ).rows.map((r) => r.p);
    expect(new Set(await where())).toEqual(new Set(['activities_future']));
    const counted = async () =>
      (
        await pool.query<{ n: number }>(
          'SELECT sum(count)::int AS n FROM activity_rollup WHERE account_id = $1',
          [accountId],
        )
      ).rows[0]!.n;
    expect(await counted()).toBe(ids.length);
    await createPartitionsAhead(pool, new Date(far.getTime() + 4 * 86_400_000));
    expect(await where()).toEqual(ids.map((id) => `activities_p${id.slice(0, 8)}`));
    // Moved out of the guard, not counted again.
    expect(await counted()).toBe(ids.length);

    // Keyset pages across the days return what one table returned.
    const reader = await t.token(['activities_basic']);
    const seen: string[] = [];
    let start: string | undefined;
    for (;;) {
      const page = await rest(t.url, reader, 'POST', `/api/accessories/${accessoryId}/activities`, {
        limit: 2,
        ...(start && { startActivityId: start, operator: '<' }),
      });
      seen.push(...page.body.activities.map((a: { activityId: string }) => a.activityId));
      start = page.body.nextStartActivityId;
      if (!start) break;
    }
    expect(seen).toEqual([...ids].reverse());

    // A page walks the days newest first and stops once it has its rows: the days ahead are
    // empty (an empty index each), two hold the page, and the older ones are never read.
    const plan = await pool.query<{ 'QUERY PLAN': string }>(
      `EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
       SELECT activity_id FROM activities WHERE accessory_id = $1 AND activity_id >= $2
        ORDER BY activity_id DESC LIMIT 2`,
      [accessoryId, '20000101T000000Z'],
    );
    const scans = plan.rows
      .map((r) => r['QUERY PLAN'])
      .filter((l) => /Scan.* on activities_/.test(l));
    expect(plan.rows.map((r) => r['QUERY PLAN']).join('\n')).not.toMatch(/Merge Append/);
    expect(scans.filter((l) => /actual rows=[1-9]/.test(l))).toHaveLength(2);
    expect(scans.filter((l) => /never executed/.test(l)).length).toBeGreaterThan(2);
  });

  it("keeps room on the delivery queue's pages for the claim to stay on its page (a HOT update)", async () => {
    await createPartitionsAhead(t.app.services.db.pool);
    const { accountId } = await seedAccessory(t, 'user-hot', 'camera-hot');
    const client = await t.app.services.db.pool.connect();
    try {
      // A burst fills pages as the outbox does; the claim then changes the lease columns only.
      await client.query('BEGIN');
      await client.query(
        `INSERT INTO deliveries (kind, account_id, client_id, event_type, event_data, url, origin,
                                 auth_key)
         SELECT 'event', $1, 'client', 'activity_created',
                jsonb_build_object('activityId', g, 'padding', repeat('x', 400)),
                'http://127.0.0.1:1/hook', 'http://127.0.0.1:1', repeat('k', 60)
           FROM generate_series(1, 200) g`,
        [accountId],
      );
      await client.query(
        `UPDATE deliveries SET lease_until = now() + interval '1 minute', leased_by = 'test',
                               attempt_count = attempt_count + 1
          WHERE account_id = $1`,
        [accountId],
      );
      const { rows } = await client.query<{ updated: number; hot: number }>(
        `SELECT sum(n_tup_upd)::int AS updated, sum(n_tup_hot_upd)::int AS hot
           FROM pg_stat_xact_user_tables WHERE relname LIKE 'deliveries%'`,
      );
      expect(rows[0]).toEqual({ updated: 200, hot: 200 });
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  });
});
