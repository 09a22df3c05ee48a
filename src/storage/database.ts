import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaClient } from '../generated/prisma/client.ts';
import { ConfigError } from '../config.ts';
import { withoutCredentials, type Logger } from '../logger.ts';
import { tracedPool } from '../telemetry/database.ts';
import { Disposables } from '../lifecycle.ts';
import { lockEmbedded } from './embedded-lock.ts';
import { FairPool, type Fairness, type PoolObserver } from './fair-pool.ts';
import { migrate } from './migrate.ts';
import { isTransactionPooler } from './pooler.ts';
import { createPartitionsAhead } from './partitions.ts';
import { ReplicaReads } from './replica.ts';
import { listingTypes } from './row-parsers.ts';

export type Prisma = InstanceType<typeof PrismaClient>;

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

/** What runs one statement: a pool, or a connection taken from one. */
export type Queryable = Pick<pg.Pool, 'query'>;

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
  /**
   * The pool for one listing read of `key` (an account): `readPool`, or the primary's while the
   * replica has not replayed the key's last write on this instance or lags too far behind.
   */
  readPoolFor(key: string): pg.Pool;
  /** Sets who is told what the request pools refuse and stop (./fair-pool.ts), for the metrics. */
  observePools(observer: PoolObserver): void;
  /** Tells the replica's router that `key` wrote (a commit); nothing without a replica. */
  noteWrite(key: string): void;
  /** The replica's router, with a replica (`readUrl`). */
  replica: ReplicaReads | undefined;
  /**
   * A connection string of the database's own sessions, for what a transaction pooler cannot
   * carry (LISTEN): `directUrl` when the service runs behind one, else the connection string.
   */
  sessionUrl: string;
  /**
   * A pool of its own on the database (a transaction pooler's, when the service runs behind
   * one) with session settings (`-c name=value`); behind a pooler the settings are not sent.
   * Its connections' failures are logged, never thrown, as the service's own pools'.
   */
  openPool(settings: PoolSettings): pg.Pool;
  /** For the start log: the embedded database's directory, or the server's URL (no credentials). */
  location: string;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** `postgres://...`: an external PostgreSQL. Unset: embedded PGlite. */
  databaseUrl: string | undefined;
  /** Where the embedded database lives; `memory://` for a throwaway one. */
  embeddedDir: string;
  /**
   * A throwaway embedded database's starting contents (PGlite's `dumpDataDir`): the suite starts
   * each app from one migrated image instead of running initdb and the migrations again.
   */
  embeddedImage?: Blob;
  logger: Logger;
  poolSize?: number;
  /** The most connections of a pool one caller holds at once; default a quarter of the pool. */
  poolShare?: number;
  /** The time limit of a request's statement, in ms (`DATABASE_STATEMENT_TIMEOUT_MS`). */
  statementTimeoutMs?: number;
  /**
   * Where the pool connects to the embedded server, given the server's own connection string:
   * tests route it through a TCP proxy they can cut, as a network outage would.
   */
  routeEmbedded?: (connectionString: string) => Promise<string>;
  /** `postgres://...` of a read replica of the database, for listing reads; never migrated. */
  readUrl?: string;
  /** Beyond this lag the replica serves no listing reads (`DATABASE_READ_MAX_LAG_MS`). */
  readMaxLagMs?: number;
  /**
   * `postgres://...` of the database itself when `databaseUrl` is a transaction pooler
   * (PgBouncer): migrations (under a session advisory lock) and LISTEN connect here, and the
   * pools behind the pooler name no prepared statements and send no session settings.
   */
  directUrl?: string;
  /**
   * false: the database is migrated already (a GraphQL worker thread opens the database its
   * instance opened before it); skips the migrations and the partitions ahead.
   */
  migrate?: boolean;
}

/** How long getting a connection to an external PostgreSQL may take before a request fails. */
export const CONNECT_TIMEOUT_MS = 5000;

/** The time limit of a request's statement unless the options say otherwise. */
export const STATEMENT_TIMEOUT_MS = 10_000;

