import { z } from 'zod';
import { invalidArgument } from '../../errors.ts';
import { checkUuid } from '../../ids.ts';
import type { MediaLookup } from '../../media/lookup.ts';
import { timestamp } from '../../schemas.ts';
import { route } from '../rest.ts';
import { chargeCost, costHeaders, pointsOfDatabaseTime } from '../../limits/cost.ts';
import { countCost } from '../../activities/count-cost.ts';
import { parseFilter } from '../../filter/index.ts';
import { isActivityId } from '../../activity-ids.ts';
import {
  activityDetailJson,
  activityDetailSchema,
  activityJson,
  activitySchema,
  extraFieldNames,
  locationFields,
  type ListedActivity,
  type ExtraField,
  type MediaUrls,
} from '../../activities/model.ts';
import {
  ingestBatch,
  ingestItemSchema,
  ingestResultSchema,
  MAX_BATCH_ITEMS,
} from '../../activities/batch.ts';
import {
  checkAccessoryIds,
  DEFAULT_LIMIT,
  MAX_LIMIT,
  MAX_COUNT_RANGE_DAYS,
  MAX_TIMELINE_ACCESSORIES,
  type ListRequest,
} from '../../activities/service.ts';
import { countGroups, operators } from '../../activities/store.ts';

const activityId = z.string().refine(isActivityId, 'must be an activityId (YYYYMMDDTHHMMSSZ)');

export const listBody = z
  .object({
    scanDirectionNewer: z.boolean().optional(),
    startActivityId: activityId.optional(),
    operator: z.enum(operators).optional(),
    limit: z.number().int().min(1).max(MAX_LIMIT).optional(),
    filter: z.string().max(4096).optional(),
    extraFields: z.array(z.enum(extraFieldNames)).max(extraFieldNames.length).optional(),
  })
  .strict()
  .meta({
    id: 'ActivityListRequest',
    description:
      'Every field is optional; an empty body lists the newest 20. `startActivityId` and `operator` go together.',
  });

const activityPage = z
  .strictObject({
    activities: z.array(activitySchema).meta({ description: 'Newest to oldest' }),
    nextStartActivityId: z.string().optional().meta({
      description:
        'Present exactly when the range holds more activities: continue with it and operator `<` (newest-first scan) or `>` (oldest-first)',
    }),
  })
  .meta({ id: 'ActivityPage' });

const timelineBody = listBody
  .extend({
    accessoryIds: z
      .array(z.string())
      .optional()
      .meta({
        description: `Only these accessories (1..${MAX_TIMELINE_ACCESSORIES}), each the caller's (another's: 404); default all of the account's`,
      }),
    startAccessoryId: z.string().optional().meta({
      description:
        "With startActivityId: a position between the accessories' activities of that second (the timeline orders them by accessory id); without it, startActivityId bounds by id alone",
    }),
  })
  .strict()
  .meta({
    id: 'TimelineRequest',
    description:
      'The listing request (ActivityListRequest) across the accessories of the account, plus accessoryIds and startAccessoryId.',
  });

const timelinePage = activityPage
  .extend({
    nextStartAccessoryId: z.string().optional().meta({
      description:
        'Present with nextStartActivityId: continue with both (startActivityId, startAccessoryId) and operator `<` (newest-first scan) or `>` (oldest-first)',
    }),
  })
  .meta({ id: 'TimelinePage' });

const instant = z.iso.datetime({ offset: true });

const countsBody = z
  .strictObject({
    from: instant.meta({ description: 'ISO 8601 with a zone or Z' }),
    to: instant.meta({
      description: `Exclusive; at most ${MAX_COUNT_RANGE_DAYS} days after from`,
    }),
    bucket: z.enum(['HOUR', 'DAY']),
    groupBy: z.array(z.enum(countGroups)).max(countGroups.length).optional(),
    filter: z.string().max(4096).optional(),
    accessoryIds: z.array(z.string()).optional(),
    timeZone: z.string().max(64).optional().meta({ description: 'An IANA name; default UTC' }),
  })
  .meta({
    id: 'ActivityCountsRequest',
    description:
      'Counts of the activities created from `from` up to `to`, per hour or day of `timeZone`, by the groups asked for',
  });

const countsAnswer = z
  .strictObject({
    buckets: z.array(
      z.strictObject({
        start: timestamp,
        count: z.int(),
        accessoryId: z.string().nullable(),
        relevanceLevel: z.int().nullable(),
        zoneId: z.string().nullable(),
      }),
    ),
  })
  .meta({ id: 'ActivityCounts' });

/** The REST listing body as the list request the service takes. */
export function listRequest(body: z.infer<typeof listBody>): ListRequest {
  const { startActivityId, operator } = body;
  if (startActivityId !== undefined && operator === undefined) {
    throw invalidArgument('operator', 'operator is required with startActivityId');
  }
  if (operator !== undefined && startActivityId === undefined) {
    throw invalidArgument('startActivityId', 'startActivityId is required with operator');
  }
  return {
    scanDirectionNewer: body.scanDirectionNewer ?? true,
    startActivityId,
    operator,
    limit: body.limit ?? DEFAULT_LIMIT,
    filter:
      body.filter === undefined || body.filter.trim() === '' ? undefined : parseFilter(body.filter),
    locations: body.extraFields?.some((f) => locationFields.has(f)) ?? false,
  };
}

