import pg from 'pg';
import { signDevToken } from '../../src/accounts/auth.ts';
import { seedActivities } from '../../src/activities/seed.ts';
import { createLogger } from '../../src/logger.ts';
import { openDatabase, type Database } from '../../src/storage/database.ts';

/** The development-token secret the benches start the service with. */
export const BENCH_SECRET = 'bench-secret-0123456789abcdef0123456789';

/** The PostgreSQL server of the benches: BENCH_DATABASE_URL, or the local one. */
export const benchServer = (): URL =>
  new URL(process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test');

/** Database `name` on the bench server, dropped and created afresh: its URL. */
export async function freshDatabase(name: string): Promise<URL> {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not a plain database name: ${name}`);
  const server = benchServer();
  const admin = new pg.Client({ connectionString: server.toString() });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(server);
  url.pathname = `/${name}`;
  return url;
}

/**
 * The listing data set, migrated and loaded into the database at `url`: `accessories` accessories
 * of subject `bench` with `activities` each, a minute apart, analyzed and checkpointed. The
 * database stays open for the caller, who closes it.
 */
export async function loadActivities(
  url: URL,
  accessories: number,
  activities: number,
): Promise<{ db: Database; accessoryIds: string[] }> {
  const db = await openDatabase({
    databaseUrl: url.toString(),
    embeddedDir: 'memory://',
    logger: createLogger('warn'),
  });
  const { accessoryIds } = await seedActivities(db, {
    subject: 'bench',
    accessories,
    activities,
    spacingSeconds: 60,
    retentionDays: 3650,
  });
  await db.pool.query('VACUUM ANALYZE activities');
  // The load's pages written out now: else the checkpoint after it spreads over the next minutes
  // and takes the database's share of the first figures measured (about twice the CPU per page).
  await db.pool.query('CHECKPOINT');
  return { db, accessoryIds };
}

/** A token of subject `bench` that lists activities, for an hour. */
export const readerToken = (): Promise<string> =>
  signDevToken(BENCH_SECRET, {
    sub: 'bench',
    clientId: 'bench',
    scopes: ['service:activities_basic'],
    ttlSeconds: 3600,
  });

/**
 * The service's environment for listing benches on the database at `url`: development tokens,
 * no retention sweep during the run, and no rate limits, execution shares or pool shares (one
 * token drives the whole load: per-client limits would measure 429s and queueing instead; its
 * share of a pool, DATABASE_POOL_SHARE, would hold 16 clients to 3 of the 10 connections), and
 * no shedding (a machine loaded by other work would turn pages into 503s).
 */
export const listingEnv = (url: URL): Record<string, string> => ({
  DATABASE_URL: url.toString(),
  PORT: '0',
  AUTH_DEV_SECRET: BENCH_SECRET,
  LOG_LEVEL: 'info',
  RETENTION_SWEEP_MS: '86400000',
  RATE_LIMIT_RPS: '0',
  GRAPHQL_MAX_COST_IN_FLIGHT: '0',
  DATABASE_POOL_SHARE: '10',
  OVERLOAD_LAG_MS: '0',
});

/** The accessories of the listing benches' data set in `url` (made by `bench:list`). */
export async function seededAccessories(url: URL): Promise<string[]> {
  const db = new pg.Client({ connectionString: url.toString() });
  await db.connect();
  try {
    const { rows } = await db.query<{ id: string }>(
      "SELECT id FROM accessories WHERE device_id LIKE 'seed-camera-%'",
    );
    if (rows.length === 0) throw new Error(`no data set in ${url.pathname}: run bench:list`);
    return rows.map((r) => r.id);
  } finally {
    await db.end();
  }
}
