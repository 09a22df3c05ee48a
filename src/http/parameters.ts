import { isActivityId } from '../activity-ids.ts';
import { invalidArgument } from '../errors.ts';
import { isUuid } from '../ids.ts';

/**
 * The form of each path parameter, checked before anything else looks at it: a malformed id in
 * a path is a 400 naming the parameter, not a 404 (that stays for well-formed ids that are
 * unknown or another account's).
 */
const pathParameters: Record<string, { valid(value: string): boolean; form: string }> = {
  accessoryId: { valid: isUuid, form: 'a lower-case UUID v4' },
  accountId: { valid: (v) => v === 'self' || isUuid(v), form: '"self" or a lower-case UUID v4' },
  activityId: { valid: isActivityId, form: 'an activityId (YYYYMMDDTHHMMSSZ)' },
};

export function checkPathParameter(name: string, value: string): string {
  const rule = pathParameters[name];
  if (rule && !rule.valid(value)) throw invalidArgument(name, `${name} must be ${rule.form}`);
  return value;
}
