import type { RequestContext } from '../../context.ts';
import { invalidArgument } from '../../errors.ts';
import { builder } from '../builder.ts';
import type { LiveCarrier } from '../live.ts';
import { EventTypeRef } from './notifications.ts';
import { poolRows } from '../../storage/database.ts';
import { LiveEventFilter } from '../../events/filter.ts';
import type { LiveEvent, Stream } from '../../events/live/stream.ts';
import { StreamEnd, type LiveSubscription } from '../../events/live/subscription.ts';

const FILTER_DESCRIPTION =
  ' With `filter`, only the events matching it: the filter language of Accessory.activities plus accessoryId, evaluated against the activity of activity_* events and the accessoryId and motionZones of motion_* events; other events (account_deleted, zones_saved) always pass.';

const LiveEventRef = builder.objectRef<LiveEvent>('LiveEvent').implement({
  description:
    'A committed event of the event log, as subscriptions stream it. Ids increase in commit order per account; pass the last one received as `after` to resume.',
  fields: (t) => ({
    eventId: t.exposeString('eventId'),
    accountId: t.exposeID('accountId'),
    accessoryId: t.exposeID('accessoryId', { nullable: true }),
    eventType: t.field({ type: EventTypeRef, resolve: (e) => e.eventType }),
    eventData: t.field({ type: 'JSON', resolve: (e) => e.eventData }),
    occurredAt: t.expose('occurredAt', { type: 'DateTime' }),
  }),
});

/** Subscription payloads are events, or a final StreamEnd whose error ends the stream. */
const unwrap = (payload: LiveEvent | StreamEnd): LiveEvent => {
  if (payload instanceof StreamEnd) throw payload.error;
  return payload;
};

builder.subscriptionFields((t) => ({
  accountEvents: t.field({
    type: LiveEventRef,
    description:
      'The events of the caller\'s account (accountId: its id or "self"), optionally only some types. With `after` (an eventId), first the logged events that followed it, then live ones, without gap or repeat. The stream ends after account_deleted.' +
      FILTER_DESCRIPTION,
    authScopes: { activities_basic: true },
    args: {
      accountId: t.arg.id({ required: true }),
      eventTypes: t.arg({ type: [EventTypeRef] }),
      after: t.arg.string(),
      filter: t.arg.string(),
    },
    subscribe: async (_root, args, ctx) => {
      if (args.eventTypes && args.eventTypes.length === 0) {
        throw invalidArgument('eventTypes', 'eventTypes must not be empty (leave it out for all)');
      }
      const account = await ctx.ownAccount(String(args.accountId));
      return openStream(ctx, { kind: 'account', accountId: account.accountId }, args, {
        accountId: account.accountId,
      });
    },
    resolve: unwrap,
  }),
  accessoryEvents: t.field({
    type: LiveEventRef,
    description:
      "The events of one of the caller's accessories. With `after` (an eventId), first the logged events that followed it, then live ones, without gap or repeat." +
      FILTER_DESCRIPTION,
    authScopes: { activities_basic: true },
    args: {
      accessoryId: t.arg.id({ required: true }),
      after: t.arg.string(),
      filter: t.arg.string(),
    },
    subscribe: async (_root, args, ctx) => {
      const account = await ctx.account();
      const accessory = await ctx.services.accessories.owned(
        account?.accountId,
        String(args.accessoryId),
      );
      return openStream(
        ctx,
        { kind: 'accessory', accountId: accessory.accountId, accessoryId: accessory.accessoryId },
        args,
        { accessoryIds: [accessory.accessoryId] },
      );
    },
    resolve: unwrap,
  }),
}));

/**
 * Opens the subscription over the operation's live transport (`openLive` of its context: its
 * WebSocket, or SSE). A filter is parsed first (INVALID_ARGUMENT with the position) and loads the
 * zones of `accessories`.
 */
async function openStream(
  ctx: RequestContext,
  stream: Stream,
  args: { after?: string | null; eventTypes?: readonly string[] | null; filter?: string | null },
  accessories: { accessoryIds: string[] } | { accountId: string },
): Promise<LiveSubscription> {
  const filter =
    args.filter == null
      ? undefined
      : await LiveEventFilter.open(args.filter, poolRows(ctx.services.db.pool), accessories);
  const request = {
    stream,
    after: args.after ?? undefined,
    eventTypes: args.eventTypes ?? undefined,
    accepts: filter && ((event: LiveEvent) => filter.accepts(event)),
  };
  return (ctx as RequestContext & LiveCarrier).openLive(request);
}