/**
 * How the pools of request work are shared between callers (./fair-pool.ts): on PostgreSQL a
 * request waits for its turn as long as for a connection (CONNECT_TIMEOUT_MS), then is answered
 * busy; on the embedded database it waits as long as it takes, in turn.
 */
function fairness(
  kind: Database['kind'],
  size: number,
  options: Pick<DatabaseOptions, 'poolShare' | 'statementTimeoutMs'>,
): Fairness {
  return {
    share: options.poolShare ?? Math.ceil(size / 4),
    waitMs: kind === 'postgres' ? CONNECT_TIMEOUT_MS : undefined,
    statementTimeoutMs: options.statementTimeoutMs ?? STATEMENT_TIMEOUT_MS,
    cancels: kind === 'postgres',
  };
}

/**
 * Opens the database and applies pending migrations. The embedded mode serves PGlite over a
 * loopback socket so that both modes share one code path (pg + @prisma/adapter-pg). PGlite is a
 * single connection, so the pool holds exactly one: queries queue in the pool, and a transaction
 * holds the connection until it ends, which keeps transactions isolated from each other.
 */
export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  if (options.databaseUrl) {
    if (
      !options.directUrl &&
      options.migrate !== false &&
      (await isTransactionPooler(options.databaseUrl, CONNECT_TIMEOUT_MS))
    ) {
      throw new ConfigError(
        'DATABASE_DIRECT_URL must be set: DATABASE_URL reaches the database through a transaction pooler (e.g. PgBouncer in transaction mode), which cannot carry the sessions of migrations, LISTEN and prepared statements; set DATABASE_DIRECT_URL to a postgres:// URL of the database itself',
      );
    }
    const pool = newPool(options.databaseUrl, options, {
      applicationName: 'clipgate',
      max: options.poolSize,
      fair: true,
    });
    const { databaseUrl } = options;
    const location = withoutCredentials(databaseUrl);
    return finishOpen('postgres', pool, { ...options, databaseUrl }, location, () => pool.end());
  }

  const { embeddedDir: location } = options;
  // One process at a time: a second one stops here, naming the first.
  const unlock = location.startsWith('memory://')
    ? async () => {}
    : await lockEmbedded(location, options.logger);
  const opened = new Disposables();
  opened.defer('embedded database lock', unlock);
  try {
    const pglite = await PGlite.create(location, { loadDataDir: options.embeddedImage });
    opened.defer('embedded database', () => pglite.close());
    // The pool holds one connection; a second is accepted while the server still closes the
    // one the pool dropped (it detaches a closed socket a tick later), which it would otherwise
    // refuse as one too many. The server runs one connection's statements at a time and keeps a
    // transaction's statements together, whatever the number.
    const server = new PGLiteSocketServer({
      db: pglite,
      host: '127.0.0.1',
      port: 0,
      maxConnections: 2,
    });
    await server.start();
    opened.defer('embedded database server', () => server.stop());
    const served = `postgres://postgres@${server.getServerConn()}/postgres`;
    const databaseUrl = options.routeEmbedded ? await options.routeEmbedded(served) : served;
    const pool = new FairPool(
      {
        connectionString: databaseUrl,
        max: 1,
        idleTimeoutMillis: 0,
        // Every connection to the socket server is the same PGlite session. The pool closes a
        // connection whose query failed (pg-pool's query() releases it with the error) and opens
        // a new one; the session keeps what the old one left: prepared statements under the names
        // the new connection will prepare again (42P05 on every read from then on), settings,
        // advisory locks. The socket server rolls back its open transaction; this clears the
        // rest, as a new PostgreSQL session would start.
        onConnect: (client) => client.query('DISCARD ALL'),
      },
      fairness('embedded', 1, options),
    );
    opened.defer('embedded database pool', () => pool.end());
    return await finishOpen('embedded', pool, { ...options, databaseUrl }, location, () =>
      opened.dispose(options.logger),
    );
  } catch (err) {
    await opened.dispose(options.logger).catch(() => undefined);
    throw err;
  }
}

export interface PoolSettings {
  applicationName: string;
  max?: number;
  /** Session settings, e.g. `{ synchronous_commit: 'off' }`. */
  settings?: Record<string, string>;
  /** Type parsers of its clients; pg's by default. */
  types?: pg.CustomTypesConfig;
  /** A pool of request work, shared fairly between callers (./fair-pool.ts). */
  fair?: boolean;
}

