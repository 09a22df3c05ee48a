// bench/cost: the database time a count takes per row it scans and per bucket it answers, on the
// embedded database and on PostgreSQL, the constants behind a count's requested cost
// (src/activities/count-cost.ts). It loads --accessories accessories of --activities each, spread
// over 400 days (seedActivities: a zone or two on two activities in three, four relevance levels),
// runs counts of several shapes as one statement each (--runs times, the median kept), and fits
// time = rows × ms per row + buckets × ms per bucket by least squares. It prints each backend's
// constants, the larger of the two (what count-cost.ts should say), and the count of the issue
// (400 days by hour by all three groups) measured against its requested cost; then, on the
// embedded database, the same count in windows: its longest statement and the total.
//
//   npm run bench:cost [-- --activities 10000 --accessories 10 --runs 5]
//   BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test) names the server; the
//   data set is loaded afresh into its database clipgate_bench_cost, dropped at the end.
import { parseArgs } from 'node:util';
import pg from 'pg';
import {
  countCost,
  MAX_COUNT_BUCKETS,
  MS_PER_BUCKET,
  MS_PER_SCANNED_ROW,
} from '../src/activities/count-cost.ts';
import { queryCountsInWindows } from '../src/activities/count-windows.ts';
import { seedActivities } from '../src/activities/seed.ts';
import { countQuery, type CountRequest } from '../src/activities/service.ts';
import { queryCounts, type CountGroup } from '../src/activities/store.ts';
import { pointsOfDatabaseTime } from '../src/limits/cost.ts';
import { createLogger } from '../src/logger.ts';
import { openDatabase, type Database } from '../src/storage/database.ts';
import { benchServer, freshDatabase } from './lib/dataset.ts';

const { values } = parseArgs({
  options: {
    activities: { type: 'string', default: '10000' },
    accessories: { type: 'string', default: '10' },
    runs: { type: 'string', default: '5' },
  },
});
const PER_ACCESSORY = Number(values.activities);
const ACCESSORIES = Number(values.accessories);
const RUNS = Number(values.runs);
const DAYS = 400;
const DAY_MS = 86_400_000;

/** The shapes measured: few buckets and many, with and without ZONE's extra rows. */
const shapes: { bucket: 'HOUR' | 'DAY'; groupBy: CountGroup[] }[] = [
  { bucket: 'DAY', groupBy: ['ACCESSORY'] },
  { bucket: 'DAY', groupBy: ['ACCESSORY', 'ZONE'] },
  { bucket: 'HOUR', groupBy: ['ACCESSORY'] },
  { bucket: 'HOUR', groupBy: ['ACCESSORY', 'RELEVANCE'] },
  { bucket: 'HOUR', groupBy: ['ACCESSORY', 'RELEVANCE', 'ZONE'] },
];

