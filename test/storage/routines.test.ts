import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.ts';
import { readMigrations } from '../../src/storage/migrate.ts';
import { applyRoutines, readRoutines, type Routine } from '../../src/storage/routines.ts';
import { backends, startApp, type TestApp } from '../helpers/app.ts';

/** The function a routine file creates, and the body between its dollar quotes. */
function parse(routine: Routine): { name: string; body: string } {
  const created = [...routine.sql.matchAll(/CREATE OR REPLACE FUNCTION "(\w+)"/g)];
  expect(created, `${routine.name} creates one function`).toHaveLength(1);
  const body = /\$\$([\s\S]*)\$\$;\s*$/.exec(routine.sql);
  expect(body, `${routine.name} ends with the function's $$ body`).not.toBeNull();
  return { name: created[0]![1]!, body: body![1]! };
}

describe.each(backends)('stored functions on %s', (backend) => {
  let t: TestApp;
  let routines: Routine[];
  beforeAll(async () => {
    t = await startApp(backend);
    routines = await readRoutines();
  });
  afterAll(() => t?.close());

  /** The body of the function `name` as the database has it (on the pool, or a held client). */
  const source = async (name: string, q: Pick<pg.Pool, 'query'> = t.app.services.db.pool) =>
    (
      await q.query<{ prosrc: string }>(
        `SELECT prosrc FROM pg_proc WHERE proname = $1 AND pronamespace = 'public'::regnamespace`,
        [name],
      )
    ).rows.map((r) => r.prosrc);

  it('are each the text of their file, and every function of the schema has one', async () => {
    expect(routines.map((r) => r.name)).toEqual([
      'activities/sql/activity_rollup.sql',
      'activities/sql/ingest.sql',
      'activities/sql/ingest_settled.sql',
      'activities/sql/rollup_slot.sql',
      'events/sql/record_events.sql',
      'media/sql/media_objects_collect.sql',
    ]);
    for (const routine of routines) {
      const { name, body } = parse(routine);
      expect(await source(name), routine.name).toEqual([body]);
    }
    const { rows } = await t.app.services.db.pool.query<{ proname: string }>(
      `SELECT proname FROM pg_proc p WHERE pronamespace = 'public'::regnamespace
          AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = p.oid AND d.deptype = 'e')
        ORDER BY proname`,
    );
    expect(rows.map((r) => r.proname)).toEqual(routines.map((r) => parse(r).name).sort());
  });

  it('apply a changed file once, and leave one a newer release applied', async () => {
    const logger = createLogger('silent');
    const release = (await readMigrations()).at(-1)!.name;
    const original = routines.find((r) => r.name === 'media/sql/media_objects_collect.sql')!;
    const changed: Routine = {
      ...original,
      sql: original.sql.replace('BEGIN\n', 'BEGIN\n    -- changed\n'),
      checksum: 'changed',
    };
    const client = await t.app.services.db.pool.connect();
    try {
      await applyRoutines(client, [changed], release, logger);
      expect(await source('media_objects_collect', client)).toEqual([parse(changed).body]);
      // An older release (its newest migration sorts first) leaves the newer text alone.
      await applyRoutines(client, [original], '00000000000000_older', logger);
      expect(await source('media_objects_collect', client)).toEqual([parse(changed).body]);
      // The same release again, or a later one, puts its own text back.
      await applyRoutines(client, [original], release, logger);
      expect(await source('media_objects_collect', client)).toEqual([parse(original).body]);
      const { rows } = await client.query<{ checksum: string; release: string }>(
        `SELECT checksum, release FROM "_clipgate_routines" WHERE name = $1`,
        [original.name],
      );
      expect(rows).toEqual([{ checksum: original.checksum, release }]);
    } finally {
      client.release();
    }
  });
});
