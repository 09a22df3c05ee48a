import { z } from 'zod';
import { timestamp, uuid } from '../schemas.ts';
import type { FilterRow } from '../filter/index.ts';
import { isoString } from '../iso-time.ts';

/** An activity as stored: what the filter language sees, and whose it is. */
export interface ActivityRecord extends FilterRow {
  accessoryId: string;
}

/** The fields of an activity that say where in the frame it happened. */
const LOCATIONS = ['motionZones', 'objectLocations'] as const satisfies readonly ExtraField[];
export type Locations = (typeof LOCATIONS)[number];

/** The extra fields that are locations: every one but media, and all an event's activity has. */
export const locationFields: ReadonlySet<ExtraField> = new Set(LOCATIONS);

/**
 * An activity as a page lists it: with its motionZones and objectLocations only where the page
 * read them (ListRequest.locations). A page whose answer shows neither leaves both unread.
 */
export type ListedActivity = Omit<ActivityRecord, Locations> &
  Partial<Pick<ActivityRecord, Locations>>;

/** One of a listed activity's locations; it is a fault to ask for one its page did not read. */
export function located<K extends Locations>(
  a: ListedActivity,
  field: K,
): NonNullable<ListedActivity[K]> {
  const value = a[field];
  if (value === undefined) throw new Error(`${field} was not read with this page`);
  return value;
}

/** The four media URLs of an activity; null where that media does not exist (yet). */
export interface MediaUrls {
  image: string | null;
  mp4: string | null;
  mpd: string | null;
  hls: string | null;
}

export const extraFieldNames = ['motionZones', 'objectLocations', 'media'] as const;
export type ExtraField = (typeof extraFieldNames)[number];

const mediaUrl = (what: string) => z.string().nullable().meta({ description: what });

const mediaUrlsSchema = z
  .strictObject({
    image: mediaUrl('The JPG; null without one'),
    mp4: mediaUrl('The MP4 (byte ranges); null without one'),
    mpd: mediaUrl('The DASH manifest; null until the MP4 is packaged'),
    hls: mediaUrl('The HLS playlist; null until the MP4 is packaged'),
  })
  .meta({
    id: 'ActivityMedia',
    description:
      'Signed media URLs: they work without a bearer token until they expire (MEDIA_URL_TTL_S); root-relative unless PUBLIC_BASE_URL is set',
  });

/** The JSON form of an activity; the extra fields are there when asked for. */
export const activitySchema = z
  .strictObject({
    activityId: z
      .string()
      .meta({ pattern: '^\\d{8}T\\d{6}Z$', description: 'The UTC second of creation' }),
    accessoryId: uuid,
    startTime: timestamp,
    endTime: timestamp.nullable().meta({ description: 'null while in progress' }),
    playbackDuration: z
      .int()
      .min(0)
      .nullable()
      .meta({ description: 'Milliseconds; null while in progress' }),
    relevanceLevel: z.int().min(0),
    inProgress: z.boolean(),
    motionZones: z.array(z.string()).optional().meta({ description: 'Zone ids: z1..z5, zR' }),
    objectLocations: z
      .array(z.int().min(0).max(127))
      .optional()
      .meta({ description: 'Cells of the 16x8 grid over the frame, 0 top-left, row-major' }),
    media: mediaUrlsSchema.nullable().optional().meta({ description: 'null without any media' }),
  })
  .meta({ id: 'Activity' });

export type ActivityJson = z.input<typeof activitySchema>;

/** The JSON form of one activity read by id: with every extra field. */
export const activityDetailSchema = activitySchema
  .required({ motionZones: true, objectLocations: true, media: true })
  .meta({ id: 'ActivityWithExtras', description: 'An activity with every extra field' });

/**
 * The JSON form of an activity, with the extra fields asked for. `media` is
 * the activity's signed media URLs (MediaLookup.urlsFor), null when it has no media.
 */
export function activityJson(
  a: ListedActivity,
  extra: ReadonlySet<ExtraField> = new Set(),
  media: MediaUrls | null = null,
): ActivityJson {
  const json: ActivityJson = {
    activityId: a.activityId,
    accessoryId: a.accessoryId,
    startTime: isoString(a.startTime),
    endTime: a.endTime && isoString(a.endTime),
    playbackDuration: a.playbackDuration,
    relevanceLevel: a.relevanceLevel,
    inProgress: a.endTime === null,
  };
  if (extra.has('motionZones')) json.motionZones = located(a, 'motionZones');
  if (extra.has('objectLocations')) json.objectLocations = located(a, 'objectLocations');
  if (extra.has('media')) json.media = media;
  return json;
}

export const activityDetailJson = (
  a: ActivityRecord,
  media: MediaUrls | null,
): z.input<typeof activityDetailSchema> => ({
  ...activityJson(a),
  motionZones: a.motionZones,
  objectLocations: a.objectLocations,
  media,
});

/** An activity as one of its changes left it: what an activity_* event's payload is made of. */
export interface ActivityRevision extends ActivityRecord {
  /** Changes so far, from 1 (created); every update and the finish add one. */
  sequence: number;
  /** When that change was written. */
  updatedAt: Date;
}

/**
 * The eventData of an activity_* event: the activity as read by id (every extra field but
 * media), plus `sequence` and `occurredAt` (the change's time), so that a receiver can drop an
 * update older than one it already has.
 */
export const activityEventData = (a: ActivityRevision) => ({
  ...activityJson(a, locationFields),
  sequence: a.sequence,
  occurredAt: a.updatedAt.toISOString(),
});