interface Sample {
  rows: number;
  buckets: number;
  ms: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Least squares of ms = rows × a + buckets × b. */
function fit(samples: Sample[]): { perRow: number; perBucket: number } {
  let [rr, rb, bb, rt, bt] = [0, 0, 0, 0, 0];
  for (const { rows, buckets, ms } of samples) {
    rr += rows * rows;
    rb += rows * buckets;
    bb += buckets * buckets;
    rt += rows * ms;
    bt += buckets * ms;
  }
  const det = rr * bb - rb * rb;
  return { perRow: (rt * bb - bt * rb) / det, perBucket: (bt * rr - rt * rb) / det };
}

async function measure(name: string, db: Database) {
  const started = Date.now();
  const { accountId } = await seedActivities(db, {
    subject: 'bench',
    accessories: ACCESSORIES,
    activities: PER_ACCESSORY,
    spacingSeconds: Math.floor((DAYS * 86_400) / PER_ACCESSORY),
    retentionDays: 3650,
  });
  await db.pool.query('ANALYZE activities');
  console.log(
    `${name}: ${ACCESSORIES * PER_ACCESSORY} activities loaded in ${Date.now() - started} ms`,
  );
  const account = { accountId, retentionDays: 3650 };
  const to = new Date(Math.ceil(Date.now() / DAY_MS) * DAY_MS);
  const request = (shape: (typeof shapes)[number]): CountRequest => ({
    ...shape,
    from: new Date(to.getTime() - DAYS * DAY_MS),
    to,
    timeZone: 'Europe/Berlin',
  });
  const samples: Sample[] = [];
  for (const shape of shapes) {
    const q = countQuery(account, request(shape));
    const times: number[] = [];
    let found = await queryCounts(db.readPool, q, MAX_COUNT_BUCKETS * 10);
    for (let i = 0; i < RUNS; i++) {
      const t0 = performance.now();
      found = await queryCounts(db.readPool, q, MAX_COUNT_BUCKETS * 10);
      times.push(performance.now() - t0);
    }
    // ZONE reads an activity once per zone (and once with none): the rows are what it counts.
    const rows = found.reduce((sum, b) => sum + b.count, 0);
    const sample = { rows, buckets: found.length, ms: median(times) };
    samples.push(sample);
    console.log(
      `  ${shape.bucket.padEnd(4)} by ${shape.groupBy.join('+').padEnd(26)} rows ${String(rows).padStart(8)}  buckets ${String(found.length).padStart(7)}  ${sample.ms.toFixed(1).padStart(8)} ms`,
    );
  }
  const constants = fit(samples);
  console.log(
    `  ms per scanned row ${constants.perRow.toFixed(5)}, ms per bucket ${constants.perBucket.toFixed(5)}`,
  );
  const issue = request(shapes.at(-1)!);
  const issueMs = samples.at(-1)!.ms;
  console.log(
    `  400 days by hour by all three: requested ${countCost(issue)} points, took ${issueMs.toFixed(0)} ms = ${pointsOfDatabaseTime(issueMs)} points`,
  );
  if (db.kind === 'embedded') {
    // The same count in windows: the longest statement, timed by a pool that reports each.
    let longest = 0;
    const timed = Object.create(db.readPool) as pg.Pool;
    timed.query = (async (...args: Parameters<pg.Pool['query']>) => {
      const t0 = performance.now();
      try {
        return await (db.readPool.query as (...a: unknown[]) => Promise<unknown>)(...args);
      } finally {
        longest = Math.max(longest, performance.now() - t0);
      }
    }) as pg.Pool['query'];
    const t0 = performance.now();
    await queryCountsInWindows(timed, countQuery(account, issue), MAX_COUNT_BUCKETS * 10);
    console.log(
      `  in windows: ${(performance.now() - t0).toFixed(0)} ms in all, the longest statement ${longest.toFixed(1)} ms`,
    );
  }
  return constants;
}

const logger = createLogger('warn');
const results: { perRow: number; perBucket: number }[] = [];
const embedded = await openDatabase({ databaseUrl: undefined, embeddedDir: 'memory://', logger });
try {
  results.push(await measure('embedded', embedded));
} finally {
  await embedded.close();
}
const url = await freshDatabase('clipgate_bench_cost');
const postgres = await openDatabase({
  databaseUrl: url.toString(),
  embeddedDir: 'memory://',
  logger,
});
try {
  results.push(await measure('postgresql', postgres));
} finally {
  await postgres.close();
  const admin = new pg.Client({ connectionString: benchServer().toString() });
  await admin.connect();
  await admin.query('DROP DATABASE IF EXISTS clipgate_bench_cost WITH (FORCE)');
  await admin.end();
}
const perRow = Math.max(...results.map((r) => r.perRow));
const perBucket = Math.max(...results.map((r) => r.perBucket));
console.log(
  `constants (the slower backend's): MS_PER_SCANNED_ROW = ${perRow.toFixed(4)}, MS_PER_BUCKET = ${perBucket.toFixed(4)}`,
);
console.log(
  `count-cost.ts says: MS_PER_SCANNED_ROW = ${MS_PER_SCANNED_ROW}, MS_PER_BUCKET = ${MS_PER_BUCKET}`,
);
