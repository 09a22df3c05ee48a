import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  evaluateFilter,
  printFilter,
  type ComparisonOperator,
  type FilterNode,
} from '../../src/filter/index.ts';
import { coveredCells, rectangle, type Vertex } from '../../src/zones/geometry.ts';
import { zoneMembershipEvaluate } from '../../src/zones/membership.ts';
import type { ActivityWhere } from '../generated/graphql.ts';
import { backends, startApp, type TestApp } from '../helpers/app.ts';
import { gql, rest } from '../helpers/client.ts';
import { CreateActivity, ok, seedAccessory } from '../helpers/fixtures.ts';
import { FilteredPage, SaveZones } from './documents.ts';

/** Columns 0..3, rows 0..3: cells 0-3, 16-19, 32-35, 48-51. */
const LEFT = rectangle(0, 0, 0.25, 0.5);
/** Columns 12..15, rows 4..7: e.g. 76, 127. */
const RIGHT = rectangle(0.75, 0.5, 1, 1);
/** Columns 6..9, rows 2..5: e.g. 38, 89. */
const MIDDLE = rectangle(0.375, 0.25, 0.625, 0.75);

const zoneInput = (id: string, vertices: Vertex[]) => ({
  id,
  name: `Zone ${id}`,
  color: '#123abc',
  vertices,
});

interface Seeded {
  activityId: string;
  startTime: Date;
  relevanceLevel: number;
  motionZones: string[];
  objectLocations: number[];
}

const MINUTE = 60_000;

