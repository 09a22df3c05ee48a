import { PGlite } from '@electric-sql/pglite';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attributeKinds, comparisonOperators } from '../../src/filter/ast.ts';
import type { AttributeKind } from '../../src/filter/ast.ts';
import { compileFilter, evaluateFilter, parseFilter, printFilter } from '../../src/filter/index.ts';
import type {
  CompileOptions,
  EvaluateOptions,
  FilterNode,
  FilterRow,
  ListAttribute,
  Literal,
  Operand,
  ScalarAttribute,
  SqlBuilder,
} from '../../src/filter/index.ts';
import { activityIdFromDate } from '../../src/activity-ids.ts';
import { combinations } from '../helpers/filters.ts';

type Literals = Record<AttributeKind, fc.Arbitrary<Literal>>;

const scalarAttributes: ScalarAttribute[] = [
  'activityId',
  'accessoryId',
  'startTime',
  'endTime',
  'playbackDuration',
  'relevanceLevel',
];
const listAttributes: ListAttribute[] = ['motionZones', 'objectLocations'];

/** Well-typed filters of at most `depth` levels of AND/OR/NOT, with literals from `literals`. */
function filters(literals: Literals, depth: number): fc.Arbitrary<FilterNode> {
  const operands: Array<[Operand, fc.Arbitrary<Literal>]> = [
    ...scalarAttributes.map((attribute): [Operand, fc.Arbitrary<Literal>] => [
      { type: 'attribute', attribute },
      literals[attributeKinds[attribute]],
    ]),
    ...listAttributes.map((attribute): [Operand, fc.Arbitrary<Literal>] => [
      { type: 'size', attribute },
      literals.number,
    ]),
  ];
  const list = fc.constantFrom(...listAttributes);
  const elements = (attribute: ListAttribute) => literals[attributeKinds[attribute]];
  const leaf: fc.Arbitrary<FilterNode> = fc.oneof(
    fc.constantFrom(...operands).chain(([left, literal]) =>
      fc.oneof(
        fc.record({
          type: fc.constant('compare' as const),
          left: fc.constant(left),
          operator: fc.constantFrom(...comparisonOperators),
          value: literal,
        }),
        fc.record({
          type: fc.constant('between' as const),
          left: fc.constant(left),
          low: literal,
          high: literal,
        }),
      ),
    ),
    fc.record({
      type: fc.constantFrom('attribute_exists' as const, 'attribute_not_exists' as const),
      attribute: fc.constantFrom(...scalarAttributes, ...listAttributes),
    }),
    list.chain((attribute) =>
      fc.record({
        type: fc.constant('contains' as const),
        attribute: fc.constant(attribute),
        value: elements(attribute),
      }),
    ),
    list.chain((attribute) =>
      fc.record({
        type: fc.constantFrom('contains_any' as const, 'contains_all' as const),
        attribute: fc.constant(attribute),
        values: fc.array(elements(attribute), { maxLength: 4 }),
      }),
    ),
  );
  return combinations(leaf, depth);
}

const dateBetween = (min: string, max: string) =>
  fc.date({ min: new Date(min), max: new Date(max), noInvalidDate: true });

describe('printFilter', () => {
  const anyLiterals: Literals = {
    activityId: dateBetween('0000-01-01T00:00:00Z', '9999-12-31T23:59:59Z').map(activityIdFromDate),
    timestamp: dateBetween('0001-01-01T00:00:00Z', '9999-12-31T23:59:59.999Z').map((date) =>
      date.toISOString(),
    ),
    number: fc.oneof(
      fc.integer(),
      fc.double({ noNaN: true, noDefaultInfinity: true }).map((x) => x + 0),
    ),
    zone: fc.oneof(
      fc.string({ unit: fc.constantFrom('"', '\\', 'z', ' ', "'") }),
      fc.string({ unit: 'binary' }).map((s) => s.replaceAll('\0', '')),
    ),
    cell: fc.integer({ min: 0, max: 127 }),
    uuid: fc.uuid({ version: 4 }),
  };

  it('prints text that parses back to the same filter', () => {
    fc.assert(
      fc.property(filters(anyLiterals, 4), (node) => {
        const text = printFilter(node);
        fc.pre(text.length <= 4096);
        expect(parseFilter(text)).toEqual(node);
      }),
      { numRuns: 1000 },
    );
  });
});

