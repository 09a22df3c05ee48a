import { isoString } from './iso-time.ts';

/** Activity ids are the UTC second of creation, `YYYYMMDDTHHMMSSZ`; they sort as strings in time order. */
const ACTIVITY_ID = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/;

export function activityIdFromDate(date: Date): string {
  return isoString(date).slice(0, 19).replace(/[-:]/g, '') + 'Z';
}

/** The instant an id names, or undefined if the string is not a valid id of a real date. */
export function parseActivityId(id: string): Date | undefined {
  const m = ACTIVITY_ID.exec(id);
  if (!m) return undefined;
  const date = new Date(`${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}Z`);
  return !Number.isNaN(date.getTime()) && activityIdFromDate(date) === id ? date : undefined;
}

export function isActivityId(value: unknown): value is string {
  return typeof value === 'string' && parseActivityId(value) !== undefined;
}

export function nextActivityId(id: string): string {
  const date = parseActivityId(id);
  if (!date) throw new Error(`not an activity id: ${id}`);
  return activityIdFromDate(new Date(date.getTime() + 1000));
}

/** The oldest activity id still inside a retention window of `days` ending at `now`. */
export function retentionFloor(days: number, now = Date.now()): string {
  return activityIdFromDate(new Date(now - days * 86_400_000));
}
