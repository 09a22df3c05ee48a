import { isUuid } from '../ids.ts';
import { isActivityId } from '../activity-ids.ts';
import type { AttributeKind, Literal } from './ast.ts';
import { excerpt, filterError } from './lexer.ts';
import type { LiteralToken } from './lexer.ts';

/** What a literal is checked against: `subject` names it in errors, e.g. `size(motionZones)`. */
export interface Target {
  subject: string;
  kind: AttributeKind;
}

const literalKinds: Record<
  AttributeKind,
  { description: string; check: (value: Literal) => Literal | undefined }
> = {
  activityId: {
    description: 'is a string of the form YYYYMMDDTHHMMSSZ (a real UTC date and time)',
    check: (value) => (isActivityId(value) ? value : undefined),
  },
  uuid: {
    description: 'is a UUID v4 string, such as "0b8e6a3c-1f2d-4c5e-8a7b-9c0d1e2f3a4b"',
    check: (value) =>
      typeof value === 'string' && isUuid(value.toLowerCase()) ? value.toLowerCase() : undefined,
  },
  timestamp: {
    description:
      'is a timestamp: an ISO 8601 string with seconds, a time zone and at most millisecond precision, such as "2026-11-01T00:00:00Z"',
    check: (value) => (typeof value === 'string' ? canonicalTimestamp(value) : undefined),
  },
  number: {
    description: 'is a number',
    check: (value) => (typeof value === 'number' ? value : undefined),
  },
  zone: {
    description: 'holds zone-id strings',
    check: (value) => (typeof value === 'string' ? value : undefined),
  },
  cell: {
    description: 'holds grid cells, integers from 0 to 127',
    check: (value) =>
      typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 127
        ? value
        : undefined,
  },
};

export const typeError = (target: Target, got: string, position: number) =>
  filterError(`${target.subject} ${literalKinds[target.kind].description}, got ${got}`, position);

/** The literal's value if `target` accepts it (timestamps canonicalized), else a type error. */
export function checkLiteral(target: Target, token: LiteralToken): Literal {
  const value = literalKinds[target.kind].check(token.value);
  if (value === undefined) throw typeError(target, excerpt(token.text), token.position);
  return value;
}

const timestampPattern =
  /^(?<year>\d{4})-(?<month>\d{2})-(?<day>\d{2})T(?<hour>\d{2}):(?<minute>\d{2}):(?<second>\d{2})(?:\.(?<fraction>\d{1,3}))?(?:Z|(?<sign>[+-])(?<offsetHours>[01]\d|2[0-3]):(?<offsetMinutes>[0-5]\d))$/;

/** The timestamp as `YYYY-MM-DDTHH:MM:SS.sssZ`, or undefined unless it is real and in years 1..9999 UTC. */
function canonicalTimestamp(value: string): string | undefined {
  const fields = timestampPattern.exec(value)?.groups;
  if (!fields) return undefined;
  const { year, month, day, hour, minute, second, fraction = '', sign } = fields;
  const local = new Date(0);
  local.setUTCFullYear(Number(year), Number(month) - 1, Number(day));
  local.setUTCHours(Number(hour), Number(minute), Number(second), Number(fraction.padEnd(3, '0')));
  // Out-of-range fields roll over (February 30 becomes March 2), which changes the ISO form.
  if (!local.toISOString().startsWith(`${year}-${month}-${day}T${hour}:${minute}:${second}`)) {
    return undefined;
  }
  const offset =
    (Number(fields.offsetHours ?? 0) * 60 + Number(fields.offsetMinutes ?? 0)) * 60_000;
  const instant = new Date(local.getTime() - (sign === '-' ? -offset : offset));
  const utcYear = instant.getUTCFullYear();
  return utcYear >= 1 && utcYear <= 9999 ? instant.toISOString() : undefined;
}
