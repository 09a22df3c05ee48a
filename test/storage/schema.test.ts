import fs from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/storage/database.ts';
import { createLogger } from '../../src/logger.ts';
import { backends, directUrlOf, freshPostgres } from '../helpers/app.ts';

interface Field {
  column: string;
  type: string;
  nullable: boolean;
  list: boolean;
  db: string | undefined;
}

/** The scalar fields of every model of prisma/schema.prisma, by table. */
async function prismaModels(): Promise<Map<string, Map<string, Field>>> {
  const text = await fs.readFile(new URL('../../prisma/schema.prisma', import.meta.url), 'utf8');
  const models = new Map<string, Map<string, Field>>();
  const scalars = new Set(['String', 'Int', 'BigInt', 'DateTime', 'Json', 'Boolean', 'Float']);
  for (const [, name, body] of text.matchAll(/^model (\w+) \{([\s\S]*?)^\}/gm)) {
    const table = /@@map\("(\w+)"\)/.exec(body!)?.[1] ?? name!;
    const fields = new Map<string, Field>();
    for (const line of body!.split('\n')) {
      const m = /^\s+(\w+)\s+(\w+)(\[\])?(\?)?(.*)$/.exec(line);
      if (!m || !scalars.has(m[2]!)) continue;
      const column = /@map\("(\w+)"\)/.exec(m[5]!)?.[1] ?? m[1]!;
      fields.set(column, {
        column,
        type: m[2]!,
        list: m[3] === '[]',
        nullable: m[4] === '?',
        db: /@db\.(\w+)/.exec(m[5]!)?.[1],
      });
    }
    models.set(table, fields);
  }
  return models;
}

/** The PostgreSQL type a Prisma field maps to (udt_name in information_schema). */
function expectedUdt(f: Field): string {
  const base =
    f.db === 'Uuid'
      ? 'uuid'
      : f.db === 'SmallInt'
        ? 'int2'
        : (
            {
              String: 'text',
              Int: 'int4',
              BigInt: 'int8',
              DateTime: 'timestamptz',
              Json: 'jsonb',
              Boolean: 'bool',
              Float: 'float8',
            } as Record<string, string>
          )[f.type]!;
  return f.list ? `_${base}` : base;
}

describe.each(backends)('prisma schema and SQL migrations on %s', (backend) => {
  let db: Database;
  let drop: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const pgdb = backend === 'postgres' ? await freshPostgres() : undefined;
    drop = pgdb?.drop;
    db = await openDatabase({
      databaseUrl: pgdb?.url,
      directUrl: pgdb && directUrlOf(pgdb.url),
      embeddedDir: 'memory://',
      logger: createLogger('silent'),
    });
  });
  afterAll(async () => {
    await db.close();
    await drop?.();
  });

  it('have the same tables, columns, types and nullability', async () => {
    const models = await prismaModels();
    const { rows } = await db.pool.query<{
      table_name: string;
      column_name: string;
      udt_name: string;
      is_nullable: string;
    }>(
      `SELECT table_name, column_name, udt_name, is_nullable FROM information_schema.columns
        WHERE table_schema = 'public' AND table_name NOT IN ('_prisma_migrations', '_clipgate_routines')
          AND table_name NOT IN (SELECT relname FROM pg_class WHERE relispartition)`,
    );
    const actual = new Map<string, Map<string, { udt: string; nullable: boolean }>>();
    for (const r of rows) {
      if (!actual.has(r.table_name)) actual.set(r.table_name, new Map());
      actual
        .get(r.table_name)!
        .set(r.column_name, { udt: r.udt_name, nullable: r.is_nullable === 'YES' });
    }
    expect([...actual.keys()].sort()).toEqual([...models.keys()].sort());
    for (const [table, fields] of models) {
      const columns = actual.get(table)!;
      expect([...columns.keys()].sort(), table).toEqual([...fields.keys()].sort());
      for (const field of fields.values()) {
        const column = columns.get(field.column)!;
        // Prisma lists cannot be null; the migrations make them NOT NULL as well.
        expect({ table, column: field.column, udt: column.udt, nullable: column.nullable }).toEqual(
          {
            table,
            column: field.column,
            udt: expectedUdt(field),
            nullable: field.nullable,
          },
        );
      }
    }
  });

  it('lets the generated client read and write every model', async () => {
    const account = await db.prisma.account.create({
      data: { id: crypto.randomUUID(), subject: 'schema-test', retentionDays: 7 },
    });
    const accessory = await db.prisma.accessory.create({
      data: { id: crypto.randomUUID(), accountId: account.id, deviceId: 'd', name: 'n' },
    });
    const now = new Date();
    await db.prisma.activity.create({
      data: {
        accessoryId: accessory.id,
        accountId: account.id,
        activityId: '20261121T000000Z',
        createdAt: now,
        startTime: now,
        relevanceLevel: 1,
        motionZones: ['z1'],
        objectLocations: [3],
      },
    });
    await db.prisma.event.create({
      data: { accountId: account.id, eventType: 'activity_created', eventData: { a: 1 } },
    });
    expect(await db.prisma.activity.findFirst()).toMatchObject({
      motionZones: ['z1'],
      objectLocations: [3],
      endTime: null,
    });
    expect(await db.prisma.event.count()).toBe(1);
  });

  it('applies each migration once, even when several instances start together', async () => {
    const dirs = (
      await fs.readdir(new URL('../../prisma/migrations', import.meta.url), { withFileTypes: true })
    ).filter((d) => d.isDirectory());
    const count = async (d: Database) =>
      (await d.pool.query('SELECT 1 FROM _prisma_migrations')).rowCount;
    expect(await count(db)).toBe(dirs.length);
    if (backend !== 'postgres') return;
    const shared = await freshPostgres();
    const logger = createLogger('silent');
    const instances = await Promise.all(
      [1, 2, 3].map(() =>
        openDatabase({
          databaseUrl: shared.url,
          directUrl: directUrlOf(shared.url),
          embeddedDir: 'memory://',
          logger,
        }),
      ),
    );
    expect(await count(instances[0]!)).toBe(dirs.length);
    await Promise.all(instances.map((d) => d.close()));
    await shared.drop();
  });
});
