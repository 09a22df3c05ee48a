import { invalidArgument } from './errors.ts';

/** Account and Accessory Ids: UUID v4, lower case. */
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

export const isUuid = (value: string): boolean => UUID_V4.test(value);

export function checkUuid(field: string, value: string): string {
  if (!isUuid(value)) throw invalidArgument(field, `${field} must be a lower-case UUID v4`);
  return value;
}

/** The largest bigint, the type of event and delivery ids. */
const MAX_BIGINT = '9223372036854775807';

/**
 * An event's or a delivery's id: the decimal form of a positive bigint, without leading zeros,
 * at most 2^63 - 1. Checked before a value reaches SQL, where a larger one would fail the query.
 */
export const isBigintId = (value: string): boolean =>
  /^[1-9][0-9]{0,18}$/.test(value) && (value.length < 19 || value <= MAX_BIGINT);

const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

/**
 * An instant written as ISO 8601 with a zone (`2026-11-21T20:41:17Z`, `...17.5+01:00`), as the
 * GraphQL `DateTime` scalar and REST query parameters take it; undefined for anything else.
 */
export function parseTimestamp(value: unknown): Date | undefined {
  const date = typeof value === 'string' && ISO_TIMESTAMP.test(value) ? new Date(value) : undefined;
  return date && !Number.isNaN(date.getTime()) ? date : undefined;
}
