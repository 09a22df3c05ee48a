// bench/scale: listing latency and retention cost as the activities table grows from 1M rows to
// --rows (default 10M; 100M with --rows 100000000), in one run on the local PostgreSQL. The fleet
// grows by accessories, each holding --per-accessory activities spread over --days days (one
// partition per day). At each size it prints the first-page, deep-page (keyset, half way down
// the accessory) and zone-filtered first-page p50/p99 of the service's own page query on the
// service's listing pool, then the table and index sizes; at the end, the time to drop one day's
// data, and the ratios of the large size to 1M. Every accessory has zone z1 over the left
// quarter of the frame, saved after its last activity, so that the filter `contains(motionZones,
// "z1")` is answered from each activity's objectLocations (about 4 in 10 hold a cell of it): the
// costlier side of the zones-and-time rule.
//
//   npm run bench:scale [-- --rows 10000000 --samples 2000]
//   BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test) names the server; the
//   data set is loaded afresh into its database clipgate_bench_scale, dropped at the end.
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { MAX_COUNT_BUCKETS } from '../src/activities/count-cost.ts';
import { retentionFloor } from '../src/activity-ids.ts';
import type { FilterNode } from '../src/filter/index.ts';
import { activitiesDrop } from '../src/activities/retention.ts';
import { countQuery } from '../src/activities/service.ts';
import { queryCounts, queryPage } from '../src/activities/store.ts';
import { createLogger } from '../src/logger.ts';
import { openDatabase } from '../src/storage/database.ts';
import {
  createPartitionsAhead,
  dropPartitions,
  mediaObjectsTable,
  PARTITIONS_AHEAD_DAYS,
} from '../src/storage/partitions.ts';
import { coveredCells, rectangle } from '../src/zones/geometry.ts';
import { zoneMembershipSql } from '../src/zones/membership.ts';

const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '10000000' },
    'per-accessory': { type: 'string', default: '1000' },
    days: { type: 'string', default: '30' },
    samples: { type: 'string', default: '2000' },
    keep: { type: 'boolean', default: false },
  },
});
const LARGE = Number(values.rows);
const PER_ACCESSORY = Number(values['per-accessory']);
const DAYS = Number(values.days);
const SAMPLES = Number(values.samples);
const SIZES = [1_000_000, LARGE].filter((n, i, all) => all.indexOf(n) === i);
const DAY_MS = 86_400_000;
const CHUNK_ACCESSORIES = Math.max(1, Math.floor(200_000 / PER_ACCESSORY));

const serverUrl = new URL(
  process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
);
const admin = new pg.Client({ connectionString: serverUrl.toString() });
await admin.connect();
await admin.query('DROP DATABASE IF EXISTS clipgate_bench_scale WITH (FORCE)');
await admin.query('CREATE DATABASE clipgate_bench_scale');
const databaseUrl = new URL(serverUrl);
databaseUrl.pathname = '/clipgate_bench_scale';
const db = await openDatabase({
  databaseUrl: databaseUrl.toString(),
  embeddedDir: 'memory://',
  logger: createLogger('warn'),
});
const pool = db.pool;
const Z1 = rectangle(0, 0, 0.25, 1);

// The data lives in the days from today on (partitions as the job creates them ahead), so that
// the oldest day can be dropped at the end like any expired day.
const today = Math.floor(Date.now() / DAY_MS) * DAY_MS;
await createPartitionsAhead(pool, new Date(today + (DAYS - PARTITIONS_AHEAD_DAYS) * DAY_MS));
const accountId = randomUUID();
await pool.query(`INSERT INTO accounts (id, subject, retention_days) VALUES ($1, 'bench', 3650)`, [
  accountId,
]);

const accessories: string[] = [];
const spacingSeconds = Math.floor((DAYS * 86_400) / PER_ACCESSORY);

