import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileFilter, evaluateFilter, parseFilter, printFilter } from '../../src/filter/index.ts';
import type {
  ComparisonOperator,
  FilterNode,
  FilterRow,
  FilterSubject,
  Literal,
  ScalarAttribute,
  SqlBuilder,
} from '../../src/filter/index.ts';
import { AppError } from '../../src/errors.ts';

const compare = (
  attribute: ScalarAttribute,
  operator: ComparisonOperator,
  value: Literal,
): FilterNode => ({ type: 'compare', left: { type: 'attribute', attribute }, operator, value });
const level = (operator: ComparisonOperator, value: number) =>
  compare('relevanceLevel', operator, value);

/** The AppError parseFilter throws for `text`. */
function parseError(text: string): AppError {
  try {
    parseFilter(text);
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error(`${JSON.stringify(text)} parsed`);
}

class Params implements SqlBuilder {
  readonly values: unknown[] = [];
  param(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

describe('parseFilter', () => {
  it.each<[string, FilterNode]>([
    ['relevanceLevel = 0', level('=', 0)],
    ['relevanceLevel <> 1.5', level('<>', 1.5)],
    ['relevanceLevel<-2', level('<', -2)],
    ['relevanceLevel <= 2e3', level('<=', 2000)],
    ['relevanceLevel > -0', level('>', 0)],
    ['relevanceLevel >= 007', level('>=', 7)],
    ['playbackDuration = 1500', compare('playbackDuration', '=', 1500)],
    ['activityId < "20261101T000000Z"', compare('activityId', '<', '20261101T000000Z')],
    [
      'startTime >= "2026-11-01T02:00:00.5+02:00"',
      compare('startTime', '>=', '2026-11-01T00:00:00.500Z'),
    ],
    ['endTime < "2026-11-01T00:00:00Z"', compare('endTime', '<', '2026-11-01T00:00:00.000Z')],
    [
      'startTime BETWEEN "2026-11-01T00:00:00Z" AND "2026-11-01T23:00:00-01:00"',
      {
        type: 'between',
        left: { type: 'attribute', attribute: 'startTime' },
        low: '2026-11-01T00:00:00.000Z',
        high: '2026-11-02T00:00:00.000Z',
      },
    ],
    [
      'size(motionZones) >= 2',
      {
        type: 'compare',
        left: { type: 'size', attribute: 'motionZones' },
        operator: '>=',
        value: 2,
      },
    ],
    [
      'size ( objectLocations ) between 1 and 3',
      { type: 'between', left: { type: 'size', attribute: 'objectLocations' }, low: 1, high: 3 },
    ],
    ['attribute_exists(endTime)', { type: 'attribute_exists', attribute: 'endTime' }],
    [
      'Attribute_Not_Exists(motionZones)',
      { type: 'attribute_not_exists', attribute: 'motionZones' },
    ],
    [
      String.raw`contains(motionZones, "a \"b\" \\ c")`,
      { type: 'contains', attribute: 'motionZones', value: 'a "b" \\ c' },
    ],
    [
      'CONTAINS_ANY(objectLocations, [0, 127, 5.0])',
      { type: 'contains_any', attribute: 'objectLocations', values: [0, 127, 5] },
    ],
    [
      'contains_all(motionZones, [])',
      { type: 'contains_all', attribute: 'motionZones', values: [] },
    ],
    ['NOT relevanceLevel = 1', { type: 'not', operand: level('=', 1) }],
    [
      'not not relevanceLevel = 1',
      { type: 'not', operand: { type: 'not', operand: level('=', 1) } },
    ],
    ['((relevanceLevel = 1))', level('=', 1)],
    [
      'relevanceLevel = 0 OR relevanceLevel = 1 AND NOT relevanceLevel = 2',
      {
        type: 'or',
        operands: [
          level('=', 0),
          { type: 'and', operands: [level('=', 1), { type: 'not', operand: level('=', 2) }] },
        ],
      },
    ],
    [
      '(relevanceLevel = 0 OR relevanceLevel = 1) and relevanceLevel = 2',
      {
        type: 'and',
        operands: [{ type: 'or', operands: [level('=', 0), level('=', 1)] }, level('=', 2)],
      },
    ],
    [
      'relevanceLevel = 0 AND relevanceLevel = 1 AND relevanceLevel = 2',
      { type: 'and', operands: [level('=', 0), level('=', 1), level('=', 2)] },
    ],
    [
      '(relevanceLevel = 0 AND relevanceLevel = 1) AND relevanceLevel = 2',
      {
        type: 'and',
        operands: [{ type: 'and', operands: [level('=', 0), level('=', 1)] }, level('=', 2)],
      },
    ],
    [
      'relevanceLevel BETWEEN 1 AND 2 AND relevanceLevel = 3',
      {
        type: 'and',
        operands: [
          {
            type: 'between',
            left: { type: 'attribute', attribute: 'relevanceLevel' },
            low: 1,
            high: 2,
          },
          level('=', 3),
        ],
      },
    ],
    [
      'NOT relevanceLevel = 1 oR relevanceLevel = 2',
      { type: 'or', operands: [{ type: 'not', operand: level('=', 1) }, level('=', 2)] },
    ],
  ])('parses %s', (text, expected) => {
    expect(parseFilter(text)).toEqual(expected);
    expect(parseFilter(printFilter(expected))).toEqual(expected);
  });

  it.each<[string, number, string]>([
    ['relevanceLevel = 1 # 2', 19, 'unexpected character "#"'],
    ['relevanceLevel != 1', 15, "use '<>'"],
    ['contains(motionZones, "abc)', 22, 'unterminated string'],
    ['contains(motionZones, "abc\\', 22, 'unterminated string'],
    [String.raw`contains(motionZones, "a\nb")`, 24, String.raw`invalid escape sequence '\n'`],
    ['contains(motionZones, "a\u0000")', 24, 'NUL'],
    ['contains(motionZones, "a\ud800")', 24, 'unpaired surrogates'],
    ['relevanceLevel = 1e400', 17, 'number 1e400 is too large'],
    ['relevancelevel = 1', 0, 'did you mean relevanceLevel?'],
    ['color = "red"', 0, "unknown attribute 'color'"],
    ['colour(motionZones)', 0, "unknown function 'colour'"],
    ['motionZones = "z1"', 0, 'motionZones is a list and cannot be compared'],
    ['size(activityId) = 1', 5, 'size takes a list attribute'],
    ['contains(startTime, "x")', 9, 'contains takes a list attribute'],
    ['relevanceLevel = "1"', 17, 'relevanceLevel is a number, got "1"'],
    ['relevanceLevel = [1]', 17, 'relevanceLevel is a number, got a list'],
    ['size(motionZones) > "2"', 20, 'size(motionZones) is a number'],
    ['activityId = 20261101', 13, 'activityId is a string of the form YYYYMMDDTHHMMSSZ'],
    ['activityId = "20261301T000000Z"', 13, 'activityId is a string'],
    ['activityId = "2026-11-01T00:00:00Z"', 13, 'activityId is a string'],
    ['endTime > "yesterday"', 10, 'endTime is a timestamp'],
    ['startTime > "2026-02-29T00:00:00Z"', 12, 'startTime is a timestamp'],
    ['startTime > "2026-11-01T24:00:00Z"', 12, 'startTime is a timestamp'],
    ['startTime > "2026-11-01T00:00:00"', 12, 'startTime is a timestamp'],
    ['startTime > "2026-11-01T00:00:00.0001Z"', 12, 'at most millisecond precision'],
    ['startTime > "0001-01-01T00:00:00+00:01"', 12, 'startTime is a timestamp'],
    ['startTime BETWEEN "2026-11-01T00:00:00Z" AND 5', 45, 'startTime is a timestamp'],
    ['contains(objectLocations, 128)', 26, 'integers from 0 to 127, got 128'],
    ['contains_all(objectLocations, [1, 2.5])', 34, 'integers from 0 to 127, got 2.5'],
    ['contains_any(motionZones, ["z1", 2])', 33, 'motionZones holds zone-id strings, got 2'],
    ['contains(motionZones, ["z1"])', 22, 'got a list'],
    ['contains_any(motionZones, "z1")', 26, 'expected a list [...]'],
    ['contains_any(motionZones, ["z1" "z2"])', 32, "expected ',' or ']'"],
    ['contains_any(motionZones, ["z1",])', 32, 'expected a number or a string'],
    ['contains(motionZones "z1")', 21, "expected ','"],
    ['contains(motionZones, "z1"', 26, "expected ')'"],
    ['attribute_exists endTime', 17, "expected '('"],
    ['attribute_exists(5)', 17, 'expected an attribute'],
    ['(relevanceLevel = 1', 19, "expected AND, OR or ')'"],
    ['relevanceLevel = 1)', 18, 'expected AND, OR or the end of the filter'],
    ['relevanceLevel = 1 relevanceLevel = 2', 19, 'expected AND, OR or the end'],
    ['relevanceLevel', 14, 'expected a comparison operator or BETWEEN after relevanceLevel'],
    ['size(motionZones) contains', 18, 'BETWEEN after size(motionZones)'],
    ['relevanceLevel = ', 17, 'expected a number or a string, found the end of the filter'],
    ['relevanceLevel = =', 17, "expected a number or a string, found '='"],
    ['relevanceLevel BETWEEN 1 OR 2', 25, "expected AND, found 'OR'"],
    ['', 0, 'expected a condition'],
    ['   ', 3, 'expected a condition'],
    ['AND relevanceLevel = 1', 0, 'expected a condition'],
    ['relevanceLevel = 1 AND', 22, 'expected a condition'],
    ['NOT', 3, 'expected a condition'],
    ['()', 1, 'expected a condition'],
    ['5 = relevanceLevel', 0, 'expected a condition'],
  ])('rejects %j at %i', (text, position, message) => {
    const error = parseError(text);
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.details).toEqual({ field: 'filter', position });
    expect(error.message).toContain(message);
    expect(error.message).toMatch(new RegExp(` at position ${position}$`));
  });

  it('limits the filter to 4096 characters', () => {
    const condition = 'relevanceLevel = 1';
    expect(parseFilter(condition.padEnd(4096))).toEqual(level('=', 1));
    const long = Array.from({ length: 180 }, () => condition).join(' OR ');
    expect(long.length).toBeLessThanOrEqual(4096);
    expect(evaluateFilter(parseFilter(long), inProgress)).toBe(true);
    const error = parseError(condition.padEnd(4097));
    expect(error.details.position).toBe(4096);
    expect(error.message).toContain('longer than 4096 characters');
  });

  it('limits nesting to 64 levels of parentheses and NOT', () => {
    const condition = 'relevanceLevel = 1';
    const parens = (n: number) => `${'('.repeat(n)}${condition}${')'.repeat(n)}`;
    const nots = (n: number) => `${'NOT '.repeat(n)}${condition}`;
    expect(parseFilter(parens(64))).toEqual(level('=', 1));
    expect(parseFilter(nots(64))).toBeDefined();
    expect(parseFilter(`${'NOT ('.repeat(32)}${condition}${')'.repeat(32)}`)).toBeDefined();
    expect(parseError(parens(65)).details.position).toBe(64);
    expect(parseError(nots(65)).details.position).toBe(256);
    expect(parseError(`NOT ${parens(64)}`).details.position).toBe(67);
    expect(parseError('('.repeat(4096)).message).toContain('more than 64 levels');
    expect(parseError('NOT '.repeat(1024)).message).toContain('more than 64 levels');
  });

  it('limits lists to 128 items', () => {
    const list = (n: number) => Array.from({ length: n }, (_, i) => i % 128).join(',');
    expect(parseFilter(`contains_any(objectLocations, [${list(128)}])`)).toMatchObject({
      values: { length: 128 },
    });
    const text = `contains_all(objectLocations, [${list(129)}])`;
    const error = parseError(text);
    expect(error.details.position).toBe(text.lastIndexOf(',') + 1);
    expect(error.message).toContain('at most 128 items');
  });

  /** parseFilter either succeeds, and its result survives a print round trip, or throws a filter error. */
  const parsesOrRejects = (text: string) => {
    let node: FilterNode;
    try {
      node = parseFilter(text);
    } catch (error) {
      expect(error).toBeInstanceOf(AppError);
      const { code, details } = error as AppError;
      expect(code).toBe('INVALID_ARGUMENT');
      expect(details.field).toBe('filter');
      expect(details.position).toBeGreaterThanOrEqual(0);
      expect(details.position).toBeLessThanOrEqual(Math.min(text.length, 4096));
      return;
    }
    expect(parseFilter(printFilter(node))).toEqual(node);
  };

  it('throws only filter errors for random strings', () => {
    const text = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 60 }),
      fc.string({ unit: 'grapheme-ascii', maxLength: 60 }),
      fc.string({
        unit: fc.constantFrom(...'()[],"\\=<>!-.e0123456789 aAnNdDoOrRtT_'),
        maxLength: 60,
      }),
      fc.string({
        unit: fc.constantFrom('(', ')', 'NOT ', '"', '['),
        minLength: 4000,
        maxLength: 4200,
      }),
    );
    fc.assert(fc.property(text, parsesOrRejects), { numRuns: 2000 });
  });

  it('throws only filter errors for random token soups', () => {
    const token = fc.constantFrom(
      ...['(', ')', '[', ']', ',', 'AND', 'or', 'Not', 'between', '=', '<>', '<', '<=', '>', '>='],
      ...['activityId', 'startTime', 'endTime', 'playbackDuration', 'relevanceLevel'],
      ...['motionZones', 'objectLocations', 'size', 'SIZE', 'contains', 'CONTAINS_ANY'],
      ...['contains_all', 'attribute_exists', 'attribute_not_exists', 'foo', '0', '5', '-1.5'],
      ...['1e3', '128', '1e999', '"z1"', '""', '"2026-11-01T00:00:00Z"', '"20261101T000000Z"'],
      ...['"', '\\', '!', '\u0000'],
    );
    const soup = fc
      .array(fc.tuple(token, fc.constantFrom(' ', '', '\n')), { maxLength: 30 })
      .map((pairs) => pairs.flat().join(''));
    fc.assert(fc.property(soup, parsesOrRejects), { numRuns: 5000 });
  });
});