class Params implements SqlBuilder {
  readonly values: unknown[] = [];
  param(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

describe('compileFilter against PostgreSQL', () => {
  const db = new PGlite();
  const instants = [
    '2026-10-31T23:59:59.999Z',
    '2026-11-01T00:00:00.000Z',
    '2026-11-01T00:00:00.001Z',
    '2026-11-01T12:30:00.000Z',
    '2026-11-02T00:00:00.000Z',
  ];
  const zones = ['z1', 'z2', 'z3', 'Z1', '', "it's", 'say "hi"', 'back\\slash', 'zöne ✓'];
  const durations = [0, 1, 999, 1000, 1500, 60_000];
  const cells = [0, 1, 5, 64, 126, 127];
  // Accessory ids whose bytes and text order differently would show a disagreement in ordering.
  const accessoryIds = [
    '00000000-0000-4000-8000-000000000000',
    '0b8e6a3c-1f2d-4c5e-8a7b-9c0d1e2f3a4b',
    '9fffffff-ffff-4fff-bfff-ffffffffffff',
    'a0000000-0000-4000-8000-000000000000',
    'ffffffff-ffff-4fff-bfff-ffffffffffff',
  ];
  const instant = fc.oneof(
    fc.constantFrom(...instants),
    dateBetween('2026-10-31T00:00:00Z', '2026-11-03T00:00:00Z').map((date) => date.toISOString()),
  );
  const activityIds = Array.from({ length: 300 }, (_, i) =>
    activityIdFromDate(new Date(Date.UTC(2026, 10, 1) + i * 37_000)),
  );
  const rows: FilterRow[] = fc
    .sample(
      fc.record({
        accessoryId: fc.constantFrom(...accessoryIds),
        startTime: instant.map((iso) => new Date(iso)),
        endTime: fc.option(
          instant.map((iso) => new Date(iso)),
          { freq: 4 },
        ),
        playbackDuration: fc.option(fc.oneof(fc.constantFrom(...durations), fc.nat(100_000)), {
          freq: 4,
        }),
        relevanceLevel: fc.integer({ min: 0, max: 4 }),
        motionZones: fc.array(fc.constantFrom(...zones), { maxLength: 4 }),
        objectLocations: fc.array(
          fc.oneof(fc.constantFrom(...cells), fc.integer({ min: 0, max: 127 })),
          { maxLength: 5 },
        ),
      }),
      { numRuns: activityIds.length, seed: 20261101 },
    )
    .map((row, i) => ({ ...row, activityId: activityIds[i] ?? '' }));

  const nearData: Literals = {
    activityId: fc.oneof(
      fc.constantFrom(...activityIds),
      dateBetween('2026-10-31T00:00:00Z', '2026-11-03T00:00:00Z').map(activityIdFromDate),
    ),
    timestamp: instant,
    number: fc.oneof(
      fc.constantFrom(...durations, 2, 3, 4, -1, 0.5, 1499.5, 1e21),
      fc.integer({ min: -5, max: 70_000 }),
    ),
    zone: fc.constantFrom(...zones, 'absent', "'; DROP TABLE activities; --"),
    cell: fc.oneof(fc.constantFrom(...cells), fc.integer({ min: 0, max: 127 })),
    // Upper case too: the parser lowers it.
    uuid: fc.oneof(
      fc.constantFrom(...accessoryIds, accessoryIds[1]!.toUpperCase()),
      fc.uuid({ version: 4 }),
    ),
  };

  beforeAll(async () => {
    await db.exec(`CREATE TABLE activities (
      activity_id text PRIMARY KEY,
      accessory_id uuid NOT NULL,
      start_time timestamptz NOT NULL,
      end_time timestamptz NULL,
      playback_duration integer NULL,
      relevance_level integer NOT NULL,
      motion_zones text[] NOT NULL,
      object_locations smallint[] NOT NULL
    )`);
    for (const row of rows) {
      await db.query(
        `INSERT INTO activities VALUES ($1, $2::uuid, $3::timestamptz, $4::timestamptz, $5, $6, $7::text[], $8::smallint[])`,
        [
          row.activityId,
          row.accessoryId,
          row.startTime.toISOString(),
          row.endTime?.toISOString() ?? null,
          row.playbackDuration,
          row.relevanceLevel,
          row.motionZones,
          row.objectLocations,
        ],
      );
    }
  });
  afterAll(() => db.close());

  /** Checks that the SQL selects exactly the rows evaluateFilter accepts; returns how many. */
  async function matches(node: FilterNode, compile: CompileOptions, evaluate: EvaluateOptions) {
    const params = new Params();
    const sql = `SELECT activity_id FROM activities WHERE ${compileFilter(node, params, compile)} ORDER BY activity_id`;
    const { rows: selected } = await db.query<{ activity_id: string }>(sql, params.values);
    const expected = rows.filter((row) => evaluateFilter(node, row, evaluate));
    expect(selected.map((row) => row.activity_id)).toEqual(expected.map((row) => row.activityId));
    return expected.length;
  }

  /** Runs `numRuns` random filters and checks that most of them tell rows apart. */
  async function checkAgainstDatabase(
    numRuns: number,
    compile: CompileOptions = {},
    evaluate: EvaluateOptions = {},
  ) {
    let selective = 0;
    await fc.assert(
      fc.asyncProperty(filters(nearData, 3), async (node) => {
        const count = await matches(node, compile, evaluate);
        if (count > 0 && count < rows.length) selective++;
      }),
      { numRuns, seed: 4096 },
    );
    expect(selective).toBeGreaterThan(numRuns / 3);
  }

  it('selects exactly the rows evaluateFilter accepts', async () => {
    await checkAgainstDatabase(400);
  });

  it('selects exactly the rows evaluateFilter accepts with a zone membership hook', async () => {
    await checkAgainstDatabase(
      200,
      {
        zoneMembership: (zoneId, sql) => {
          const zone = sql.param(zoneId);
          return `${zone}::text = ANY(motion_zones) OR (${zone}::text = 'z1' AND 5 = ANY(object_locations))`;
        },
      },
      {
        inZone: (row, zoneId) =>
          row.motionZones.includes(zoneId) || (zoneId === 'z1' && row.objectLocations.includes(5)),
      },
    );
  });

  it('agrees on hand-picked edge cases', async () => {
    for (const text of [
      'NOT endTime < "2026-11-02T00:00:00Z"',
      'NOT playbackDuration BETWEEN 0 AND 1000',
      'playbackDuration <> 1000 OR endTime <> "2026-11-01T00:00:00Z"',
      'attribute_not_exists(endTime) AND attribute_exists(playbackDuration)',
      'attribute_not_exists(motionZones) OR size(objectLocations) = 0',
      'contains_any(motionZones, []) OR NOT contains_all(objectLocations, [])',
      'contains(motionZones, "it\'s") OR contains(motionZones, "back\\\\slash")',
      'contains_all(motionZones, ["z1", "z1"]) AND relevanceLevel < 2.5',
      'startTime = "2026-11-01T01:00:00.001+01:00"',
      'activityId BETWEEN "20261101T000000Z" AND "20261101T010000Z"',
      'accessoryId = "0B8E6A3C-1F2D-4C5E-8A7B-9C0D1E2F3A4B" OR accessoryId > "9fffffff-ffff-4fff-bfff-ffffffffffff"',
      'accessoryId BETWEEN "0b8e6a3c-1f2d-4c5e-8a7b-9c0d1e2f3a4b" AND "a0000000-0000-4000-8000-000000000000"',
    ]) {
      await matches(parseFilter(text), {}, {});
    }
  });
});
