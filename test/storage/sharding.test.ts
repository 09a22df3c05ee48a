/**
 * The sharding plan of docs/operations.md ("Past one PostgreSQL") against the schema: every
 * table the migrations make is in the plan once, and a table the plan distributes by a column
 * has it (one that "needs account_id first" has not yet).
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.ts';
import { openDatabase, type Database } from '../../src/storage/database.ts';
import { migratedImage } from '../helpers/app.ts';

/** The plan's rows: each table named in the first column, with the second column's words. */
function plan(): Map<string, string> {
  const doc = readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8');
  const section = doc.split('### Past one PostgreSQL')[1]!.split('\n### ')[0]!.split('\n## ')[0]!;
  const rows = new Map<string, string>();
  for (const line of section.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    if (cells.length < 4 || !cells[1]!.startsWith('`')) continue;
    for (const [, table] of cells[1]!.matchAll(/`(\w+)`/g)) {
      expect(rows.has(table!), `${table} listed twice`).toBe(false);
      rows.set(table!, cells[2]!);
    }
  }
  return rows;
}

describe('the sharding plan', () => {
  let db: Database;
  beforeAll(async () => {
    db = await openDatabase({
      databaseUrl: undefined,
      embeddedDir: 'memory://',
      embeddedImage: await migratedImage(),
      logger: createLogger('silent'),
    });
  });
  afterAll(() => db.close());

  it('places every table, and each has the column it is distributed by', async () => {
    const { rows } = await db.pool.query<{ table: string; columns: string[] }>(
      `SELECT c.relname AS table, array_agg(a.attname::text) AS columns
         FROM pg_class c
         JOIN pg_namespace n ON n.oid = c.relnamespace
         JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
        WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition
        GROUP BY c.relname`,
    );
    const places = plan();
    expect([...places.keys()].sort()).toEqual(rows.map((r) => r.table).sort());
    for (const { table, columns } of rows) {
      const place = places.get(table)!;
      const key = /^distributed by `(\w+)`/.exec(place)?.[1];
      if (key) expect([table, columns]).toEqual([table, expect.arrayContaining([key])]);
      else if (place.startsWith('needs `account_id` first')) {
        expect([table, columns.includes('account_id')]).toEqual([table, false]);
      } else expect([table, place]).toEqual([table, expect.stringMatching(/^on the coordinator/)]);
    }
  });
});
