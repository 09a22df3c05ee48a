import fs from 'node:fs/promises';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaClient } from '../generated/prisma/client.ts';
import type { Logger } from '../logger.ts';
import { tracedPool } from '../telemetry/database.ts';
import { migrate } from './migrate.ts';
import { createPartitionsAhead } from './partitions.ts';

export type Prisma = InstanceType<typeof PrismaClient>;
/** A Prisma client or the transaction client handed to $transaction callbacks. */
export type Tx = Omit<Prisma, '$connect' | '$disconnect' | '$on' | '$transaction' | '$extends'>;

/**
 * What writing events needs of a transaction: raw SQL on its connection. A Prisma transaction
 * client is one; `sqlTx` makes one of a pg connection inside BEGIN.
 */
export interface SqlTx {
  $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): Promise<T>;
}

export const sqlTx = (client: pg.PoolClient): SqlTx => ({
  $queryRawUnsafe: async <T>(query: string, ...values: unknown[]) =>
    (await client.query(query, values)).rows as T,
});

/**
 * Runs `body` in a transaction on one connection of the pool (on PGlite, the only one: `body`
 * must use `client`, never the pool), committing if it resolves, rolling back if it throws.
 */
export async function inTransaction<T>(
  pool: pg.Pool,
  body: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await body(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

/** Runs one statement and resolves with its rows: on a pool, or in a transaction. */
export type RowQuery = <T>(sql: string, params: readonly unknown[]) => Promise<T[]>;

export const poolRows =
  (pool: pg.Pool): RowQuery =>
  async <T>(sql: string, params: readonly unknown[]) =>
    (await pool.query(sql, [...params])).rows as T[];

export const txRows =
  (tx: SqlTx): RowQuery =>
  <T>(sql: string, params: readonly unknown[]) =>
    tx.$queryRawUnsafe<T[]>(sql, ...params);

export interface Database {
  kind: 'embedded' | 'postgres';
  prisma: Prisma;
  /** The pool under Prisma's adapter, for the hot paths that issue hand-written SQL. */
  pool: pg.Pool;
  /**
   * The pool for listing reads: a read replica's (`readUrl`) when there is one. A replica lags
   * its primary, so a page read here may miss what was written a moment ago. On PostgreSQL it is
   * a pool of its own either way, whose sessions plan prepared statements once (see finishOpen);
   * on the embedded database, `pool`.
   */
  readPool: pg.Pool;
  /** A connection string for the database, e.g. for a LISTEN connection. */
  connectionString: string;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** `postgres://...`: an external PostgreSQL. Unset: embedded PGlite. */
  databaseUrl: string | undefined;
  /** Where the embedded database lives; `memory://` for a throwaway one. */
  embeddedDir: string;
  logger: Logger;
  poolSize?: number;
  /**
   * Where the pool connects to the embedded server, given the server's own connection string:
   * tests route it through a TCP proxy they can cut, as a network outage would.
   */
  routeEmbedded?: (connectionString: string) => Promise<string>;
  /** `postgres://...` of a read replica of the database, for listing reads; never migrated. */
  readUrl?: string;
  /**
   * false: the database is migrated already (a GraphQL worker thread opens the database its
   * instance opened before it); skips the migrations and the partitions ahead.
   */
  migrate?: boolean;
}

/** How long getting a connection to an external PostgreSQL may take before a request fails. */
export const CONNECT_TIMEOUT_MS = 5000;

/**
 * Opens the database and applies pending migrations. The embedded mode serves PGlite over a
 * loopback socket so that both modes share one code path (pg + @prisma/adapter-pg). PGlite is a
 * single connection, so the pool holds exactly one: queries queue in the pool, and a transaction
 * holds the connection until it ends, which keeps transactions isolated from each other.
 */
export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  if (options.databaseUrl) {
    const pool = newPool(options.databaseUrl, options.poolSize);
    const { databaseUrl } = options;
    return finishOpen('postgres', pool, { ...options, databaseUrl }, () => pool.end());
  }

  const memory = options.embeddedDir.startsWith('memory://');
  if (!memory) await fs.mkdir(path.dirname(options.embeddedDir), { recursive: true });
  const pglite = await PGlite.create(options.embeddedDir);
  const server = new PGLiteSocketServer({ db: pglite, host: '127.0.0.1', port: 0 });
  await server.start();
  const served = `postgres://postgres@${server.getServerConn()}/postgres`;
  const connectionString = options.routeEmbedded ? await options.routeEmbedded(served) : served;
  const pool = new pg.Pool({ connectionString, max: 1, idleTimeoutMillis: 0 });
  // PGlite is one session, whichever connection reaches it: a connection that replaces a lost
  // one would find the statements the lost one prepared, and fail to prepare them again ("already
  // exists": every write after a cut). Each connection starts the session afresh.
  pool.on('connect', (client) => void client.query('DISCARD ALL').catch(() => undefined));
  return finishOpen('embedded', pool, { ...options, databaseUrl: connectionString }, async () => {
    await pool.end();
    await server.stop();
    await pglite.close();
  });
}

const newPool = (
  connectionString: string,
  max: number | undefined,
  session: { applicationName: string; options?: string } = { applicationName: 'clipgate' },
) =>
  new pg.Pool({
    connectionString,
    max: max ?? 10,
    application_name: session.applicationName,
    options: session.options,
    // A database that does not answer fails requests (503) instead of queueing them forever.
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
  });

/**
 * Logs, never throws, what fails on a pool's connections: idle ones (the pool's 'error') and
 * checked-out ones between two statements of a transaction (pg-pool takes its own listener off a
 * client while it is out, so a connection lost then, as in a database outage, would otherwise be
 * an uncaught exception that ends the process). The statement that needs the connection fails
 * on its own (503), and the pool drops the dead client when it comes back. The error carries its
 * whole client object: log what it says, not that.
 */
function logConnectionErrors(pool: pg.Pool, logger: Logger, what: string): void {
  pool.on('error', (err) => logger.warn({ error: err.message }, `idle ${what} connection failed`));
  pool.on('connect', (client) =>
    client.on('error', (err) => logger.debug({ error: err.message }, `${what} connection lost`)),
  );
}

async function finishOpen(
  kind: Database['kind'],
  pool: pg.Pool,
  options: DatabaseOptions & { databaseUrl: string },
  closeAll: () => Promise<void>,
): Promise<Database> {
  const { logger, databaseUrl: connectionString } = options;
  logConnectionErrors(pool, logger, 'database');
  if (options.migrate !== false) {
    try {
      await migrate(pool, logger);
      // The days ahead exist before the first request: on the embedded database's one
      // connection the first round of the job would otherwise hold up early requests and readiness.
      await createPartitionsAhead(pool);
    } catch (err) {
      await closeAll();
      throw err;
    }
  }
  // The listing reads are prepared statements (activities/store.ts) over the partitioned
  // activities table. PostgreSQL keeps planning such a statement for each run's parameters (a
  // custom plan looks cheaper than a generic one, which cannot prune partitions at plan time),
  // and planning a page costs it three to four times what running it does. The listing pool's
  // sessions plan each once: generic plans, whose partitions are pruned when they run
  // (docs/performance.md).
  const readPool =
    options.readUrl || kind === 'postgres'
      ? newPool(options.readUrl ?? connectionString, options.poolSize, {
          applicationName: 'clipgate-listing',
          options: '-c plan_cache_mode=force_generic_plan',
        })
      : pool;
  if (readPool !== pool) {
    logConnectionErrors(readPool, logger, options.readUrl ? 'read replica' : 'listing');
  }
  // Prisma traces its own queries (telemetry/start.ts); the pools handed out for hand-written
  // SQL trace those.
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
  let closed: Promise<void> | undefined;
  return {
    kind,
    prisma,
    pool: tracedPool(pool),
    readPool: tracedPool(readPool),
    connectionString,
    close: () =>
      (closed ??= (async () => {
        await prisma.$disconnect();
        if (readPool !== pool) await readPool.end();
        await closeAll();
      })()),
  };
}
