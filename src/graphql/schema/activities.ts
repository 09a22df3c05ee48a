import { AccessoryRef } from './accessories.ts';
import { ViewerRef } from './accounts.ts';
import { invalidArgument } from '../../errors.ts';
import { isUuid } from '../../ids.ts';
import type { EventType } from '../../events/types.ts';
import { builder, scopedLoader } from '../builder.ts';
import { meterWork, type WorkCost } from '../limits.ts';
import { pointsOfDatabaseTime } from '../../limits/cost.ts';
import { ActivityMediaRef } from './media.ts';
import { selectsAnyOf } from '../selection.ts';
import { EventTypeRef } from './notifications.ts';
import { ActivityWhere, bothFilters, whereFilter, type ActivityWhereInput } from './where.ts';
import { parseFilter } from '../../filter/index.ts';
import { isActivityId } from '../../activity-ids.ts';
import { ingestBatch, type IngestResult } from '../../activities/batch.ts';
import { located, locationFields, type ListedActivity } from '../../activities/model.ts';
import { reportMotion, type MotionState } from '../../activities/motion.ts';
import {
  checkAccessoryIds,
  DEFAULT_LIMIT,
  MAX_LIMIT,
  MAX_COUNT_RANGE_DAYS,
  MAX_TIMELINE_ACCESSORIES,
  type ActivityKey,
  type ListRequest,
} from '../../activities/service.ts';
import { countCost } from '../../activities/count-cost.ts';
import {
  countGroups,
  type CountBucket,
  type CountGroup,
  type Operator,
  type Page,
} from '../../activities/store.ts';

export const ActivityRef = builder
  .nodeRef<ListedActivity, ActivityKey>('Activity', {
    id: {
      description:
        'The global id, for `node(id)`; the activity is named by accessoryId and activityId.',
      resolve: (a) => `${a.accessoryId}:${a.activityId}`,
      parse: (key) => {
        const [accessoryId = '', activityId = ''] = key.split(':');
        return { accessoryId, activityId };
      },
    },
    loadMany: scopedLoader(['activities_basic'], async (keys, ctx) =>
      ctx.services.activities.getMany(await ctx.account(), keys),
    ),
  })
  .implement({
    fields: (t) => ({
      activityId: t.exposeString('activityId', {
        description: 'The UTC second of creation, YYYYMMDDTHHMMSSZ; unique per accessory.',
      }),
      accessoryId: t.exposeID('accessoryId'),
      startTime: t.expose('startTime', { type: 'DateTime' }),
      endTime: t.expose('endTime', { type: 'DateTime', nullable: true }),
      playbackDuration: t.exposeInt('playbackDuration', {
        nullable: true,
        description: 'Milliseconds; null while in progress.',
      }),
      relevanceLevel: t.exposeInt('relevanceLevel'),
      inProgress: t.boolean({ resolve: (a) => a.endTime === null }),
      motionZones: t.stringList({ resolve: (a) => located(a, 'motionZones') }),
      objectLocations: t.intList({
        description: 'Cells 0..127 of a 16x8 grid over the frame, 0 top-left, row-major.',
        resolve: (a) => located(a, 'objectLocations'),
      }),
      media: t.field({
        type: ActivityMediaRef,
        nullable: true,
        description:
          'Signed URLs of the JPG, MP4, DASH and HLS; null when it has no media. Needs the reading scope (activities_basic), also where a mutation of the ingest scope returns the activity: a signed URL reads the media without a token.',
        // An ingest token's mutations return activities of any account; the URLs read the media.
        authScopes: { activities_basic: true },
        resolve: (a, _args, ctx) => ctx.mediaUrls.load(a),
      }),
    }),
  });

interface ConnectionArgs {
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
  since?: string | null;
  filter?: string | null;
  where?: ActivityWhereInput | null;
}

/** A position in the listing's order, as a cursor names it. */
interface Cursor {
  activityId: string;
  accessoryId?: string;
}

/** The per-accessory listing's cursors: activityIds, verbatim. */
function activityCursor(field: string, value: string): Cursor {
  if (!isActivityId(value)) throw invalidArgument(field, `${field} must be an activityId`);
  return { activityId: value };
}

/** The timeline's cursors: `activityId:accessoryId`, the position of an activity in it. */
export const timelineCursor = (a: ActivityKey) => `${a.activityId}:${a.accessoryId}`;

