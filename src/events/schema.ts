import type http from 'node:http';
import type { RequestContext } from '../context.ts';
import { AppError, invalidArgument } from '../errors.ts';
import { builder } from '../graphql/builder.ts';
import { EventTypeRef } from '../notifications/schema.ts';
import {
  StreamEnd,
  type LiveEvent,
  type LiveSubscription,
  type LiveTransport,
  type Stream,
} from './subscriptions.ts';

/** What the WebSocket adapter (src/graphql/ws.ts) adds to the context of its operations. */
export interface LiveCarrier {
  liveTransport?: LiveTransport;
}

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

/** Subscription payloads are events, or a final StreamEnd whose error ends an SSE stream. */
const unwrap = (payload: LiveEvent | StreamEnd): LiveEvent => {
  if (payload instanceof StreamEnd) throw payload.error;
  return payload;
};

builder.subscriptionFields((t) => ({
  accountEvents: t.field({
    type: LiveEventRef,
    description:
      'The events of the caller\'s account (accountId: its id or "self"), optionally only some types. With `after` (an eventId), first the logged events that followed it, then live ones, without gap or repeat. The stream ends after account_deleted.',
    authScopes: { activities_basic: true },
    args: {
      accountId: t.arg.id({ required: true }),
      eventTypes: t.arg({ type: [EventTypeRef] }),
      after: t.arg.string(),
    },
    subscribe: async (_root, args, ctx) => {
      if (args.eventTypes && args.eventTypes.length === 0) {
        throw invalidArgument('eventTypes', 'eventTypes must not be empty (leave it out for all)');
      }
      const account = await ctx.ownAccount(String(args.accountId));
      return openStream(
        ctx,
        { kind: 'account', accountId: account.accountId },
        args.after,
        args.eventTypes,
      );
    },
    resolve: unwrap,
  }),
  accessoryEvents: t.field({
    type: LiveEventRef,
    description:
      "The events of one of the caller's accessories. With `after` (an eventId), first the logged events that followed it, then live ones, without gap or repeat.",
    authScopes: { activities_basic: true },
    args: {
      accessoryId: t.arg.id({ required: true }),
      after: t.arg.string(),
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
        args.after,
      );
    },
    resolve: unwrap,
  }),
}));

/**
 * Opens the subscription over the transport of the operation: a WebSocket connection (limits
 * and token expiry are the connection's), or an SSE response (limits and expiry per stream).
 */
async function openStream(
  ctx: RequestContext,
  stream: Stream,
  after: string | null | undefined,
  eventTypes?: readonly string[] | null,
): Promise<LiveSubscription> {
  const live = ctx.services.live;
  const options = { stream, after: after ?? undefined, eventTypes: eventTypes ?? undefined };
  const carried = (ctx as RequestContext & LiveCarrier).liveTransport;
  if (carried) return live.subscribe({ ...options, transport: carried });

  const res = (ctx as RequestContext & { res?: http.ServerResponse }).res;
  const { connections } = live;
  const subject = ctx.principal.subject;
  if (!connections.open()) {
    throw new AppError(
      'UNAVAILABLE',
      'this instance serves as many live connections as it may; try again',
      {},
      { 'Retry-After': '5' },
    );
  }
  if (!connections.claim(subject)) {
    connections.close();
    throw new AppError(
      'RATE_LIMITED',
      `at most ${connections.maxPerSubject} live connections per token subject`,
      {},
      { 'Retry-After': '5' },
    );
  }
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    connections.unclaim(subject);
    connections.close();
  };
  try {
    const sub = await live.subscribe({
      ...options,
      transport: {
        kind: 'sse',
        congested: () => (res?.writableLength ?? 0) > live.maxBufferedBytes,
        cutSlowConsumer: () => false,
      },
      expiresAt: ctx.principal.expiresAt,
      onEnd: release,
    });
    // The client going away ends the stream, whatever the HTTP layer does with the iterator.
    if (res) {
      if (res.destroyed) void sub.return();
      else res.once('close', () => void sub.return());
    }
    return sub;
  } catch (err) {
    release();
    throw err;
  }
}
