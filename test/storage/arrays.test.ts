import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  parseSmallintArray,
  parseTextArray,
  SMALLINT_ARRAY,
  TEXT_ARRAY,
} from '../../src/storage/arrays.ts';
import { listingTypes } from '../../src/storage/row-parsers.ts';

const pgParser = pg.types.getTypeParser as (
  oid: number,
  format: 'text',
) => (text: string) => unknown;
const pgText = pgParser(TEXT_ARRAY, 'text');
const pgSmallint = pgParser(SMALLINT_ARRAY, 'text');

/**
 * An element as PostgreSQL's array output prints it: NULL bare; quoted (with `"` and `\`
 * escaped) when empty, spelling NULL in any case, or holding a delimiter, brace, quote,
 * backslash or ASCII white space (other white space stays bare).
 */
const element = (e: string | null) =>
  e === null
    ? 'NULL'
    : e === '' || e.toUpperCase() === 'NULL' || /[{},"\\ \t\n\r\v\f]/.test(e)
      ? `"${e.replace(/["\\]/g, '\\$&')}"`
      : e;
const printed = <T>(elements: (T | null)[]) =>
  `{${elements.map((e) => element(e === null ? null : String(e))).join(',')}}`;

const texts = fc.array(
  fc.option(
    fc.oneof(
      fc.string(),
      fc.string({ unit: 'binary' }),
      fc.constantFrom('z1', 'NULL', 'null', 'a b', 'a\u00a0b', 'a,b', '{', '}', '"', '\\', ''),
    ),
    { freq: 8 },
  ),
  { maxLength: 6 },
);
const smallints = fc.array(fc.option(fc.integer({ min: -32768, max: 32767 }), { freq: 8 }), {
  maxLength: 6,
});

/** A test that `parse` reads every array `arrays` gives, as PostgreSQL prints it, as pg does. */
const readsAsPg =
  <T>(
    arrays: fc.Arbitrary<(T | null)[]>,
    parse: (text: string) => unknown,
    pgParse: (text: string) => unknown,
  ) =>
  () =>
    fc.assert(
      fc.property(arrays, (elements) => {
        const text = printed(elements);
        expect(parse(text)).toEqual(pgParse(text));
        expect(parse(text)).toEqual(elements);
      }),
      { numRuns: 20_000 },
    );

describe('array parsers', () => {
  it(
    "read every text[] PostgreSQL prints as pg's own parser does",
    readsAsPg(texts, parseTextArray, pgText),
  );

  it(
    "read every smallint[] PostgreSQL prints as pg's own parser does",
    readsAsPg(smallints, parseSmallintArray, pgSmallint),
  );

  it('leave nested arrays and explicit bounds to pg', () => {
    expect(parseTextArray('{{a,b},{c,d}}')).toEqual([
      ['a', 'b'],
      ['c', 'd'],
    ]);
    expect(parseSmallintArray('[0:1]={3,4}')).toEqual(pgSmallint('[0:1]={3,4}'));
  });
});

// What the listing pool's clients read from the server: the values sent, as pg's parser reads them.
describe.runIf(process.env.TEST_DATABASE_URL)("the listing pool's arrays on PostgreSQL", () => {
  let fast: pg.Client;
  let plain: pg.Client;
  beforeAll(async () => {
    fast = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL, types: listingTypes });
    plain = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await Promise.all([fast.connect(), plain.connect()]);
  });
  afterAll(async () => {
    await Promise.all([fast?.end(), plain?.end()]);
  });

  it('reads back the arrays it sent', async () => {
    // PostgreSQL text holds no NUL character.
    const storable = texts.map((a) => a.map((e) => e?.replaceAll('\u0000', '') ?? null));
    await fc.assert(
      fc.asyncProperty(storable, smallints, async (t, s) => {
        const sql = 'SELECT $1::text[] AS t, $2::smallint[] AS s';
        const [a, b] = await Promise.all([fast.query(sql, [t, s]), plain.query(sql, [t, s])]);
        expect(a.rows[0]).toEqual(b.rows[0]);
        expect(a.rows[0]).toEqual({ t, s });
      }),
      { numRuns: 300 },
    );
  });
});