const inProgress: FilterRow = {
  activityId: '20261101T000000Z',
  accessoryId: '0b8e6a3c-1f2d-4c5e-8a7b-9c0d1e2f3a4b',
  startTime: new Date('2026-11-01T00:00:00.000Z'),
  endTime: null,
  playbackDuration: null,
  relevanceLevel: 1,
  motionZones: [],
  objectLocations: [5, 5, 127],
};

describe('evaluateFilter', () => {
  it.each<[string, boolean]>([
    ['endTime < "2030-01-01T00:00:00Z"', false],
    ['endTime >= "2030-01-01T00:00:00Z"', false],
    ['NOT endTime < "2030-01-01T00:00:00Z"', true],
    ['endTime <> "2030-01-01T00:00:00Z"', false],
    ['playbackDuration BETWEEN -1 AND 1e9', false],
    ['NOT playbackDuration = 0', true],
    ['attribute_exists(endTime)', false],
    ['attribute_not_exists(playbackDuration)', true],
    ['attribute_exists(startTime)', true],
    ['attribute_exists(motionZones)', false],
    ['attribute_exists(objectLocations)', true],
    ['contains_any(objectLocations, [])', false],
    ['contains_all(objectLocations, [])', true],
    ['contains_all(objectLocations, [127, 5])', true],
    ['contains_all(objectLocations, [127, 6])', false],
    ['contains_any(objectLocations, [6, 127])', true],
    ['contains(objectLocations, 0)', false],
    ['size(objectLocations) = 3 AND size(motionZones) = 0', true],
    ['startTime = "2026-11-01T02:00:00+02:00"', true],
    ['startTime BETWEEN "2026-11-01T00:00:00Z" AND "2026-11-01T00:00:00Z"', true],
    ['startTime BETWEEN "2026-11-01T00:00:00.001Z" AND "2026-10-01T00:00:00Z"', false],
    ['activityId > "20261031T235959Z" AND activityId <= "20261101T000000Z"', true],
    ['relevanceLevel < 1.5 AND relevanceLevel > 0.5', true],
    ['relevanceLevel = 0 OR relevanceLevel >= 1', true],
  ])('%s is %s for an activity in progress', (text, expected) => {
    expect(evaluateFilter(parseFilter(text), inProgress)).toBe(expected);
  });

  it('asks inZone about motionZones only', () => {
    const inZone = (_row: FilterSubject, zoneId: string) => zoneId === 'yes';
    const check = (text: string) => evaluateFilter(parseFilter(text), inProgress, { inZone });
    expect(check('contains(motionZones, "yes")')).toBe(true);
    expect(check('contains_any(motionZones, ["no", "yes"])')).toBe(true);
    expect(check('contains_all(motionZones, ["no", "yes"])')).toBe(false);
    expect(check('contains(objectLocations, 5)')).toBe(true);
  });
});