function parseTimelineCursor(field: string, value: string): Cursor {
  const [activityId = '', accessoryId = '', ...rest] = value.split(':');
  if (!isActivityId(activityId) || !isUuid(accessoryId) || rest.length > 0) {
    throw invalidArgument(field, `${field} must be a cursor of this connection`);
  }
  return { activityId, accessoryId };
}

/**
 * The connection arguments as the REST list request, exactly as the contract maps
 * them: first = newest-first scan; after = `<`; last + before = oldest-first scan with `>`;
 * since = `>=`.
 */
export function connectionRequest(
  args: ConnectionArgs,
  parseCursor: (field: string, value: string) => Cursor = activityCursor,
): Omit<ListRequest, 'locations'> {
  if (args.first != null && args.last != null) {
    throw invalidArgument('last', 'use first or last, not both');
  }
  const parse = (field: string, value: string | null | undefined) =>
    value == null ? undefined : parseCursor(field, value);
  const after = parse('after', args.after);
  const before = parse('before', args.before);
  const since = parse('since', args.since);
  if (before !== undefined && args.last == null) {
    throw invalidArgument('before', 'before pages with last');
  }
  if ([after, before, since].filter((c) => c !== undefined).length > 1) {
    throw invalidArgument(after ? 'after' : 'before', 'use one of after, before and since');
  }
  const sizeField = args.last != null ? 'last' : 'first';
  const limit = args.last ?? args.first ?? DEFAULT_LIMIT;
  if (limit < 1 || limit > MAX_LIMIT) {
    throw invalidArgument(sizeField, `${sizeField} must be 1..${MAX_LIMIT}`);
  }
  const bound = (c: Cursor, operator: Operator) => ({
    startActivityId: c.activityId,
    ...(c.accessoryId !== undefined && { startAccessoryId: c.accessoryId }),
    operator,
  });
  const start =
    after !== undefined
      ? bound(after, '<')
      : before !== undefined
        ? bound(before, '>')
        : since !== undefined
          ? bound(since, '>=')
          : {};
  return {
    scanDirectionNewer: args.last == null,
    limit,
    ...start,
    filter: bothFilters(
      args.filter?.trim() ? parseFilter(args.filter) : undefined,
      whereFilter(args.where),
    ),
  };
}

/** Whether a page's selection shows its activities' locations: only then are they read. */
const selectsLocations = selectsAnyOf([...locationFields]);

/** A page as a Relay connection; `cursor` names each activity's position. */
function connection(
  request: Omit<ListRequest, 'locations'>,
  page: Page,
  cursor: (a: ListedActivity) => string,
) {
  const more = page.nextStartActivityId !== undefined;
  const first = page.activities[0];
  const last = page.activities.at(-1);
  return {
    edges: page.activities.map((a) => ({ cursor: cursor(a), node: a })),
    pageInfo: {
      hasNextPage: request.scanDirectionNewer && more,
      hasPreviousPage: !request.scanDirectionNewer && more,
      startCursor: first ? cursor(first) : null,
      endCursor: last ? cursor(last) : null,
    },
    nextStartActivityId: page.nextStartActivityId ?? null,
  };
}

builder.objectFields(AccessoryRef, (t) => ({
  activities: t.connection(
    {
      type: ActivityRef,
      description:
        'The activities, newest to oldest in every case; cursors are activityIds. The arguments map onto the REST list request.',
      authScopes: { activities_basic: true },
      args: {
        since: t.arg.string({ description: 'Polling: this activity and newer (operator >=).' }),
        filter: t.arg.string({
          description:
            'An expression of the filter language, e.g. `relevanceLevel >= 2 AND size(motionZones) > 0`.',
        }),
        where: t.arg({
          type: ActivityWhere,
          description: 'The typed form of a filter; with `filter` too, both must hold.',
        }),
      },
      resolve: async (accessory, args, ctx, info) => {
        const request = connectionRequest(args);
        const account = await ctx.ownAccount();
        const page = await ctx.services.activities.list(account, accessory.accessoryId, {
          ...request,
          locations: selectsLocations(info),
        });
        return connection(request, page, (a) => a.activityId);
      },
    },
    {
      name: 'ActivityConnection',
      fields: (c) => ({
        nextStartActivityId: c.string({
          nullable: true,
          description: 'As in REST: present exactly when the range holds more activities.',
          resolve: (conn) =>
            (conn as unknown as { nextStartActivityId: string | null }).nextStartActivityId,
        }),
      }),
    },
    { name: 'ActivityEdge' },
  ),
  activity: t.field({
    type: ActivityRef,
    nullable: true,
    authScopes: { activities_basic: true },
    args: { activityId: t.arg.string({ required: true }) },
    resolve: async (accessory, args, ctx) => {
      const account = await ctx.ownAccount();
      return ctx.services.activities
        .get(account, accessory.accessoryId, args.activityId)
        .catch((err: unknown) => {
          if ((err as { code?: string }).code === 'NOT_FOUND') return null;
          throw err;
        });
    },
  }),
}));

