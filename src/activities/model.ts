import type { MediaUrls } from '../media/signing.ts';
import type { FilterRow } from './filter/index.ts';

/** An activity as stored: what the filter language sees, and whose it is. */
export interface ActivityRecord extends FilterRow {
  accessoryId: string;
}

export const extraFieldNames = ['motionZones', 'objectLocations', 'media'] as const;
export type ExtraField = (typeof extraFieldNames)[number];

/**
 * The JSON form of an activity, with the extra fields asked for. `media` is
 * the activity's signed media URLs (MediaLookup.urlsFor), null when it has no media.
 */
export function activityJson(
  a: ActivityRecord,
  extra: ReadonlySet<ExtraField> = new Set(),
  media: MediaUrls | null = null,
): Record<string, unknown> {
  const json: Record<string, unknown> = {
    activityId: a.activityId,
    accessoryId: a.accessoryId,
    startTime: a.startTime.toISOString(),
    endTime: a.endTime?.toISOString() ?? null,
    playbackDuration: a.playbackDuration,
    relevanceLevel: a.relevanceLevel,
    inProgress: a.endTime === null,
  };
  if (extra.has('motionZones')) json.motionZones = a.motionZones;
  if (extra.has('objectLocations')) json.objectLocations = a.objectLocations;
  if (extra.has('media')) json.media = media;
  return json;
}

export const allExtraFields: ReadonlySet<ExtraField> = new Set(['motionZones', 'objectLocations']);
