import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import type { Logger } from '../logger.ts';
import { applyRoutines, readRoutines, routinesRoot } from './routines.ts';

export const migrationsDir = fileURLToPath(new URL('../../prisma/migrations', import.meta.url));

// Any constant works; it only has to be the same for every instance of the service.
const MIGRATION_LOCK = 7_270_318_112;

interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

export async function readMigrations(dir = migrationsDir): Promise<Migration[]> {
  const entries = await fs.readdir(dir, { withFileTypes: true });
  const names = entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  return Promise.all(
    names.map(async (name) => {
      const sql = await fs.readFile(path.join(dir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    }),
  );
}

/**
 * Applies the pending migrations of prisma/migrations, each in its own transaction, recording
 * them in Prisma's own `_prisma_migrations` table, then the stored functions whose files changed
 * (./routines.ts). An advisory lock makes concurrent starts of several instances apply each
 * once. A migration that was edited after being applied stops the start: the database would no
 * longer match the schema.
 */
export async function migrate(
  pool: pg.Pool,
  logger: Logger,
  dir = migrationsDir,
  routinesDir = routinesRoot,
): Promise<void> {
  const migrations = await readMigrations(dir);
  const routines = await readRoutines(routinesDir);
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await client.query(`CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
      "id" VARCHAR(36) PRIMARY KEY NOT NULL,
      "checksum" VARCHAR(64) NOT NULL,
      "finished_at" TIMESTAMPTZ,
      "migration_name" VARCHAR(255) NOT NULL,
      "logs" TEXT,
      "rolled_back_at" TIMESTAMPTZ,
      "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
      "applied_steps_count" INTEGER NOT NULL DEFAULT 0
    )`);
    const { rows } = await client.query<{ migration_name: string; checksum: string }>(
      'SELECT migration_name, checksum FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL',
    );
    const applied = new Map(rows.map((r) => [r.migration_name, r.checksum]));
    for (const migration of migrations) {
      const checksum = applied.get(migration.name);
      if (checksum === migration.checksum) continue;
      if (checksum !== undefined) {
        throw new Error(`migration ${migration.name} was changed after it was applied`);
      }
      await client.query('BEGIN');
      try {
        await client.query(migration.sql);
        await client.query(
          `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, applied_steps_count)
           VALUES ($1, $2, now(), $3, 1)`,
          [randomUUID(), migration.checksum, migration.name],
        );
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK');
        throw new Error(`migration ${migration.name} failed: ${(err as Error).message}`, {
          cause: err,
        });
      }
      logger.info({ migration: migration.name }, 'applied migration');
    }
    await applyRoutines(client, routines, migrations.at(-1)?.name ?? '', logger);
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    client.release();
  }
}