builder.objectFields(ViewerRef, (t) => ({
  activities: t.connection(
    {
      type: ActivityRef,
      description:
        "The account timeline: the activities of all the account's accessories (or of `accessoryIds`), newest to oldest in every case, by the rules of `Accessory.activities`; activities of one second go by accessory id, descending. Cursors are positions, `activityId:accessoryId`.",
      authScopes: { activities_basic: true },
      args: {
        filter: t.arg.string({
          description: 'An expression of the filter language, as in `Accessory.activities`.',
        }),
        where: t.arg({
          type: ActivityWhere,
          description: 'The typed form of a filter; with `filter` too, both must hold.',
        }),
        accessoryIds: t.arg.idList({
          description: `Only these accessories (1..${MAX_TIMELINE_ACCESSORIES}), each the account's (another's: NOT_FOUND).`,
        }),
      },
      resolve: async (_viewer, args, ctx, info) => {
        const request = connectionRequest(args, parseTimelineCursor);
        const accessoryIds = args.accessoryIds
          ? checkAccessoryIds(args.accessoryIds.map(String))
          : undefined;
        const account = await ctx.ownAccount();
        const page = await ctx.services.activities.timeline(account, {
          ...request,
          accessoryIds,
          locations: selectsLocations(info),
        });
        return connection(request, page, timelineCursor);
      },
    },
    { name: 'TimelineConnection' },
    { name: 'TimelineEdge' },
  ),
}));

const CountBucketRef = builder.enumType('CountBucket', {
  description: 'A calendar hour or day of the time zone asked for.',
  values: ['HOUR', 'DAY'] as const,
});

const CountGroupRef = builder.enumType('CountGroup', {
  values: countGroups,
});

const ActivityCountBucketRef = builder.objectRef<CountBucket>('ActivityCountBucket').implement({
  description:
    'The activities created in one bucket (and group): the grouped fields are set, the others null.',
  fields: (t) => ({
    start: t.expose('start', {
      type: 'DateTime',
      description: 'Where the hour or day begins (in the range: a partial first bucket too).',
    }),
    count: t.exposeInt('count'),
    accessoryId: t.exposeID('accessoryId', { nullable: true }),
    relevanceLevel: t.exposeInt('relevanceLevel', { nullable: true }),
    zoneId: t.exposeString('zoneId', {
      nullable: true,
      description: 'Grouped by ZONE: a zone of its motionZones; null for activities in none.',
    }),
  }),
});

/**
 * The requested cost of `activityCounts` (src/activities/count-cost.ts) from its arguments as
 * given; 0 for arguments the field refuses (it answers their error).
 */
const countCostOf: WorkCost = (args) => {
  const { from, to, bucket, groupBy, accessoryIds } = args;
  if (!(from instanceof Date && to instanceof Date) || (bucket !== 'HOUR' && bucket !== 'DAY')) {
    return 0;
  }
  return countCost({
    from,
    to,
    bucket,
    groupBy: Array.isArray(groupBy) ? (groupBy as CountGroup[]) : [],
    accessoryIds: Array.isArray(accessoryIds) ? (accessoryIds as string[]) : undefined,
  });
};

const ActivityCountsRef = builder
  .objectRef<{ buckets: CountBucket[] }>('ActivityCounts')
  .implement({
    fields: (t) => ({
      buckets: t.field({
        type: [ActivityCountBucketRef],
        description: 'By start, then group; buckets without activities are left out.',
        resolve: (c) => c.buckets,
      }),
    }),
  });

