import fs from 'node:fs/promises';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaClient } from '../generated/prisma/client.ts';
import type { Logger } from '../logger.ts';
import { migrate } from './migrate.ts';

export type Prisma = InstanceType<typeof PrismaClient>;
/** A Prisma client or the transaction client handed to $transaction callbacks. */
export type Tx = Omit<Prisma, '$connect' | '$disconnect' | '$on' | '$transaction' | '$extends'>;

export interface Database {
  kind: 'embedded' | 'postgres';
  prisma: Prisma;
  /** The pool under Prisma's adapter, for the hot paths that issue hand-written SQL. */
  pool: pg.Pool;
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
    const pool = new pg.Pool({
      connectionString: options.databaseUrl,
      max: options.poolSize ?? 10,
      application_name: 'clipgate',
      // A database that does not answer fails requests (503) instead of queueing them forever.
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    });
    return finishOpen('postgres', pool, options.databaseUrl, options.logger, () => pool.end());
  }

  const memory = options.embeddedDir.startsWith('memory://');
  if (!memory) await fs.mkdir(path.dirname(options.embeddedDir), { recursive: true });
  const pglite = await PGlite.create(options.embeddedDir);
  const server = new PGLiteSocketServer({ db: pglite, host: '127.0.0.1', port: 0 });
  await server.start();
  const connectionString = `postgres://postgres@${server.getServerConn()}/postgres`;
  const pool = new pg.Pool({ connectionString, max: 1, idleTimeoutMillis: 0 });
  return finishOpen('embedded', pool, connectionString, options.logger, async () => {
    await pool.end();
    await server.stop();
    await pglite.close();
  });
}

async function finishOpen(
  kind: Database['kind'],
  pool: pg.Pool,
  connectionString: string,
  logger: Logger,
  closeAll: () => Promise<void>,
): Promise<Database> {
  // The error carries its whole client object: log what it says, not that.
  pool.on('error', (err) => logger.warn({ error: err.message }, 'idle database connection failed'));
  try {
    await migrate(pool, logger);
  } catch (err) {
    await closeAll();
    throw err;
  }
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
  let closed: Promise<void> | undefined;
  return {
    kind,
    prisma,
    pool,
    connectionString,
    close: () =>
      (closed ??= (async () => {
        await prisma.$disconnect();
        await closeAll();
      })()),
  };
}