/** A page's activities as listed, with their media URLs when extraFields asks for `media`. */
async function activitiesJson(
  lookup: MediaLookup,
  activities: readonly ListedActivity[],
  extraFields: readonly ExtraField[] | undefined,
) {
  const extra = new Set(extraFields);
  if (!extra.has('media')) return activities.map((a) => activityJson(a, extra));
  const byAccessory = new Map<string, string[]>();
  for (const a of activities) {
    byAccessory.set(a.accessoryId, [...(byAccessory.get(a.accessoryId) ?? []), a.activityId]);
  }
  const urls = new Map<string, MediaUrls | null>();
  for (const [accessoryId, activityIds] of byAccessory) {
    const found = await lookup.urlsFor(accessoryId, activityIds);
    for (const [activityId, media] of found) urls.set(`${accessoryId}/${activityId}`, media);
  }
  return activities.map((a) =>
    activityJson(a, extra, urls.get(`${a.accessoryId}/${a.activityId}`) ?? null),
  );
}

export const activityRoutes = [
  route({
    method: 'POST',
    path: '/api/accessories/{accessoryId}/activities',
    operationId: 'listActivities',
    summary: 'List or search the activities of an accessory, newest to oldest, a page at a time',
    scopes: ['activities_basic'],
    body: listBody,
    response: activityPage,
    async handle(ctx, { params, body }) {
      const request = listRequest(body);
      const account = await ctx.ownAccount();
      const page = await ctx.services.activities.list(account, params.accessoryId!, request);
      return {
        body: {
          activities: await activitiesJson(
            ctx.services.media.lookup,
            page.activities,
            body.extraFields,
          ),
          ...(page.nextStartActivityId && { nextStartActivityId: page.nextStartActivityId }),
        },
      };
    },
  }),
  route({
    method: 'POST',
    path: '/api/activities',
    operationId: 'listTimeline',
    summary:
      "The account timeline: activities of all the account's accessories (or the chosen ones), newest to oldest, a page at a time",
    scopes: ['activities_basic'],
    body: timelineBody,
    response: timelinePage,
    async handle(ctx, { body }) {
      const { accessoryIds, startAccessoryId, ...listing } = body;
      const request = {
        ...listRequest(listing),
        accessoryIds: accessoryIds && checkAccessoryIds(accessoryIds),
        startAccessoryId:
          startAccessoryId === undefined
            ? undefined
            : checkUuid('startAccessoryId', startAccessoryId),
      };
      if (startAccessoryId !== undefined && body.startActivityId === undefined) {
        throw invalidArgument(
          'startActivityId',
          'startActivityId is required with startAccessoryId',
        );
      }
      const account = await ctx.ownAccount();
      const page = await ctx.services.activities.timeline(account, request);
      return {
        body: {
          activities: await activitiesJson(
            ctx.services.media.lookup,
            page.activities,
            body.extraFields,
          ),
          ...(page.nextStartActivityId && {
            nextStartActivityId: page.nextStartActivityId,
            nextStartAccessoryId: page.nextStartAccessoryId,
          }),
        },
      };
    },
  }),
  route({
    method: 'POST',
    path: '/api/activities/counts',
    operationId: 'countActivities',
    summary:
      "Activities of the account's accessories (or the chosen ones) per hour or day of a time zone, by accessory, relevance or zone",
    scopes: ['activities_basic'],
    body: countsBody,
    response: countsAnswer,
    priced: true,
    async handle(ctx, { body }) {
      const request = {
        from: new Date(body.from),
        to: new Date(body.to),
        bucket: body.bucket,
        groupBy: body.groupBy ?? [],
        timeZone: body.timeZone ?? 'UTC',
        filter: body.filter?.trim() ? parseFilter(body.filter) : undefined,
        accessoryIds: body.accessoryIds && checkAccessoryIds(body.accessoryIds),
      };
      const { rateLimiter } = ctx.services;
      const requested = countCost(request);
      await chargeCost(rateLimiter, ctx.principal, requested);
      const account = await ctx.ownAccount();
      const counted = await ctx.services.activities.counts(account, request);
      const actual = pointsOfDatabaseTime(counted.databaseMs);
      const left = await rateLimiter.settle(ctx.principal, actual - requested);
      return {
        body: { buckets: counted.buckets.map((b) => ({ ...b, start: b.start.toISOString() })) },
        headers: costHeaders(requested, actual, left),
      };
    },
  }),
  route({
    method: 'GET',
    path: '/api/accessories/{accessoryId}/activities/{activityId}',
    operationId: 'getActivity',
    summary: 'One activity with every extra field',
    scopes: ['activities_basic'],
    response: activityDetailSchema,
    async handle(ctx, { params }) {
      const account = await ctx.ownAccount();
      const activity = await ctx.services.activities.get(
        account,
        params.accessoryId!,
        params.activityId!,
      );
      const { accessoryId, activityId } = activity;
      const media = await ctx.services.media.lookup.urlsFor(accessoryId, [activityId]);
      return { body: activityDetailJson(activity, media.get(activityId) ?? null) };
    },
  }),
  route({
    method: 'POST',
    path: '/api/ingest',
    operationId: 'ingestBatch',
    summary:
      'Ingest many changes across accessories in order, one result per item (JSON array or NDJSON); Idempotency-Key replays the first answer',
    scopes: ['ingest'],
    ndjson: true,
    // Items are checked one by one (a bad one is its own result): any value passes here.
    body: z.array(z.union([ingestItemSchema, z.unknown()])).meta({
      description: `1..${MAX_BATCH_ITEMS} items (IngestItem), applied in order; an item that is no IngestItem gets its own INVALID_ARGUMENT result`,
    }),
    response: z
      .strictObject({
        results: z.array(ingestResultSchema).meta({ description: 'One per item, in order' }),
      })
      .meta({ id: 'IngestBatchResults' }),
    async handle(ctx, { body, headers }) {
      const key = headers['idempotency-key'];
      const { results } = await ingestBatch(
        ctx.services,
        ctx.principal,
        Array.isArray(body) ? body : [],
        typeof key === 'string' ? key : undefined,
      );
      return { body: { results } };
    },
  }),
];
