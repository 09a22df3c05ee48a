import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { createLogger } from '../src/logger.ts';
import { migrate, readMigrations } from '../src/storage/migrate.ts';
import { createPartitionsAhead } from '../src/storage/partitions.ts';
import { readRoutines } from '../src/storage/routines.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A file holding a migrated embedded database (PGlite's dumpDataDir). */
    embeddedImage: string;
    /** A migrated PostgreSQL database that fresh test databases are copied from. */
    postgresTemplate: string | null;
  }
}

/**
 * Migrates one database of each backend before the suite, which every test app then starts
 * from: an embedded one costs an app a copy instead of initdb and the migrations, a PostgreSQL
 * one a `CREATE DATABASE ... TEMPLATE`. Each holds the days ahead of the partitioned tables too,
 * which an app creates as it starts otherwise (about 40 tables: a seventh of an embedded app's
 * start). The migrations and the days ahead are still seen to at each start, and find nothing
 * left to do, or only the days since the image was made (test/storage/schema.test.ts applies the
 * migrations to empty databases, test/storage/partitions.test.ts creates days). The embedded
 * image is kept in the system's temporary directory under a name made of what it holds (the
 * migrations, the stored functions, PGlite's version), so that the next run of the same tree, or
 * of one file, starts at once.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const [image, template] = await Promise.all([embeddedImage(), postgresTemplate()]);
  project.provide('embeddedImage', image);
  project.provide('postgresTemplate', template?.name ?? null);
  return async () => {
    await template?.drop();
  };
}

const logger = createLogger('silent');

async function embeddedImage(): Promise<string> {
  const pglite = JSON.parse(
    await fs.readFile(
      new URL('../node_modules/@electric-sql/pglite/package.json', import.meta.url),
      'utf8',
    ),
  ) as { version: string };
  const hash = createHash('sha256').update(pglite.version).update('with the days ahead');
  for (const { checksum } of [...(await readMigrations()), ...(await readRoutines())]) {
    hash.update(checksum);
  }
  const file = path.join(os.tmpdir(), `clipgate-test-image-${hash.digest('hex').slice(0, 16)}.tar`);
  if (
    await fs.stat(file).then(
      () => true,
      () => false,
    )
  )
    return file;
  const db = await PGlite.create('memory://');
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0 });
  await server.start();
  const pool = new pg.Pool({
    connectionString: `postgres://postgres@${server.getServerConn()}/postgres`,
    max: 1,
  });
  try {
    await migrate(pool, logger);
    await createPartitionsAhead(pool);
  } finally {
    await pool.end();
    await server.stop();
  }
  const image = Buffer.from(await (await db.dumpDataDir('none')).arrayBuffer());
  await db.close();
  // Written aside, then renamed: a run starting meanwhile never reads half an image.
  const partial = `${file}.${process.pid}`;
  await fs.writeFile(partial, image);
  await fs.rename(partial, file);
  return file;
}

/** The server that creates databases: the direct one when the suite runs behind a pooler. */
const adminUrl = () => process.env.TEST_DATABASE_DIRECT_URL ?? process.env.TEST_DATABASE_URL;

async function postgresTemplate() {
  const admin = adminUrl();
  if (!admin) return undefined;
  const name = `clipgate_template_${process.pid}_${Date.now()}`;
  const run = async (sql: string) => {
    const client = new pg.Client({ connectionString: admin });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await run(`CREATE DATABASE ${name}`);
  const url = new URL(admin);
  url.pathname = `/${name}`;
  const pool = new pg.Pool({ connectionString: url.toString(), max: 1 });
  try {
    await migrate(pool, logger);
    await createPartitionsAhead(pool);
  } finally {
    await pool.end();
  }
  return { name, drop: () => run(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}
