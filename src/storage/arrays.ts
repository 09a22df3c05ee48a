import pg from 'pg';

export const TEXT_ARRAY = 1009;
export const SMALLINT_ARRAY = 1005;
// pg's own parsers (its type ids list no array types).
const pgParser = pg.types.getTypeParser as (oid: number, format: 'text') => (text: string) => never;
const parseTextAny: (text: string) => (string | null)[] = pgParser(TEXT_ARRAY, 'text');
const parseSmallintAny: (text: string) => (number | null)[] = pgParser(SMALLINT_ARRAY, 'text');

/**
 * The elements of a one-dimensional array as PostgreSQL prints it (`{z1,z2}`) when none is
 * quoted, escaped or NULL, by one split; undefined for any other form (quoted or escaped
 * elements, NULL, nested arrays, explicit bounds), which goes to pg's parser. pg's parser reads
 * every array a character at a time and builds its strings that way: a fifth of the bytes a
 * listing page allocated, for two or three short elements a row (docs/performance.md).
 */
function plainElements(text: string): string[] | undefined {
  const last = text.length - 1;
  if (text.charCodeAt(0) !== 123 || text.charCodeAt(last) !== 125) return undefined; // { }
  if (last === 1) return [];
  for (let i = 1; i < last; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 || c === 92 || c === 123 || c === 125) return undefined; // " \ { }
  }
  const elements = text.slice(1, last).split(',');
  for (const e of elements) if (e.length === 4 && e.toUpperCase() === 'NULL') return undefined;
  return elements;
}

/** A `text[]` as PostgreSQL prints it: the same array as pg's own parser. */
export const parseTextArray = (text: string): (string | null)[] =>
  plainElements(text) ?? parseTextAny(text);

/** A `smallint[]` as PostgreSQL prints it: the same array as pg's own parser. */
export function parseSmallintArray(text: string): (number | null)[] {
  const elements = plainElements(text);
  return elements ? elements.map((e) => parseInt(e, 10)) : parseSmallintAny(text);
}