/**
 * A pool on an external PostgreSQL. Behind a transaction pooler (`directUrl` set) consecutive
 * statements of a connection may run in different server sessions: a statement prepared under a
 * name in one would be missing in the next, and a setting sent at connect would stay with
 * whichever session took it. So there its clients run every statement unnamed and connect
 * without settings.
 */
function newPool(
  connectionString: string,
  poolOptions: Pick<DatabaseOptions, 'directUrl' | 'poolShare' | 'statementTimeoutMs'>,
  { applicationName, max = 10, settings = {}, types, fair = false }: PoolSettings,
): pg.Pool {
  const { directUrl } = poolOptions;
  const options = Object.entries(settings)
    .map(([name, value]) => `-c ${name}=${value}`)
    .join(' ');
  const config = {
    connectionString,
    max,
    application_name: applicationName,
    ...(types && { types }),
    ...(directUrl ? { Client: UnnamedClient } : options && { options }),
    // A database that does not answer fails requests (503) instead of queueing them forever.
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
  };
  return fair ? new FairPool(config, fairness('postgres', max, poolOptions)) : new pg.Pool(config);
}

/** A client that drops the name of every statement: each is parsed where it runs. */
class UnnamedClient extends pg.Client {
  override query = ((...args: unknown[]) => {
    const [config] = args;
    if (config && typeof config === 'object' && 'name' in config) {
      args[0] = { ...config, name: undefined };
    }
    return (pg.Client.prototype.query as (...a: unknown[]) => unknown).apply(this, args);
  }) as pg.Client['query'];
}

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
  location: string,
  closeAll: () => Promise<void>,
): Promise<Database> {
  const { logger, databaseUrl: connectionString, directUrl } = options;
  logConnectionErrors(pool, logger, 'database');
  if (options.migrate !== false) {
    try {
      // The migrations hold a session's advisory lock over several transactions.
      if (directUrl) {
        const direct = new pg.Pool({ connectionString: directUrl, max: 1 });
        try {
          await migrate(direct, logger);
        } finally {
          await direct.end();
        }
      } else {
        await migrate(pool, logger);
      }
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
  // (docs/performance.md). Behind a transaction pooler the setting is the database's
  // (docs/operations.md, Behind a connection pooler).
  const readPool =
    options.readUrl || kind === 'postgres'
      ? newPool(options.readUrl ?? connectionString, options, {
          applicationName: 'clipgate-listing',
          max: options.poolSize,
          settings: { plan_cache_mode: 'force_generic_plan' },
          types: listingTypes,
          fair: true,
        })
      : pool;
  if (readPool !== pool) {
    logConnectionErrors(readPool, logger, options.readUrl ? 'read replica' : 'listing');
  }
  // Prisma traces its own queries (telemetry/start.ts); the pools handed out for hand-written
  // SQL trace those.
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
  const traced = { pool: tracedPool(pool), readPool: tracedPool(readPool) };
  const replica = options.readUrl
    ? new ReplicaReads({
        primary: traced.pool,
        replica: traced.readPool,
        maxLagMs: options.readMaxLagMs ?? 5000,
        logger,
      })
    : undefined;
  replica?.start();
  let closed: Promise<void> | undefined;
  return {
    kind,
    prisma,
    ...traced,
    readPoolFor: (key) => replica?.poolFor(key) ?? traced.readPool,
    observePools: (observer) => {
      for (const each of new Set([pool, readPool])) {
        if (each instanceof FairPool) each.observe(observer);
      }
    },
    noteWrite: (key) => replica?.noteWrite(key),
    replica,
    sessionUrl: directUrl ?? connectionString,
    openPool: (settings) => {
      const opened = newPool(connectionString, options, settings);
      logConnectionErrors(opened, logger, settings.applicationName);
      return opened;
    },
    location,
    close: () =>
      (closed ??= (async () => {
        await replica?.close();
        await prisma.$disconnect();
        if (readPool !== pool) await readPool.end();
        await closeAll();
      })()),
  };
}
