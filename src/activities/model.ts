/** An activity as stored. */
export interface ActivityRecord {
  accessoryId: string;
  activityId: string;
  startTime: Date;
  endTime: Date | null;
  playbackDuration: number | null;
  relevanceLevel: number;
  motionZones: string[];
  objectLocations: number[];
}

export const extraFieldNames = ['motionZones', 'objectLocations', 'media'] as const;
export type ExtraField = (typeof extraFieldNames)[number];

/** The JSON form of an activity (api-contract 4.1), with the extra fields asked for. */
export function activityJson(
  a: ActivityRecord,
  extra: ReadonlySet<ExtraField> = new Set(),
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
  // Media retrieval is not built yet: the member is there, with no URLs to give.
  if (extra.has('media')) json.media = null;
  return json;
}

export const allExtraFields: ReadonlySet<ExtraField> = new Set(['motionZones', 'objectLocations']);