describe('compileFilter', () => {
  it('binds string literals as parameters only', () => {
    const hostile = [
      "'; DROP TABLE activities; --",
      "z1' OR '1'='1",
      'motion_zones) OR true OR (',
      '"quoted" \\ backslash',
    ];
    const node: FilterNode = {
      type: 'or',
      operands: [
        ...hostile.map((value): FilterNode => ({
          type: 'contains',
          attribute: 'motionZones',
          value,
        })),
        { type: 'contains_any', attribute: 'motionZones', values: hostile },
      ],
    };
    const parsed = parseFilter(printFilter(node));
    const params = new Params();
    const sql = compileFilter(parsed, params);
    for (const zone of hostile) expect(sql).not.toContain(zone);
    expect(sql).not.toMatch(/['"\\;-]/);
    expect(params.values).toEqual([...hostile, hostile]);
    const hooked = new Params();
    const hookedSql = compileFilter(parsed, hooked, {
      zoneMembership: (zoneId, sql) => `${sql.param(zoneId)}::text = ANY(zones)`,
    });
    expect(hookedSql).not.toMatch(/['"\\;-]/);
    expect(hooked.values).toEqual([...hostile, ...hostile]);
  });

  it('casts every placeholder and uses the given columns', () => {
    const params = new Params();
    const sql = compileFilter(
      parseFilter(
        'activityId > "20261101T000000Z" AND startTime < "2026-11-01T00:00:00Z" AND ' +
          'NOT playbackDuration BETWEEN 1 AND 2 OR contains(objectLocations, 3) OR ' +
          'contains_any(objectLocations, [4]) OR contains_all(motionZones, ["z"]) OR size(motionZones) = 0',
      ),
      params,
      { columns: { activityId: 'a.activity_id', playbackDuration: 'a.duration' } },
    );
    expect(sql).toBe(
      '((a.activity_id > $1::text AND start_time < $2::timestamptz AND ' +
        'NOT (a.duration IS NOT NULL AND a.duration BETWEEN $3::numeric AND $4::numeric)) OR ' +
        '$5::smallint = ANY(object_locations) OR object_locations && $6::smallint[] OR ' +
        'motion_zones @> $7::text[] OR cardinality(motion_zones) = $8::numeric)',
    );
    expect(params.values).toEqual([
      '20261101T000000Z',
      '2026-11-01T00:00:00.000Z',
      1,
      2,
      3,
      [4],
      ['z'],
      0,
    ]);
  });

  it('compiles empty zone lists with a hook to constants', () => {
    const hook = () => 'unused';
    const compile = (text: string) =>
      compileFilter(parseFilter(text), new Params(), { zoneMembership: hook });
    expect(compile('contains_any(motionZones, [])')).toBe('false');
    expect(compile('contains_all(motionZones, [])')).toBe('true');
  });
});
