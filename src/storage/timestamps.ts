import pg from 'pg';

export const TIMESTAMPTZ = 1184;
const parseAny = pg.types.getTypeParser(TIMESTAMPTZ, 'text') as (text: string) => Date;

/** What a fraction of 0, 1, 2 or 3 digits counts in milliseconds per unit. */
const MILLISECONDS_PER = [0, 100, 10, 1];

/** The number the decimal digits `text[from, to)` spell, NaN if one is not a digit. */
function digits(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const d = text.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return NaN;
    n = n * 10 + d;
  }
  return n;
}

/**
 * A `timestamptz` as PostgreSQL prints it in a UTC session (`2026-11-28 03:23:13.123456+00`),
 * read by position: the same Date as pg's own parser, which runs a few regular expressions per
 * value and is a visible share of a listing page's CPU (docs/performance.md). Any other form
 * (another time zone, a year past 9999 or BC, infinity) goes to pg's parser.
 */
export function parseTimestamptz(text: string): Date {
  const n = text.length;
  if (
    n >= 22 &&
    text.charCodeAt(4) === 45 && // -
    text.charCodeAt(10) === 32 && // space
    text.endsWith('+00') &&
    (n === 22 || (n >= 24 && n <= 29 && text.charCodeAt(19) === 46)) // .fraction
  ) {
    // Milliseconds: the fraction's first three digits (pg's parser truncates the same way).
    const places = n === 22 ? 0 : Math.min(n - 23, 3);
    const time = Date.UTC(
      digits(text, 0, 4),
      digits(text, 5, 7) - 1,
      digits(text, 8, 10),
      digits(text, 11, 13),
      digits(text, 14, 16),
      digits(text, 17, 19),
      digits(text, 20, 20 + places) * MILLISECONDS_PER[places]!,
    );
    // Years below 1000 (a leading 0) go to pg's parser: Date.UTC reads 0-99 as 19xx.
    if (!Number.isNaN(time) && text.charCodeAt(0) !== 48) return new Date(time);
  }
  return parseAny(text);
}