builder.objectFields(ViewerRef, (t) => ({
  activityCounts: t.field({
    type: ActivityCountsRef,
    description:
      "How many activities of the account's accessories (or of `accessoryIds`) were created in each hour or day of `timeZone` from `from` up to `to`; exactly what the timeline lists for that range and filter.",
    authScopes: { activities_basic: true },
    extensions: { workCost: countCostOf },
    args: {
      from: t.arg({ type: 'DateTime', required: true }),
      to: t.arg({
        type: 'DateTime',
        required: true,
        description: `Exclusive; at most ${MAX_COUNT_RANGE_DAYS} days after from.`,
      }),
      bucket: t.arg({ type: CountBucketRef, required: true }),
      groupBy: t.arg({ type: [CountGroupRef], description: 'Default: none, one count a bucket.' }),
      filter: t.arg.string({ description: 'An expression of the filter language.' }),
      where: t.arg({ type: ActivityWhere, description: 'With `filter` too, both must hold.' }),
      accessoryIds: t.arg.idList({ description: 'As in `activities`.' }),
      timeZone: t.arg.string({ description: 'An IANA name, e.g. Europe/Berlin; default UTC.' }),
    },
    resolve: async (_viewer, args, ctx) => {
      const account = await ctx.ownAccount();
      const { buckets, databaseMs } = await ctx.services.activities.counts(account, {
        from: args.from,
        to: args.to,
        bucket: args.bucket,
        groupBy: args.groupBy ?? [],
        timeZone: args.timeZone ?? 'UTC',
        filter: bothFilters(
          args.filter?.trim() ? parseFilter(args.filter) : undefined,
          whereFilter(args.where),
        ),
        accessoryIds: args.accessoryIds
          ? checkAccessoryIds(args.accessoryIds.map(String))
          : undefined,
      });
      meterWork(ctx, countCostOf(args), pointsOfDatabaseTime(databaseMs));
      return { buckets };
    },
  }),
}));

const CreateActivityInput = builder.inputType('CreateActivityInput', {
  fields: (t) => ({
    createdAt: t.field({
      type: 'DateTime',
      description:
        'When the camera created it; the id is this second (or the next free one). Default: now.',
    }),
    startTime: t.field({ type: 'DateTime', description: 'Default: createdAt.' }),
    relevanceLevel: t.int({ description: 'Default: 0.' }),
    motionZones: t.stringList(),
    objectLocations: t.intList(),
  }),
});

const UpdateActivityInput = builder.inputType('UpdateActivityInput', {
  description: 'The fields to change; the ones left out keep their values.',
  fields: (t) => ({
    startTime: t.field({ type: 'DateTime' }),
    relevanceLevel: t.int(),
    motionZones: t.stringList(),
    objectLocations: t.intList(),
  }),
});

const MotionStateRef = builder.enumType('MotionState', {
  values: ['started', 'ended'] as const,
});

const MotionEventRef = builder
  .objectRef<{
    eventId: string;
    eventType: EventType;
    accessoryId: string;
    motionZones: string[];
    timestamp: string;
  }>('MotionEvent')
  .implement({
    fields: (t) => ({
      eventId: t.exposeID('eventId'),
      eventType: t.field({ type: EventTypeRef, resolve: (e) => e.eventType }),
      accessoryId: t.exposeID('accessoryId'),
      motionZones: t.exposeStringList('motionZones'),
      timestamp: t.field({ type: 'DateTime', resolve: (e) => new Date(e.timestamp) }),
    }),
  });

const IngestErrorRef = builder
  .objectRef<Extract<IngestResult, { ok: false }>['error']>('IngestError')
  .implement({
    fields: (t) => ({
      code: t.exposeString('code', { description: 'An error code of the API (e.g. CONFLICT)' }),
      message: t.exposeString('message'),
      field: t.string({
        nullable: true,
        description: 'The offending field of the item, when there is one',
        resolve: (e) => (typeof e.details.field === 'string' ? e.details.field : null),
      }),
    }),
  });

