import { MAX_LIST_ITEMS } from '../../filter/index.ts';
import type {
  ComparisonOperator,
  FilterNode,
  ListAttribute,
  ScalarAttribute,
} from '../../filter/index.ts';
import { invalidArgument } from '../../errors.ts';
import { builder } from '../builder.ts';
import { GRID_CELLS } from '../../zones/geometry.ts';
import { isZoneId } from '../../zones/validation.ts';

/**
 * `Accessory.activities(where: ActivityWhere)`: the typed form of a filter. It compiles to the
 * same FilterNode as the filter string (so it runs through the same SQL, zone rule included):
 * every condition given is one comparison or contains_any/contains_all node, all of them ANDed.
 */
export interface ActivityWhereInput {
  relevanceLevel?: Comparisons<number> | null;
  startTime?: Comparisons<Date> | null;
  motionZones?: ListCondition<string> | null;
  objectLocations?: ListCondition<number> | null;
}

interface Comparisons<T> {
  eq?: T | null;
  gt?: T | null;
  gte?: T | null;
  lt?: T | null;
  lte?: T | null;
}

interface ListCondition<T> {
  containsAny?: readonly T[] | null;
  containsAll?: readonly T[] | null;
}

const comparisonOperators = {
  eq: '=',
  gt: '>',
  gte: '>=',
  lt: '<',
  lte: '<=',
} as const satisfies Record<keyof Comparisons<unknown>, ComparisonOperator>;

const IntCondition = builder.inputType('IntCondition', {
  description: 'Comparisons of an integer attribute; every one given must hold.',
  fields: (t) => ({
    eq: t.int(),
    gt: t.int(),
    gte: t.int(),
    lt: t.int(),
    lte: t.int(),
  }),
});

const DateTimeCondition = builder.inputType('DateTimeCondition', {
  description: 'A time box: every bound given must hold, e.g. `{ gte: from, lt: to }`.',
  fields: (t) => ({
    gt: t.field({ type: 'DateTime' }),
    gte: t.field({ type: 'DateTime' }),
    lt: t.field({ type: 'DateTime' }),
    lte: t.field({ type: 'DateTime' }),
  }),
});

const ZoneIdsCondition = builder.inputType('ZoneIdsCondition', {
  description:
    'Zone membership (z1..z5, zR), answered by the zones-and-time rule (docs/decisions/0031-zones-and-time-rule.md); both given: both must hold.',
  fields: (t) => ({
    containsAny: t.stringList({ description: 'In at least one of these zones (none: false).' }),
    containsAll: t.stringList({ description: 'In every one of these zones (none: true).' }),
  }),
});

const CellsCondition = builder.inputType('CellsCondition', {
  description: 'Object locations: cells 0..127 of the 16x8 grid; both given: both must hold.',
  fields: (t) => ({
    containsAny: t.intList({ description: 'An object in at least one of these cells.' }),
    containsAll: t.intList({ description: 'Objects in every one of these cells.' }),
  }),
});

export const ActivityWhere = builder.inputType('ActivityWhere', {
  description:
    'A typed filter: every condition given must hold. It means exactly what the equivalent filter string means; with `filter` too, both must hold.',
  fields: (t) => ({
    relevanceLevel: t.field({ type: IntCondition }),
    startTime: t.field({ type: DateTimeCondition }),
    motionZones: t.field({ type: ZoneIdsCondition }),
    objectLocations: t.field({ type: CellsCondition }),
  }),
});

/** The `where` argument as a FilterNode (undefined when it holds no condition). */
export function whereFilter(
  where: ActivityWhereInput | null | undefined,
  field = 'where',
): FilterNode | undefined {
  if (!where) return undefined;
  const nodes: FilterNode[] = [];

  const compare = <T>(
    attribute: ScalarAttribute,
    conditions: Comparisons<T> | null | undefined,
    literal: (value: T, at: string) => string | number,
  ) => {
    for (const [key, operator] of Object.entries(comparisonOperators)) {
      const value = conditions?.[key as keyof Comparisons<T>];
      if (value == null) continue;
      const at = `${field}.${attribute}.${key}`;
      nodes.push({
        type: 'compare',
        left: { type: 'attribute', attribute },
        operator,
        value: literal(value, at),
      });
    }
  };
  const contains = <T extends string | number>(
    attribute: ListAttribute,
    condition: ListCondition<T> | null | undefined,
    check: (value: T) => boolean,
    expected: string,
  ) => {
    for (const [key, type] of [
      ['containsAny', 'contains_any'],
      ['containsAll', 'contains_all'],
    ] as const) {
      const values = condition?.[key];
      if (values == null) continue;
      const at = `${field}.${attribute}.${key}`;
      if (values.length > MAX_LIST_ITEMS) {
        throw invalidArgument(at, `a list may hold at most ${MAX_LIST_ITEMS} items`);
      }
      values.forEach((value, i) => {
        if (!check(value)) throw invalidArgument(`${at}.${i}`, `expected ${expected}`);
      });
      nodes.push({ type, attribute, values: [...values] });
    }
  };

  compare('relevanceLevel', where.relevanceLevel, (value) => value + 0);
  compare('startTime', where.startTime, (value, at) => {
    const year = value.getUTCFullYear();
    if (year < 1 || year > 9999) throw invalidArgument(at, 'the time must be in years 1..9999');
    return value.toISOString();
  });
  contains('motionZones', where.motionZones, isZoneId, 'a zone id z1..z5 or zR');
  contains(
    'objectLocations',
    where.objectLocations,
    (cell) => Number.isInteger(cell) && cell >= 0 && cell < GRID_CELLS,
    `a cell 0..${GRID_CELLS - 1}`,
  );

  if (nodes.length <= 1) return nodes[0];
  return { type: 'and', operands: nodes };
}

/** `filter` and `where` together: both must hold. */
export function bothFilters(
  filter: FilterNode | undefined,
  where: FilterNode | undefined,
): FilterNode | undefined {
  if (!filter || !where) return filter ?? where;
  return { type: 'and', operands: [filter, where] };
}
