import { conflict, invalidArgument, notFound } from '../errors.ts';
import { activityIdFromDate, nextActivityId } from '../activity-ids.ts';
import type { ActivityRevision } from './model.ts';

/**
 * An activity row as the write path keeps it: what reads see, when it was made and changed, and
 * how many changes it had (`sequence`).
 */
export interface StoredActivity extends ActivityRevision {
  createdAt: Date;
}

export interface ActivityInput {
  startTime?: Date;
  relevanceLevel?: number;
  motionZones?: string[];
  objectLocations?: number[];
}

/** One ingest change of an accessory's activities, its input already checked. */
export type ActivityChange =
  | { kind: 'create'; input: ActivityInput & { createdAt: Date } }
  | { kind: 'update'; activityId: string; input: ActivityInput }
  | { kind: 'finish'; activityId: string; endTime: Date };

/** The earliest instant ingest takes: the Unix epoch. */
const EARLIEST_MS = 0;

/**
 * How far past the service's clock an ingest instant may be. A camera's clock runs ahead now and
 * then; an activity created much further ahead would stay its accessory's newest, and every later
 * one would be refused as older.
 */
export const MAX_AHEAD_MS = 24 * 3_600_000;

/** The longest activity: its playbackDuration is a 32-bit count of milliseconds (24.8 days). */
export const MAX_DURATION_MS = 2_147_483_647;

/** 400 naming `field` unless `instant` lies between the Unix epoch and a day past `now`. */
export function checkIngestInstant(field: string, instant: Date, now: Date): void {
  const ms = instant.getTime();
  if (!(ms >= EARLIEST_MS && ms <= now.getTime() + MAX_AHEAD_MS)) {
    throw invalidArgument(
      field,
      `${field} must lie between 1970-01-01T00:00:00Z and 24 hours past the service's clock`,
    );
  }
}

/** 400 naming `field` when an activity from `start` to `end` lasts longer than a duration holds. */
function checkDuration(field: string, start: Date, end: Date): void {
  if (end.getTime() - start.getTime() > MAX_DURATION_MS) {
    throw invalidArgument(field, `an activity lasts at most ${MAX_DURATION_MS} ms (24.8 days)`);
  }
}

export type ActivityEventType = 'activity_created' | 'activity_updated' | 'activity_finished';

/** What a change writes: whole rows (new or replacing), and its events in order. */
export interface ActivityPlan {
  rows: StoredActivity[];
  result: StoredActivity;
  events: { eventType: ActivityEventType; activity: StoredActivity }[];
}

/**
 * The write path's policy, without a database: what `change` does to an accessory whose newest
 * activity is `newest`, at `now`. Errors are thrown as the API answers them, except one: a
 * change of an id older than the newest is `{ olderThan, activityId }`, 404 or 409 depending on whether that
 * id exists, which only the database knows.
 */
export function planChange(
  accessoryId: string,
  newest: StoredActivity | null,
  change: ActivityChange,
  now: Date,
): ActivityPlan | { olderThan: string; activityId: string } {
  if (change.kind === 'create') return planCreate(accessoryId, newest, change.input, now);
  if (newest === null || change.activityId > newest.activityId) throw notFound('activity');
  if (change.activityId < newest.activityId) {
    return { olderThan: newest.activityId, activityId: change.activityId };
  }
  if (change.kind === 'update') {
    const { startTime, relevanceLevel, motionZones, objectLocations } = change.input;
    if (startTime) checkIngestInstant('startTime', startTime, now);
    const updated: StoredActivity = {
      ...newest,
      startTime: startTime ?? newest.startTime,
      relevanceLevel: relevanceLevel ?? newest.relevanceLevel,
      motionZones: motionZones ?? newest.motionZones,
      objectLocations: objectLocations ?? newest.objectLocations,
      playbackDuration:
        startTime && newest.endTime
          ? newest.endTime.getTime() - startTime.getTime()
          : newest.playbackDuration,
      updatedAt: now,
      sequence: newest.sequence + 1,
    };
    if (updated.endTime && updated.endTime < updated.startTime) {
      throw invalidArgument('startTime', 'startTime must not be after the endTime');
    }
    if (updated.endTime) checkDuration('startTime', updated.startTime, updated.endTime);
    return single(updated, 'activity_updated');
  }
  checkIngestInstant('endTime', change.endTime, now);
  if (newest.endTime !== null) throw conflict('the activity is already finished');
  if (change.endTime < newest.startTime) {
    throw invalidArgument('endTime', 'endTime must not be before the startTime');
  }
  checkDuration('endTime', newest.startTime, change.endTime);
  return single(finished(newest, change.endTime, now), 'activity_finished');
}

/**
 * The accessory's new newest activity. Its id is the second of `createdAt`, or the next free
 * second after the newest id; a `createdAt` before the newest activity's is a conflict. A still
 * running previous activity is finished at the new one's creation, or as long as an activity
 * may last if that comes first.
 */
function planCreate(
  accessoryId: string,
  newest: StoredActivity | null,
  input: ActivityInput & { createdAt: Date },
  now: Date,
): ActivityPlan {
  const { createdAt } = input;
  checkIngestInstant('createdAt', createdAt, now);
  if (input.startTime) checkIngestInstant('startTime', input.startTime, now);
  const rows: StoredActivity[] = [];
  const events: ActivityPlan['events'] = [];
  let activityId = activityIdFromDate(createdAt);
  if (newest) {
    if (createdAt < newest.createdAt) {
      throw conflict(`the accessory already has a newer activity (${newest.activityId})`);
    }
    if (activityId <= newest.activityId) activityId = nextActivityId(newest.activityId);
    if (newest.endTime === null) {
      const end = Math.min(
        Math.max(createdAt.getTime(), newest.startTime.getTime()),
        newest.startTime.getTime() + MAX_DURATION_MS,
      );
      const previous = finished(newest, new Date(end), now);
      rows.push(previous);
      events.push({ eventType: 'activity_finished', activity: previous });
    }
  }
  const created: StoredActivity = {
    accessoryId,
    activityId,
    createdAt,
    updatedAt: now,
    sequence: 1,
    startTime: input.startTime ?? createdAt,
    endTime: null,
    playbackDuration: null,
    relevanceLevel: input.relevanceLevel ?? 0,
    motionZones: input.motionZones ?? [],
    objectLocations: input.objectLocations ?? [],
  };
  rows.push(created);
  events.push({ eventType: 'activity_created', activity: created });
  return { rows, result: created, events };
}

const finished = (activity: StoredActivity, endTime: Date, now: Date): StoredActivity => ({
  ...activity,
  endTime,
  playbackDuration: endTime.getTime() - activity.startTime.getTime(),
  updatedAt: now,
  sequence: activity.sequence + 1,
});

const single = (activity: StoredActivity, eventType: ActivityEventType): ActivityPlan => ({
  rows: [activity],
  result: activity,
  events: [{ eventType, activity }],
});
