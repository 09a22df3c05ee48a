import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import type { Logger } from '../logger.ts';

/**
 * The stored functions (the database's own code) live in one file each, under the folder `sql/`
 * of the domain they belong to (`src/events/sql/record_events.sql`, ...): that file is the one
 * place to read and change a function. Each holds one `CREATE OR REPLACE FUNCTION`. The
 * migrations made the tables; these files make the code that runs on them, and are applied after
 * the migrations at every start (src/storage/migrate.ts), each only when its text changed.
 *
 * `_clipgate_routines` remembers, per file, the checksum applied and the newest migration of the
 * release that applied it. During a rolling upgrade an instance of the older release finds a
 * newer migration recorded and leaves the function to the newer release; otherwise the file's
 * text wins. A function whose result columns change cannot be replaced in place: its file then
 * starts with the `DROP FUNCTION IF EXISTS` of the old signature.
 */

/** The source root: `src/` when run from the sources, `dist/` when built (which copies sql/). */
export const routinesRoot = fileURLToPath(new URL('../', import.meta.url));

export interface Routine {
  /** Its path under the root, e.g. `events/sql/record_events.sql`. */
  name: string;
  sql: string;
  checksum: string;
}

/** Every `sql/*.sql` file under the root, in path order. */
export async function readRoutines(root = routinesRoot): Promise<Routine[]> {
  const files = (await fs.readdir(root, { recursive: true }))
    .map((file) => file.split(path.sep).join('/'))
    .filter((file) => /(^|\/)sql\/[^/]+\.sql$/.test(file))
    .sort();
  return Promise.all(
    files.map(async (name) => {
      const sql = await fs.readFile(path.join(root, name), 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    }),
  );
}

/**
 * Applies each routine whose text differs from the one recorded, unless a newer release (whose
 * newest migration sorts after `release`) recorded it. Runs on the migration's connection, under
 * its advisory lock.
 */
export async function applyRoutines(
  client: pg.PoolClient,
  routines: readonly Routine[],
  release: string,
  logger: Logger,
): Promise<void> {
  await client.query(`CREATE TABLE IF NOT EXISTS "_clipgate_routines" (
    "name" TEXT PRIMARY KEY,
    "checksum" VARCHAR(64) NOT NULL,
    "release" TEXT NOT NULL,
    "applied_at" TIMESTAMPTZ NOT NULL DEFAULT now()
  )`);
  const { rows } = await client.query<{ name: string; checksum: string; release: string }>(
    'SELECT name, checksum, release FROM "_clipgate_routines"',
  );
  const recorded = new Map(rows.map((r) => [r.name, r]));
  for (const routine of routines) {
    const known = recorded.get(routine.name);
    if (known?.checksum === routine.checksum) continue;
    if (known && known.release > release) {
      logger.warn(
        { routine: routine.name, release: known.release },
        'a newer release applied this stored function: left as it is',
      );
      continue;
    }
    await client.query('BEGIN');
    try {
      await client.query(routine.sql);
      await client.query(
        `INSERT INTO "_clipgate_routines" (name, checksum, release) VALUES ($1, $2, $3)
         ON CONFLICT (name) DO UPDATE SET checksum = $2, release = $3, applied_at = now()`,
        [routine.name, routine.checksum, release],
      );
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK');
      throw new Error(`stored function ${routine.name} failed: ${(err as Error).message}`, {
        cause: err,
      });
    }
    logger.info({ routine: routine.name }, 'applied stored function');
  }
}