describe.each(backends)('zone-aware search on %s', (backend) => {
  let t: TestApp;
  let reader: string;
  let editor: string;

  beforeAll(async () => {
    t = await startApp(backend);
    reader = await t.token(['activities_basic']);
    editor = await t.token(['activities_basic', 'zones']);
  });
  afterAll(() => t.close());

  async function createActivity(
    ingest: string,
    accessoryId: string,
    createdAt: Date,
    fields: Omit<Seeded, 'activityId' | 'startTime'> & { startTime?: Date },
  ): Promise<Seeded> {
    const startTime = fields.startTime ?? createdAt;
    const { createActivity } = await ok(t, ingest, CreateActivity, {
      accessoryId,
      input: {
        createdAt: createdAt.toISOString(),
        startTime: startTime.toISOString(),
        relevanceLevel: fields.relevanceLevel,
        motionZones: fields.motionZones,
        objectLocations: fields.objectLocations,
      },
    });
    return { ...fields, startTime, activityId: createActivity.activityId };
  }

  async function saveZones(accessoryId: string, zones: ReturnType<typeof zoneInput>[]) {
    const { saveZones } = await ok(t, editor, SaveZones, { accessoryId, zones });
    return new Date(saveZones.lastModified!);
  }

  /** Every id the filter selects over GraphQL, newest first, paging `first` at a time. */
  async function graphqlIds(
    accessoryId: string,
    args: { filter?: string; where?: ActivityWhere },
    first = 100,
  ): Promise<string[]> {
    const ids: string[] = [];
    let after: string | undefined;
    for (;;) {
      const data = await ok(t, reader, FilteredPage, { id: accessoryId, first, after, ...args });
      const connection = data.accessory!.activities;
      ids.push(...connection.edges.map((e) => e.node.activityId));
      if (!connection.nextStartActivityId) return ids;
      after = connection.nextStartActivityId;
    }
  }

  async function restIds(accessoryId: string, filter: string): Promise<string[]> {
    const res = await rest(t.url, reader, 'POST', `/api/accessories/${accessoryId}/activities`, {
      filter,
      limit: 100,
    });
    expect(res.status).toBe(200);
    return res.body.activities.map((a: { activityId: string }) => a.activityId);
  }

  describe('motionZones conditions around lastModified (the zones-and-time rule)', () => {
    let accessoryId: string;
    let ingest: string;
    /** Activity names by id: o* started before the first save, n* after it. */
    const names = new Map<string, string>();

    /** The activities the filter selects, by name, over REST and GraphQL (which must agree). */
    async function select(filter: string): Promise<string[]> {
      const viaRest = await restIds(accessoryId, filter);
      expect(await graphqlIds(accessoryId, { filter }, 2)).toEqual(viaRest);
      return viaRest.map((id) => names.get(id) ?? id);
    }

    async function named(
      name: string,
      createdAt: Date,
      motionZones: string[],
      objectLocations: number[],
      startTime?: Date,
    ) {
      const { activityId } = await createActivity(ingest, accessoryId, createdAt, {
        relevanceLevel: name.startsWith('o') ? 1 : 2,
        motionZones,
        objectLocations,
        startTime,
      });
      names.set(activityId, name);
    }

    beforeAll(async () => {
      ({ accessoryId, ingest } = await seedAccessory(t, 'user-1', 'rule-5'));
      const t0 = Date.now() - 2 * 60 * MINUTE;
      await named('o1', new Date(t0), ['z1'], []);
      await named('o2', new Date(t0 + MINUTE), [], [17]);
      await named('o3', new Date(t0 + 2 * MINUTE), ['z2'], [76]);
      await named('o4', new Date(t0 + 3 * MINUTE), ['zR'], [38]);
      await named('o5', new Date(t0 + 4 * MINUTE), ['z3'], [127]);
      await named('o6', new Date(t0 + 5 * MINUTE), ['z1', 'z2'], [0, 127]);
    });

    it('is exact before the first save', async () => {
      expect(await select('contains(motionZones, "z1")')).toEqual(['o6', 'o1']);
      expect(await select('contains_any(motionZones, ["z1", "z2"])')).toEqual(['o6', 'o3', 'o1']);
      expect(await select('contains(motionZones, "z3")')).toEqual(['o5']);
      expect(await select('contains(motionZones, "zR")')).toEqual(['o4']);
    });

    it('answers older activities from objectLocations in the current polygons, newer ones exactly', async () => {
      const lastModified = await saveZones(accessoryId, [
        zoneInput('z1', LEFT),
        zoneInput('z2', RIGHT),
      ]);
      // Activities that start after the save (their clocks say so: an hour ahead).
      const t1 = Date.now() + 60 * MINUTE;
      await named('n1', new Date(t1), ['z1'], []);
      await named('n2', new Date(t1 + MINUTE), [], [17]);
      await named('n3', new Date(t1 + 2 * MINUTE), ['z3'], []);
      await named('n4', new Date(t1 + 3 * MINUTE), ['z2'], [38]);
      // Started exactly at lastModified: not after it, so answered from its cells.
      await named('nb', new Date(t1 + 10 * MINUTE), ['z1'], [76], lastModified);

      // o1 is tagged z1 but holds no object in it; o2 and o6 hold one; n1 is exact.
      expect(await select('contains(motionZones, "z1")')).toEqual(['n1', 'o6', 'o2']);
      expect(await select('contains(motionZones, "z2")')).toEqual(['nb', 'n4', 'o6', 'o5', 'o3']);
      // z3 is not defined: exact for newer activities, false for older ones (o5 is tagged z3).
      expect(await select('contains(motionZones, "z3")')).toEqual(['n3']);
      // The system zone is always exact.
      expect(await select('contains(motionZones, "zR")')).toEqual(['o4']);
      expect(await select('contains_all(motionZones, ["z1", "z2"])')).toEqual(['o6']);
      // Never NULL: NOT selects exactly the rest.
      expect(await select('NOT contains(motionZones, "z1")')).toEqual([
        'nb',
        'n4',
        'n3',
        'n2',
        'o5',
        'o4',
        'o3',
        'o1',
      ]);
      expect(
        await select(
          'contains(motionZones, "z1") AND relevanceLevel = 2 OR contains(motionZones, "zR")',
        ),
      ).toEqual(['n1', 'o4']);
      // The typed filter goes the same way.
      const viaWhere = await graphqlIds(accessoryId, {
        where: { motionZones: { containsAny: ['z1'] } },
      });
      expect(viaWhere.map((id) => names.get(id))).toEqual(['n1', 'o6', 'o2']);
      // Lists are unaffected by zones.
      expect(await select('contains(objectLocations, 17)')).toEqual(['n2', 'o2']);
    });

    it('moving a zone changes the answers for older activities, not for newer ones', async () => {
      expect(await select('contains(motionZones, "z1")')).toEqual(['n1', 'o6', 'o2']);

      // z1 moves from the left to the middle. The n* activities still start after the save.
      await saveZones(accessoryId, [zoneInput('z1', MIDDLE), zoneInput('z2', RIGHT)]);
      expect(await select('contains(motionZones, "z1")')).toEqual(['n1', 'o4']);
      // n4 holds an object in the middle, but started after the save: exact, not z1.
      expect(await select('contains(motionZones, "z2")')).toEqual(['nb', 'n4', 'o6', 'o5', 'o3']);

      // Saving no zones at all: every older activity is outside every zone but zR.
      await saveZones(accessoryId, []);
      expect(await select('contains_any(motionZones, ["z1", "z2", "z3", "z4", "z5"])')).toEqual([
        'n4',
        'n3',
        'n1',
      ]);
      expect(await select('contains(motionZones, "zR")')).toEqual(['o4']);
    });
  });

  describe('the typed where argument', () => {
    let accessoryId: string;

    beforeAll(async () => {
      ({ accessoryId } = await seedAccessory(t, 'user-1', 'typed'));
    });

    it('refuses bad values, naming the field', async () => {
      const cases: Array<[ActivityWhere, string]> = [
        [{ motionZones: { containsAny: ['z1', 'z9'] } }, 'where.motionZones.containsAny.1'],
        [{ motionZones: { containsAll: ['zone'] } }, 'where.motionZones.containsAll.0'],
        [{ objectLocations: { containsAny: [128] } }, 'where.objectLocations.containsAny.0'],
        [{ objectLocations: { containsAll: [0, -1] } }, 'where.objectLocations.containsAll.1'],
        [
          { objectLocations: { containsAny: Array.from({ length: 129 }, (_, i) => i % 128) } },
          'where.objectLocations.containsAny',
        ],
        [{ startTime: { gte: '0000-06-01T00:00:00Z' } }, 'where.startTime.gte'],
      ];
      for (const [where, field] of cases) {
        const res = await gql(t.url, reader, FilteredPage, { id: accessoryId, where });
        expect(res.errors?.[0]?.extensions).toMatchObject({
          code: 'INVALID_ARGUMENT',
          details: { field },
        });
      }
      const typo = await gql(t.url, reader, FilteredPage, {
        id: accessoryId,
        where: { relevanceLevel: { equals: 1 } } as never,
      });
      expect(typo.errors?.[0]?.extensions?.code).toBe('INVALID_ARGUMENT');
    });
  });

  describe('the typed where and the filter string agree', () => {
    let accessoryId: string;
    const rows: Seeded[] = [];
    let inZone: ReturnType<typeof zoneMembershipEvaluate>;
    const zones = [zoneInput('z1', LEFT), zoneInput('z2', MIDDLE), zoneInput('z3', RIGHT)];
    const zoneIds = ['z1', 'z2', 'z3', 'z4', 'z5', 'zR'];
    const cells = [0, 17, 38, 51, 76, 89, 100, 127];
    const instants: string[] = [];

    beforeAll(async () => {
      const seeded = await seedAccessory(t, 'user-1', 'agree');
      accessoryId = seeded.accessoryId;
      const attributes = fc.sample(
        fc.record({
          relevanceLevel: fc.integer({ min: 0, max: 4 }),
          motionZones: fc.uniqueArray(fc.constantFrom(...zoneIds), { maxLength: 3 }),
          objectLocations: fc.uniqueArray(
            fc.oneof(fc.constantFrom(...cells), fc.integer({ min: 0, max: 127 })),
            { maxLength: 4 },
          ),
        }),
        { numRuns: 40, seed: 20261121 },
      );
      const t0 = Date.now() - 3 * 60 * MINUTE;
      for (const [i, fields] of attributes.slice(0, 24).entries()) {
        rows.push(
          await createActivity(seeded.ingest, accessoryId, new Date(t0 + i * MINUTE), fields),
        );
      }
      // The zones are saved between the older and the newer activities.
      const lastModified = await saveZones(accessoryId, zones);
      const t1 = Date.now() + 60 * MINUTE;
      for (const [i, fields] of attributes.slice(24).entries()) {
        const createdAt = new Date(t1 + i * MINUTE);
        rows.push(
          await createActivity(seeded.ingest, accessoryId, createdAt, {
            ...fields,
            startTime: i === 3 ? lastModified : createdAt,
          }),
        );
      }
      inZone = zoneMembershipEvaluate({
        lastModified,
        cells: new Map(zones.map((z) => [z.id, coveredCells(z.vertices)])),
      });
      for (const row of rows) {
        instants.push(
          row.startTime.toISOString(),
          new Date(row.startTime.getTime() + 1).toISOString(),
        );
      }
      instants.push(lastModified.toISOString());
    });

    /** The filter the where means, built independently of the service's translation. */
    function equivalent(where: ActivityWhere): FilterNode | undefined {
      const nodes: FilterNode[] = [];
      const operators: Record<string, ComparisonOperator> = {
        eq: '=',
        gt: '>',
        gte: '>=',
        lt: '<',
        lte: '<=',
      };
      for (const attribute of ['relevanceLevel', 'startTime'] as const) {
        for (const [key, value] of Object.entries(where[attribute] ?? {})) {
          if (value === null || value === undefined) continue;
          nodes.push({
            type: 'compare',
            left: { type: 'attribute', attribute },
            operator: operators[key]!,
            value: typeof value === 'string' ? new Date(value).toISOString() : (value as number),
          });
        }
      }
      for (const attribute of ['motionZones', 'objectLocations'] as const) {
        const condition = where[attribute];
        if (condition?.containsAny) {
          nodes.push({ type: 'contains_any', attribute, values: [...condition.containsAny] });
        }
        if (condition?.containsAll) {
          nodes.push({ type: 'contains_all', attribute, values: [...condition.containsAll] });
        }
      }
      return nodes.length === 0
        ? undefined
        : nodes.length === 1
          ? nodes[0]
          : { type: 'and', operands: nodes };
    }

    /** Sometimes null: "not given" as a GraphQL client may say it. */
    const optional = <T>(arbitrary: fc.Arbitrary<T>) =>
      fc.option(arbitrary, { nil: null, freq: 5 });
    /** One or two of the keys, each with a value. */
    const some = <T>(keys: readonly string[], value: fc.Arbitrary<T>) =>
      fc
        .uniqueArray(fc.constantFrom(...keys), { minLength: 1, maxLength: 2 })
        .chain((chosen) =>
          fc
            .tuple(...chosen.map(() => optional(value)))
            .map((values) => Object.fromEntries(chosen.map((key, i) => [key, values[i]]))),
        );
    /** Mostly left out, so that a where holds one or two conditions. */
    const rarely = <T>(arbitrary: fc.Arbitrary<T>) =>
      fc.oneof(
        { weight: 3, arbitrary: fc.constant(undefined) },
        { weight: 2, arbitrary: optional(arbitrary) },
      );
    const wheres = (): fc.Arbitrary<ActivityWhere> =>
      fc.record({
        relevanceLevel: rarely(
          some(['eq', 'gt', 'gte', 'lt', 'lte'], fc.integer({ min: -1, max: 5 })),
        ),
        startTime: rarely(some(['gt', 'gte', 'lt', 'lte'], fc.constantFrom(...instants))),
        motionZones: rarely(
          some(
            ['containsAny', 'containsAll'],
            fc.array(fc.constantFrom(...zoneIds), { maxLength: 3 }),
          ),
        ),
        objectLocations: rarely(
          some(
            ['containsAny', 'containsAll'],
            fc.array(fc.constantFrom(...cells), { maxLength: 2 }),
          ),
        ),
      });

    it('gives the same pages as the equivalent filter string, and the reference answer', async () => {
      let selective = 0;
      await fc.assert(
        fc.asyncProperty(wheres(), fc.integer({ min: 1, max: 50 }), async (where, first) => {
          const node = equivalent(where);
          const filter = node ? printFilter(node) : '';
          const expected = rows
            .filter(
              (row) =>
                !node ||
                evaluateFilter(
                  node,
                  { ...row, accessoryId, endTime: null, playbackDuration: null },
                  { inZone },
                ),
            )
            .map((row) => row.activityId)
            .reverse();
          const viaWhere = await graphqlIds(accessoryId, { where }, first);
          expect(viaWhere).toEqual(expected);
          expect(await graphqlIds(accessoryId, { filter }, first)).toEqual(viaWhere);
          if (expected.length > 0 && expected.length < rows.length) selective++;
        }),
        { numRuns: 60, seed: 55 },
      );
      expect(selective).toBeGreaterThan(15);
    });

    it('ANDs filter and where', async () => {
      await fc.assert(
        fc.asyncProperty(wheres(), wheres(), async (a, b) => {
          const [left, right] = [equivalent(a), equivalent(b)];
          fc.pre(left !== undefined && right !== undefined);
          const both = await graphqlIds(accessoryId, { filter: printFilter(left!), where: b });
          const expected = rows
            .filter((row) =>
              [left!, right!].every((node) =>
                evaluateFilter(
                  node,
                  { ...row, accessoryId, endTime: null, playbackDuration: null },
                  { inZone },
                ),
              ),
            )
            .map((row) => row.activityId)
            .reverse();
          expect(both).toEqual(expected);
          expect(
            await restIds(accessoryId, `(${printFilter(left!)}) AND (${printFilter(right!)})`),
          ).toEqual(expected);
        }),
        { numRuns: 20, seed: 56 },
      );
    });
  });
});
