import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listingTypes } from '../../src/storage/row-parsers.ts';
import { parseTimestamptz } from '../../src/storage/timestamps.ts';

const pgParse = pg.types.getTypeParser(1184, 'text') as (text: string) => Date;
const two = (n: number) => String(n).padStart(2, '0');

/** A timestamptz as PostgreSQL prints it: fraction digits 0 to 6, trailing zeros dropped. */
const printed = fc
  .record({
    year: fc.integer({ min: 1, max: 12_000 }),
    month: fc.integer({ min: 1, max: 12 }),
    day: fc.integer({ min: 1, max: 28 }),
    hour: fc.integer({ min: 0, max: 23 }),
    minute: fc.integer({ min: 0, max: 59 }),
    second: fc.integer({ min: 0, max: 59 }),
    micros: fc.integer({ min: 0, max: 999_999 }),
    zone: fc.constantFrom('+00', '+01', '-05:30', '+05:45'),
    bc: fc.boolean(),
  })
  .map(({ year, month, day, hour, minute, second, micros, zone, bc }) => {
    const fraction = String(micros).padStart(6, '0').replace(/0+$/, '');
    return (
      `${String(year).padStart(4, '0')}-${two(month)}-${two(day)} ` +
      `${two(hour)}:${two(minute)}:${two(second)}${fraction && `.${fraction}`}${zone}` +
      (bc ? ' BC' : '')
    );
  });

describe('parseTimestamptz', () => {
  it("reads every form PostgreSQL prints as pg's own parser does", () => {
    fc.assert(
      fc.property(printed, (text) => {
        expect(parseTimestamptz(text).getTime()).toBe(pgParse(text).getTime());
      }),
      { numRuns: 20_000 },
    );
  });

  it('reads the usual forms by position', () => {
    expect(parseTimestamptz('2026-11-28 03:23:13+00').toISOString()).toBe(
      '2026-11-28T03:23:13.000Z',
    );
    expect(parseTimestamptz('2026-11-28 03:23:13.1+00').toISOString()).toBe(
      '2026-11-28T03:23:13.100Z',
    );
    expect(parseTimestamptz('2026-11-28 03:23:13.123999+00').toISOString()).toBe(
      '2026-11-28T03:23:13.123Z',
    );
  });

  it('leaves infinity to pg', () => {
    expect(parseTimestamptz('infinity')).toBe(Infinity);
  });
});

// What the listing pool's clients read from the server, against pg's own parser.
describe.runIf(process.env.TEST_DATABASE_URL)("the listing pool's timestamps on PostgreSQL", () => {
  let fast: pg.Client;
  let plain: pg.Client;
  beforeAll(async () => {
    fast = new pg.Client({
      connectionString: process.env.TEST_DATABASE_URL,
      types: listingTypes,
    });
    plain = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await Promise.all([fast.connect(), plain.connect()]);
  });
  afterAll(async () => {
    await Promise.all([fast?.end(), plain?.end()]);
  });

  it('reads the same instants, in any session time zone', async () => {
    const sql = `SELECT t FROM (VALUES
      ('2026-11-28 03:23:13.123456+00'::timestamptz), ('2026-01-05 17:40:27+00'),
      ('1999-12-31 23:59:59.9+00'), ('0044-03-15 12:00:00+00'), ('infinity'),
      ('2026-03-29 01:30:00.5+01')) AS v(t)`;
    for (const zone of ['UTC', 'Asia/Kathmandu']) {
      await Promise.all([fast, plain].map((c) => c.query(`SET TimeZone = '${zone}'`)));
      const [a, b] = await Promise.all([fast.query(sql), plain.query(sql)]);
      expect(a.rows.map((r) => Number(r.t))).toEqual(b.rows.map((r) => Number(r.t)));
    }
  });
});
