import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_COUNT_BUCKETS } from '../../src/activities/count-cost.ts';
import { queryCountsInWindows } from '../../src/activities/count-windows.ts';
import { activityIdFromDate } from '../../src/activity-ids.ts';
import { countQuery } from '../../src/activities/service.ts';
import { countGroups, queryCounts, type CountGroup } from '../../src/activities/store.ts';
import type { Database } from '../../src/storage/database.ts';
import { backends, startApp, type TestApp } from '../helpers/app.ts';

const HOUR = 3_600_000;
/** Ten days of activities around a spring change of offset (Europe and North America). */
const START = Date.UTC(2026, 2, 5);
const SPAN = 10 * 24 * HOUR;
const zones = ['UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Kathmandu', 'Australia/Lord_Howe'];

describe.each(backends)('counts in windows on %s', (backend) => {
  let t: TestApp;
  let db: Database;
  const accountId = randomUUID();
  const accessories = [randomUUID(), randomUUID(), randomUUID()];

  beforeAll(async () => {
    t = await startApp(backend);
    db = t.app.services.db;
    await db.pool.query(
      `INSERT INTO accounts (id, subject, retention_days) VALUES ($1, 'windows', 3650)`,
      [accountId],
    );
    for (const id of accessories) {
      await db.pool.query(
        `INSERT INTO accessories (id, account_id, device_id, name) VALUES ($1::uuid, $2, $3, 'w')`,
        [id, accountId, id],
      );
    }
    // 600 activities at pseudo-random seconds of the span (a fixed draw: the same on each run),
    // through the rollup's trigger as any write.
    const rows = fc.sample(
      fc.record({
        accessory: fc.constantFrom(...accessories),
        at: fc.integer({ min: 0, max: SPAN / 1000 }),
        relevance: fc.integer({ min: 0, max: 3 }),
        zones: fc.subarray(['z1', 'z2', 'zR']),
      }),
      { numRuns: 600, seed: 50 },
    );
    await db.pool.query(
      `INSERT INTO activities (accessory_id, account_id, activity_id, created_at, start_time,
                               end_time, playback_duration, relevance_level, motion_zones,
                               object_locations)
       SELECT a, $2::uuid, id, now(), now(), now(), 0, r, string_to_array(z, ','), '{}'
         FROM unnest($1::uuid[], $3::text[], $4::int[], $5::text[]) AS x(a, id, r, z)
       ON CONFLICT DO NOTHING`,
      [
        rows.map((r) => r.accessory),
        accountId,
        rows.map((r) => activityIdFromDate(new Date(START + r.at * 1000))),
        rows.map((r) => r.relevance),
        rows.map((r) => r.zones.join(',')),
      ],
    );
  });
  afterAll(() => t.close());

  it('answers what one statement answers, for any range, bucket, zone, groups and windows', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: -HOUR, max: SPAN }),
        fc.integer({ min: 1, max: SPAN }),
        fc.constantFrom<'HOUR' | 'DAY'>('HOUR', 'DAY'),
        fc.constantFrom(...zones),
        fc.subarray<CountGroup>([...countGroups]),
        fc.boolean(),
        fc.integer({ min: 60_000, max: 3 * 24 * HOUR }),
        fc.double({ min: 0, max: 20, noNaN: true }),
        async (offset, length, bucket, timeZone, groupBy, chosen, firstSpanMs, targetMs) => {
          const q = countQuery(
            { accountId, retentionDays: 3650 },
            {
              from: new Date(START + offset),
              to: new Date(START + offset + length),
              bucket,
              groupBy,
              timeZone,
              accessoryIds: chosen ? accessories.slice(0, 2) : undefined,
            },
          );
          const whole = await queryCounts(db.readPool, q, MAX_COUNT_BUCKETS);
          const windowed = await queryCountsInWindows(db.readPool, q, MAX_COUNT_BUCKETS, {
            firstSpanMs,
            targetMs,
          });
          expect(windowed).toEqual(whole);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('stops once it has found more buckets than asked for', async () => {
    const q = countQuery(
      { accountId, retentionDays: 3650 },
      {
        from: new Date(START),
        to: new Date(START + SPAN),
        bucket: 'HOUR',
        groupBy: ['ACCESSORY'],
        timeZone: 'UTC',
      },
    );
    const whole = await queryCounts(db.readPool, q, MAX_COUNT_BUCKETS);
    expect(whole.length).toBeGreaterThan(50);
    const first = await queryCountsInWindows(db.readPool, q, 50, {
      firstSpanMs: HOUR,
      targetMs: 0,
    });
    expect(first.length).toBeGreaterThan(50);
    expect(first).toEqual(whole.slice(0, first.length));
  });
});