const IngestResultRef = builder.objectRef<IngestResult>('IngestResult').implement({
  description: 'What became of one item of ingestBatch',
  fields: (t) => ({
    ok: t.exposeBoolean('ok'),
    accessoryId: t.id({ nullable: true, resolve: (r) => (r.ok ? r.accessoryId : null) }),
    activityId: t.string({
      nullable: true,
      description: 'The activity created or changed; null for reportMotion and refused items',
      resolve: (r) => (r.ok ? (r.activityId ?? null) : null),
    }),
    error: t.field({
      type: IngestErrorRef,
      nullable: true,
      resolve: (r) => (r.ok ? null : r.error),
    }),
  }),
});

/** GraphQL input with nulls as "not given". */
const given = <T>(value: T | null | undefined): T | undefined => value ?? undefined;

builder.mutationFields((t) => ({
  ingestBatch: t.field({
    type: [IngestResultRef],
    description:
      "Ingest: many changes across accessories, applied in order, one result per item. Each item is an object like the REST IngestItem: {op: createActivity|updateActivity|finishActivity|reportMotion, accessoryId, ...that operation's arguments}. An Idempotency-Key header replays the first answer.",
    authScopes: { ingest: true },
    args: { items: t.arg({ type: ['JSON'], required: true }) },
    resolve: async (_root, args, ctx) =>
      (await ingestBatch(ctx.services, ctx.principal, args.items, ctx.idempotencyKey)).results,
  }),
  createActivity: t.field({
    type: ActivityRef,
    description:
      "Creates the accessory's newest activity (409 unless newer than the newest); finishes a still running previous one.",
    authScopes: { ingest: true },
    args: {
      accessoryId: t.arg.id({ required: true }),
      input: t.arg({ type: CreateActivityInput, required: true }),
    },
    resolve: (_root, { accessoryId, input }, ctx) =>
      ctx.services.activities.create(String(accessoryId), {
        createdAt: given(input.createdAt),
        startTime: given(input.startTime),
        relevanceLevel: given(input.relevanceLevel),
        motionZones: given(input.motionZones),
        objectLocations: given(input.objectLocations),
      }),
  }),
  updateActivity: t.field({
    type: ActivityRef,
    description: 'Changes the newest activity; any older one is fixed (409).',
    authScopes: { ingest: true },
    args: {
      accessoryId: t.arg.id({ required: true }),
      activityId: t.arg.string({ required: true }),
      input: t.arg({ type: UpdateActivityInput, required: true }),
    },
    resolve: (_root, { accessoryId, activityId, input }, ctx) =>
      ctx.services.activities.update(String(accessoryId), activityId, {
        startTime: given(input.startTime),
        relevanceLevel: given(input.relevanceLevel),
        motionZones: given(input.motionZones),
        objectLocations: given(input.objectLocations),
      }),
  }),
  finishActivity: t.field({
    type: ActivityRef,
    description: 'Ends the newest activity (409 for an older or finished one).',
    authScopes: { ingest: true },
    args: {
      accessoryId: t.arg.id({ required: true }),
      activityId: t.arg.string({ required: true }),
      endTime: t.arg({ type: 'DateTime', required: true }),
    },
    resolve: (_root, { accessoryId, activityId, endTime }, ctx) =>
      ctx.services.activities.finish(String(accessoryId), activityId, endTime),
  }),
  reportMotion: t.field({
    type: MotionEventRef,
    description:
      'Ingest: motion started or ended on an accessory. Records motion_started / motion_ended (eventData {accessoryId, motionZones, timestamp}); no activity changes.',
    authScopes: { ingest: true },
    args: {
      accessoryId: t.arg.id({ required: true }),
      state: t.arg({ type: MotionStateRef, required: true }),
      at: t.arg({ type: 'DateTime', description: 'When; default now.' }),
      motionZones: t.arg.stringList({ description: 'Zone ids z1..z5, zR; default none.' }),
    },
    resolve: async (_root, args, ctx) => {
      const event = await reportMotion(ctx.services, {
        accessoryId: String(args.accessoryId),
        state: args.state as MotionState,
        at: args.at ?? new Date(),
        motionZones: args.motionZones ?? [],
      });
      const data = event.eventData as { motionZones: string[]; timestamp: string };
      return {
        eventId: event.eventId,
        eventType: event.eventType as EventType,
        accessoryId: String(args.accessoryId),
        motionZones: data.motionZones,
        timestamp: data.timestamp,
      };
    },
  }),
}));
