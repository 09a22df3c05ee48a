import pg from 'pg';
import { parseSmallintArray, parseTextArray, SMALLINT_ARRAY, TEXT_ARRAY } from './arrays.ts';
import { parseTimestamptz, TIMESTAMPTZ } from './timestamps.ts';

const fast = new Map<number, (text: string) => unknown>([
  [TIMESTAMPTZ, parseTimestamptz],
  [TEXT_ARRAY, parseTextArray],
  [SMALLINT_ARRAY, parseSmallintArray],
]);

/**
 * Type parsers for the listing pool, whose rows are activities: faster ones for `timestamptz`,
 * `text[]` and `smallint[]` in the forms PostgreSQL prints (each hands any other form to pg's
 * own parser); pg's for every other type.
 */
export const listingTypes: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    (format !== 'binary' && fast.get(oid)) ||
    pg.types.getTypeParser(oid, format)) as pg.CustomTypesConfig['getTypeParser'],
};