/** Adds accessories until the table holds `target` rows, a chunk per statement. */
async function loadTo(target: number): Promise<void> {
  const started = Date.now();
  const from = accessories.length * PER_ACCESSORY;
  while (accessories.length * PER_ACCESSORY < target) {
    const n = Math.min(CHUNK_ACCESSORIES, target / PER_ACCESSORY - accessories.length);
    const ids = Array.from({ length: n }, () => randomUUID());
    await pool.query(
      `INSERT INTO accessories (id, account_id, device_id, name)
         SELECT id, $2, id::text, 'bench' FROM unnest($1::uuid[]) AS id`,
      [ids, accountId],
    );
    // Each accessory gets its own second offset so that ids interleave across accessories.
    await pool.query(
      `INSERT INTO activities (accessory_id, account_id, activity_id, start_time, end_time,
                               playback_duration, relevance_level, motion_zones, object_locations,
                               created_at)
       SELECT x.id, $5::uuid, to_char(t AT TIME ZONE 'UTC', 'YYYYMMDD"T"HH24MISS"Z"'), t, t + interval '20 s', 20,
              i % 4, ARRAY['z' || (i % 3)],
              ARRAY[(i * 7 + k) % 128, (i * 13 + k * 3) % 128]::smallint[], t
         FROM unnest($1::uuid[]) WITH ORDINALITY AS x(id, k),
              generate_series(0, $2::int - 1) AS i,
              LATERAL (SELECT to_timestamp($3::float8 / 1000 + i * $4::int + (k % $4::int))) AS ts(t)`,
      [ids, PER_ACCESSORY, today, spacingSeconds, accountId],
    );
    await pool.query(
      `INSERT INTO zone_sets (accessory_id, last_modified)
         SELECT id, $2::timestamptz FROM unnest($1::uuid[]) AS id`,
      [ids, new Date(today + (DAYS + 1) * DAY_MS)],
    );
    await pool.query(
      `INSERT INTO zones (accessory_id, zone_id, position, name, color, vertices, cells)
         SELECT id, 'z1', 0, 'Left quarter', '#ff8800', $2::jsonb, $3::smallint[]
           FROM unnest($1::uuid[]) AS id`,
      [ids, JSON.stringify(Z1), coveredCells(Z1)],
    );
    accessories.push(...ids);
    const rows = accessories.length * PER_ACCESSORY;
    const rate = Math.round((rows - from) / ((Date.now() - started) / 1000));
    process.stdout.write(
      `\r  loaded ${rows.toLocaleString()} rows (${rate.toLocaleString()}/s)   `,
    );
  }
  process.stdout.write('\n');
  await pool.query('VACUUM ANALYZE activities');
}

const pick = () => accessories[Math.floor(Math.random() * accessories.length)]!;
const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

interface Latency {
  p50: number;
  p99: number;
}

const inZ1: FilterNode = { type: 'contains', attribute: 'motionZones', value: 'z1' };

