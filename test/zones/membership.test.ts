import { PGlite } from '@electric-sql/pglite';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  compileFilter,
  evaluateFilter,
  parseFilter,
  type FilterNode,
  type FilterRow,
  type SqlBuilder,
} from '../../src/filter/index.ts';
import { activityIdFromDate } from '../../src/activity-ids.ts';
import {
  testsZones,
  zoneMembershipEvaluate,
  zoneMembershipSql,
  type ZoneIndex,
} from '../../src/zones/membership.ts';
import { combinations } from '../helpers/filters.ts';

class Params implements SqlBuilder {
  readonly values: unknown[] = [];
  param(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

const LAST_MODIFIED = new Date('2026-11-21T12:00:00.000Z');
const ACCESSORY_ID = '0b8e6a3c-1f2d-4c5e-8a7b-9c0d1e2f3a4b';
const zoneIds = ['z1', 'z2', 'z3', 'z4', 'z5', 'zR', 'other'];
const someCells = [0, 1, 17, 38, 64, 100, 127];

/** Filters mixing zone conditions with startTime and objectLocations, up to `depth` levels deep. */
function filters(depth: number): fc.Arbitrary<FilterNode> {
  const zone = fc.constantFrom(...zoneIds);
  const leaf: fc.Arbitrary<FilterNode> = fc.oneof(
    fc.record({
      type: fc.constant('contains' as const),
      attribute: fc.constant('motionZones' as const),
      value: zone,
    }),
    fc.record({
      type: fc.constantFrom('contains_any' as const, 'contains_all' as const),
      attribute: fc.constant('motionZones' as const),
      values: fc.array(zone, { maxLength: 3 }),
    }),
    fc.record({
      type: fc.constant('contains_any' as const),
      attribute: fc.constant('objectLocations' as const),
      values: fc.array(fc.constantFrom(...someCells), { maxLength: 3 }),
    }),
    fc.record({
      type: fc.constant('compare' as const),
      left: fc.constant({ type: 'attribute' as const, attribute: 'startTime' as const }),
      operator: fc.constantFrom('<' as const, '>=' as const),
      value: fc.constantFrom(
        '2026-11-21T11:59:59.999Z',
        LAST_MODIFIED.toISOString(),
        '2026-11-21T12:00:00.001Z',
      ),
    }),
  );
  return combinations(leaf, depth);
}

describe('zone membership in SQL and in the reference evaluation', () => {
  const db = new PGlite();
  const rows: FilterRow[] = fc
    .sample(
      fc.record({
        startTime: fc.oneof(
          fc.constantFrom(-1, 0, 1).map((ms) => new Date(LAST_MODIFIED.getTime() + ms)),
          fc
            .integer({ min: -3_600_000, max: 3_600_000 })
            .map((ms) => new Date(LAST_MODIFIED.getTime() + ms)),
        ),
        motionZones: fc.uniqueArray(fc.constantFrom(...zoneIds.slice(0, 6)), { maxLength: 3 }),
        objectLocations: fc.uniqueArray(
          fc.oneof(fc.constantFrom(...someCells), fc.integer({ min: 0, max: 127 })),
          { maxLength: 4 },
        ),
      }),
      { numRuns: 200, seed: 1121 },
    )
    .map((row, i) => ({
      accessoryId: ACCESSORY_ID,
      ...row,
      activityId: activityIdFromDate(new Date(Date.UTC(2026, 10, 21) + i * 1000)),
      endTime: null,
      playbackDuration: null,
      relevanceLevel: 0,
    }));

  const indexes: fc.Arbitrary<ZoneIndex | null> = fc.option(
    fc
      .uniqueArray(fc.constantFrom('z1', 'z2', 'z3', 'z4', 'z5'), { maxLength: 5 })
      .chain((ids) =>
        fc.tuple(
          ...ids.map((id) =>
            fc
              .uniqueArray(
                fc.oneof(fc.constantFrom(...someCells), fc.integer({ min: 0, max: 127 })),
                {
                  maxLength: 20,
                },
              )
              .map((cells) => [id, cells.sort((a, b) => a - b)] as const),
          ),
        ),
      )
      .map((entries) => ({ lastModified: LAST_MODIFIED, cells: new Map(entries) })),
    { freq: 6 },
  );

  beforeAll(async () => {
    await db.exec(`CREATE TABLE activities (
      activity_id text PRIMARY KEY,
      start_time timestamptz NOT NULL,
      motion_zones text[] NOT NULL,
      object_locations smallint[] NOT NULL
    );
    CREATE TABLE zone_sets (accessory_id uuid PRIMARY KEY, last_modified timestamptz(3) NOT NULL);
    CREATE TABLE zones (
      accessory_id uuid NOT NULL REFERENCES zone_sets,
      zone_id text NOT NULL,
      cells smallint[] NOT NULL,
      PRIMARY KEY (accessory_id, zone_id)
    )`);
    for (const row of rows) {
      await db.query('INSERT INTO activities VALUES ($1, $2, $3::text[], $4::smallint[])', [
        row.activityId,
        row.startTime.toISOString(),
        row.motionZones,
        row.objectLocations,
      ]);
    }
  });
  afterAll(() => db.close());

  /** Stores `index` as the accessory's zones (none saved when null), as the zones service does. */
  async function saveZones(index: ZoneIndex | null): Promise<void> {
    await db.exec('DELETE FROM zones; DELETE FROM zone_sets');
    if (!index) return;
    await db.query('INSERT INTO zone_sets VALUES ($1, $2)', [ACCESSORY_ID, index.lastModified]);
    for (const [zoneId, cells] of index.cells) {
      await db.query('INSERT INTO zones VALUES ($1, $2, $3::smallint[])', [
        ACCESSORY_ID,
        zoneId,
        cells,
      ]);
    }
  }

  async function select(node: FilterNode, index: ZoneIndex | null): Promise<string[]> {
    await saveZones(index);
    const params = new Params();
    const condition = compileFilter(node, params, {
      zoneMembership: zoneMembershipSql(ACCESSORY_ID),
    });
    const { rows: selected } = await db.query<{ activity_id: string }>(
      `SELECT activity_id FROM activities WHERE ${condition} ORDER BY activity_id`,
      params.values,
    );
    return selected.map((row) => row.activity_id);
  }

  it('selects exactly the rows the reference accepts', async () => {
    let selective = 0;
    await fc.assert(
      fc.asyncProperty(filters(3), indexes, async (node, index) => {
        const expected = rows
          .filter((row) => evaluateFilter(node, row, { inZone: zoneMembershipEvaluate(index) }))
          .map((row) => row.activityId);
        expect(await select(node, index)).toEqual(expected);
        if (expected.length > 0 && expected.length < rows.length) selective++;
      }),
      { numRuns: 300, seed: 77 },
    );
    expect(selective).toBeGreaterThan(100);
  });

  it('follows the rule on hand-picked rows', async () => {
    const index: ZoneIndex = { lastModified: LAST_MODIFIED, cells: new Map([['z1', [17, 18]]]) };
    const inZone = zoneMembershipEvaluate(index)!;
    const row = (ms: number, motionZones: string[], objectLocations: number[]): FilterRow => ({
      activityId: '',
      accessoryId: ACCESSORY_ID,
      startTime: new Date(LAST_MODIFIED.getTime() + ms),
      endTime: null,
      playbackDuration: null,
      relevanceLevel: 0,
      motionZones,
      objectLocations,
    });
    expect(inZone(row(1, ['z1'], []), 'z1')).toBe(true); // after: exact
    expect(inZone(row(1, [], [17]), 'z1')).toBe(false);
    expect(inZone(row(0, ['z1'], []), 'z1')).toBe(false); // at lastModified: from the cells
    expect(inZone(row(0, [], [18]), 'z1')).toBe(true);
    expect(inZone(row(-1, ['z2'], [17]), 'z2')).toBe(false); // undefined zone, older: false
    expect(inZone(row(1, ['z2'], []), 'z2')).toBe(true); // undefined zone, newer: exact
    expect(inZone(row(-1, ['zR'], []), 'zR')).toBe(true); // the system zone: exact
    expect(inZone(row(-1, [], [17]), 'zR')).toBe(false);
    expect(zoneMembershipEvaluate(null)!(row(-1, ['z1'], []), 'z1')).toBe(true); // no save: exact
  });

  it('binds the accessory once and each zone id, all as parameters', () => {
    const params = new Params();
    const sql = compileFilter(
      parseFilter('contains(motionZones, "z1") OR contains_all(motionZones, ["zR", "z2"])'),
      params,
      { zoneMembership: zoneMembershipSql(ACCESSORY_ID) },
    );
    expect(params.values).toEqual(['z1', ACCESSORY_ID, 'zR', 'z2']);
    expect(sql).not.toMatch(/z1|zR|0b8e/);
  });

  it('knows which filters test zones', () => {
    expect(testsZones(parseFilter('NOT (relevanceLevel > 1 OR contains(motionZones, "z1"))'))).toBe(
      true,
    );
    expect(
      testsZones(parseFilter('contains_any(objectLocations, [1]) AND size(motionZones) > 0')),
    ).toBe(false);
  });
});