/** `SAMPLES` page queries one after the other on random accessories (after a warm-up). */
async function measure(page: 'first' | 'deep' | 'zone'): Promise<Latency> {
  const floor = retentionFloor(3650);
  const middle = new Date(today + (DAYS / 2) * DAY_MS)
    .toISOString()
    .slice(0, 19)
    .replace(/[-:]/g, '');
  const times: number[] = [];
  for (let i = 0; i < SAMPLES + 100; i++) {
    const started = performance.now();
    const accessoryId = pick();
    const { activities } = await queryPage(db.readPool, {
      scope: { accessoryId },
      floor,
      scanDirectionNewer: true,
      limit: 20,
      locations: false,
      ...(page === 'deep' && { start: { activityId: `${middle}Z`, operator: '<' as const } }),
      ...(page === 'zone' && { filter: inZ1, zoneMembership: zoneMembershipSql(accessoryId) }),
    });
    if (activities.length !== 20) throw new Error('short page');
    if (i >= 100) times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { p50: quantile(times, 0.5), p99: quantile(times, 0.99) };
}

/** `SAMPLES` counts of the 30 days up to the data set's end by hour (Europe/Berlin), one after the other. */
async function measureCounts(): Promise<Latency> {
  const to = new Date(today + DAYS * DAY_MS);
  const query = countQuery(
    { accountId, retentionDays: 3650 },
    {
      from: new Date(to.getTime() - 30 * DAY_MS),
      to,
      bucket: 'HOUR',
      groupBy: [],
      timeZone: 'Europe/Berlin',
    },
  );
  const times: number[] = [];
  for (let i = 0; i < SAMPLES / 10 + 10; i++) {
    const started = performance.now();
    await queryCounts(db.readPool, query, MAX_COUNT_BUCKETS);
    if (i >= 10) times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { p50: quantile(times, 0.5), p99: quantile(times, 0.99) };
}

async function sizes(): Promise<{ table: number; indexes: number; partitions: number }> {
  const { rows } = await pool.query<{ table: string; indexes: string; partitions: number }>(
    `SELECT sum(pg_table_size(relid))::text AS table, sum(pg_indexes_size(relid))::text AS indexes,
            count(*)::int AS partitions
       FROM pg_partition_tree('activities') WHERE isleaf`,
  );
  return {
    table: Number(rows[0]!.table),
    indexes: Number(rows[0]!.indexes),
    partitions: rows[0]!.partitions,
  };
}

const mb = (bytes: number) => `${(bytes / 1048576).toFixed(0)} MB`;
const ms = (n: number) => `${n.toFixed(2)} ms`;
const results: { size: number; first: Latency; deep: Latency; zone: Latency }[] = [];
for (const size of SIZES) {
  console.log(`${size.toLocaleString()} activities:`);
  await loadTo(size);
  const first = await measure('first');
  const deep = await measure('deep');
  const zone = await measure('zone');
  const counts = await measureCounts();
  const s = await sizes();
  results.push({ size, first, deep, zone });
  console.log(
    `  first page p50 ${ms(first.p50)} p99 ${ms(first.p99)} | deep page p50 ${ms(deep.p50)} p99 ${ms(deep.p99)} | zone-filtered p50 ${ms(zone.p50)} p99 ${ms(zone.p99)} (p50 ${(zone.p50 / first.p50).toFixed(2)}x the first page's; target <= 1.2x)`,
  );
  console.log(
    `  counts of 30 days by hour p50 ${ms(counts.p50)} p99 ${ms(counts.p99)} (target p50 < 20 ms at 1M, < 40 ms at 10M)`,
  );
  console.log(
    `  table ${mb(s.table)} + indexes ${mb(s.indexes)} in ${s.partitions} partitions (${DAYS} days of data)`,
  );
}

const dayRows = (
  await pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM activities WHERE activity_id < $1`,
    [new Date(today + DAY_MS).toISOString().slice(0, 10).replace(/-/g, '')],
  )
).rows[0]!.n;
const purgeStarted = performance.now();
const dropped = await dropPartitions(
  pool,
  [{ table: mediaObjectsTable }, activitiesDrop],
  new Date(today + DAY_MS),
  new Date(today),
);
const purgeMs = performance.now() - purgeStarted;
console.log(
  `purge of one day (${dayRows.toLocaleString()} activities, ${dropped} partitions): ${ms(purgeMs)}`,
);

const [small, large] = [results[0]!, results.at(-1)!];
console.log(
  `ratios ${large.size.toLocaleString()} / ${small.size.toLocaleString()}: first page p99 ` +
    `${(large.first.p99 / small.first.p99).toFixed(2)}x, deep page p99 ${(large.deep.p99 / small.deep.p99).toFixed(2)}x ` +
    `(target <= 1.3x); purge ${purgeMs < 1000 ? 'under' : 'OVER'} 1 s`,
);

await db.close();
if (!values.keep) await admin.query('DROP DATABASE clipgate_bench_scale WITH (FORCE)');
await admin.end();
