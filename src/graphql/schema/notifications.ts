import { AppError, invalidArgument } from '../../errors.ts';
import {
  deprecatedEventTypes,
  recordedEventTypes,
  type RecordedEventType,
} from '../../events/types.ts';
import { builder, scopedLoader } from '../builder.ts';
import { callerOf, motionAllowed } from '../../http/caller.ts';
import {
  MAX_PER_SECOND_MAX,
  OVERLAP_SECONDS_DEFAULT,
  OVERLAP_SECONDS_MAX,
} from '../../notifications/registration.ts';
import { destinationKinds } from '../../notifications/destinations/destination.ts';
import { MAX_DELIVERIES_PAGE, TEST_EVENT_TYPE } from '../../notifications/service.ts';
import type {
  AttemptView,
  DeliveryView,
  RegistrationView,
  ReplayView,
} from '../../notifications/views.ts';

/** The contract's event types, by their wire names. */
export const EventTypeRef = builder.enumType('EventType', {
  description:
    "The event types of notifications and subscriptions, by their wire names. receiver_disabled, receiver_enabled and delivery_exhausted are the operational events of the account's webhook receivers. zones_saved is streamed to subscribers only: registrations refuse it.",
  // Every type the event log records, so that subscriptions can stream them all.
  values: Object.fromEntries(
    recordedEventTypes.map((type) => {
      const replacement = deprecatedEventTypes[type as keyof typeof deprecatedEventTypes];
      return [
        type,
        replacement ? { deprecationReason: `No longer recorded: use ${replacement}.` } : {},
      ];
    }),
  ) as Record<RecordedEventType, { deprecationReason?: string }>,
});

const DeliveryStateRef = builder.enumType('DeliveryState', {
  description:
    'pending: queued, in flight or waiting for a retry; delivered: a 2xx; discarded: every attempt failed (redeliverNotification queues it again); gone: the receiver answered 410 and its registration was removed; dropped: the registration was removed before it was sent.',
  values: ['pending', 'delivered', 'discarded', 'gone', 'dropped'] as const,
});

const DeliveryKindRef = builder.enumType('DeliveryKind', {
  description: `event: a notification of an event; test: sent by sendTestNotification (eventType ${TEST_EVENT_TYPE}).`,
  values: ['event', 'test'] as const,
});

const RegistrationStateRef = builder.enumType('NotificationRegistrationState', {
  description:
    'active: notifications are sent; disabled: the receiver failed every attempt for WEBHOOK_DISABLE_AFTER_HOURS, and nothing is sent until it is registered again or enableNotifications is called.',
  values: ['active', 'disabled'] as const,
});

const not = (value: unknown) => (value === undefined ? null : value);

const DestinationKindRef = builder.enumType('DestinationKind', {
  description: 'Where a registration’s notifications go (docs/api.md, Destinations).',
  values: destinationKinds,
});

const RegistrationRef = builder.objectRef<RegistrationView>('NotificationRegistration').implement({
  description:
    "The calling client's receiver of server notifications on an account. The authKey is never returned.",
  fields: (t) => ({
    accountId: t.exposeID('accountId'),
    clientId: t.exposeString('clientId'),
    url: t.exposeString('url'),
    eventTypes: t.field({ type: [EventTypeRef], resolve: (r) => r.eventTypes }),
    userData: t.field({ type: 'JSON', nullable: true, resolve: (r) => r.userData }),
    filter: t.exposeString('filter', {
      nullable: true,
      description: 'Which events of its types it gets; null: all.',
    }),
    maxPerSecond: t.exposeInt('maxPerSecond', {
      nullable: true,
      description: 'At most this many notifications per second; null: no limit.',
    }),
    state: t.field({ type: RegistrationStateRef, resolve: (r) => r.state }),
    failingSince: t.expose('failingSince', {
      type: 'DateTime',
      nullable: true,
      description: 'Since when every attempt failed; null: the last one succeeded, or none yet.',
    }),
    disabledAt: t.expose('disabledAt', { type: 'DateTime', nullable: true }),
    disabledReason: t.exposeString('disabledReason', { nullable: true }),
    previousKeyUntil: t.expose('previousKeyUntil', {
      type: 'DateTime',
      nullable: true,
      description:
        'Until when the previous key signs too (a second v1 signature), after rotateNotificationKey with an overlap; null: only the current key signs.',
    }),
    signing: t.exposeString('signing', {
      description:
        'hmac-sha256: webhook-signature carries v1 (HMAC with the authKey); ed25519: v1a, verified with publicKey.',
    }),
    publicKey: t.exposeString('publicKey', {
      nullable: true,
      description:
        'ed25519: the public key that verifies the v1a signatures (whpk_ + base64 of its raw 32 bytes; a rotation replaces it). Null for hmac-sha256.',
    }),
    kind: t.field({
      type: DestinationKindRef,
      resolve: (r) => r.kind,
      description: 'webhook: POSTed to url; mqtt, amqp, nats: published to the broker at url.',
    }),
    topic: t.exposeString('topic', {
      nullable: true,
      description: "A broker kind's topic, routing key or subject template; null for a webhook.",
    }),
    exchange: t.exposeString('exchange', {
      nullable: true,
      description: 'AMQP: the exchange; null for the other kinds.',
    }),
    hasCredentials: t.exposeBoolean('hasCredentials', {
      description: 'Whether broker credentials are set (they are never returned).',
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const KeyRotationRef = builder
  .objectRef<{ registration: RegistrationView; generatedAuthKey: string | null }>(
    'NotificationKeyRotation',
  )
  .implement({
    description: 'The registration after rotateNotificationKey, with the generated key if any.',
    fields: (t) => ({
      registration: t.field({ type: RegistrationRef, resolve: (r) => r.registration }),
      authKey: t.exposeString('generatedAuthKey', {
        nullable: true,
        description:
          'The generated key, when none was given: shown here only, never again. Null when authKey was given.',
      }),
    }),
  });

const ReplayRef = builder.objectRef<ReplayView>('NotificationReplay').implement({
  description: 'What replayNotifications queued.',
  fields: (t) => ({
    queued: t.exposeInt('queued', { description: 'How many notifications were queued again.' }),
    from: t.expose('from', { type: 'DateTime' }),
    to: t.expose('to', { type: 'DateTime' }),
    onlyFailed: t.exposeBoolean('onlyFailed'),
  }),
});

const AttemptRef = builder.objectRef<AttemptView>('DeliveryAttempt').implement({
  description: 'One attempt to deliver a notification.',
  fields: (t) => ({
    attempt: t.exposeInt('attempt', {
      description: 'The number of the attempt, from 1; a gap is an attempt cut short by a crash.',
    }),
    startedAt: t.expose('startedAt', { type: 'DateTime' }),
    durationMs: t.exposeInt('durationMs'),
    outcome: t.exposeString('outcome', { description: 'accepted (2xx), gone (410) or failed.' }),
    status: t.exposeInt('status', { nullable: true, description: 'The HTTP status, if any.' }),
    error: t.exposeString('error', {
      nullable: true,
      description:
        'Why no status: timeout, dns, connect, tls, blocked_address, protocol or key_unavailable.',
    }),
    errorMessage: t.exposeString('errorMessage', { nullable: true }),
    response: t.exposeString('responseSnippet', {
      description: "The first 2 KiB of the receiver's answer.",
    }),
  }),
});

const DeliveryRef = builder
  .nodeRef<DeliveryView>('NotificationDelivery', {
    id: {
      description:
        'The delivery id (for redeliverNotification and the cursors of the delivery log), which is also its global id.',
      resolve: (d) => d.deliveryId,
    },
    loadMany: scopedLoader(['notifications', 'notifications_motion'], async (ids, ctx) => {
      // A caller without an account has no deliveries.
      const caller = await orNull(callerOf(ctx));
      return caller ? ctx.services.notifications.deliveriesById(caller, ids) : ids.map(() => null);
    }),
  })
  .implement({
    description: 'One notification to the calling client’s receiver, with every attempt.',
    fields: (t) => ({
      kind: t.field({ type: DeliveryKindRef, resolve: (d) => d.kind }),
      eventId: t.exposeID('eventId', { nullable: true, description: 'Null for a test.' }),
      webhookId: t.exposeString('webhookId', {
        description: 'The webhook-id header: the event id, or test_<id> for a test.',
      }),
      eventType: t.exposeString('eventType', {
        description: `An EventType wire name, or ${TEST_EVENT_TYPE} for a test (not an EventType).`,
      }),
      eventData: t.field({ type: 'JSON', resolve: (d) => d.eventData }),
      status: t.field({ type: DeliveryStateRef, resolve: (d) => d.state }),
      url: t.exposeString('url'),
      attemptCount: t.exposeInt('attemptCount'),
      nextAttemptAt: t.expose('nextAttemptAt', { type: 'DateTime', nullable: true }),
      createdAt: t.expose('createdAt', { type: 'DateTime' }),
      finishedAt: t.expose('finishedAt', { type: 'DateTime', nullable: true }),
      replayOf: t.exposeID('replayOf', {
        nullable: true,
        description:
          'A replay (replayNotifications): the id of the delivery it replays, with the same webhookId. Null: an original.',
      }),
      attempts: t.field({ type: [AttemptRef], resolve: (d) => d.attempts }),
    }),
  });

const RegisterInput = builder.inputType('RegisterNotificationsInput', {
  fields: (t) => ({
    accountId: t.id({ required: true, description: 'The caller’s own account id.' }),
    url: t.string({ required: true }),
    authKey: t.string({ required: true, description: '16..256 characters; never returned.' }),
    eventTypes: t.field({ type: [EventTypeRef], required: true }),
    userData: t.field({ type: 'JSON', description: 'A JSON object of at most 4 KiB.' }),
    filter: t.string({
      description:
        'Only events matching it are sent: the filter language of Accessory.activities plus accessoryId, evaluated against the activity of activity_* events and the accessoryId and motionZones of motion_* events; account_deleted always passes.',
    }),
    maxPerSecond: t.int({
      description: `At most this many notifications per second (1..${MAX_PER_SECOND_MAX}); the rest wait, none is dropped for it. Null or left out: no limit.`,
    }),
    signing: t.string({
      description:
        'hmac-sha256 (default): webhook-signature carries v1, keyed with authKey; ed25519: v1a, with a key pair the service generates and publishes as publicKey. authKey keys X-Vendor-Verify either way.',
    }),
    kind: t.field({
      type: DestinationKindRef,
      description:
        'webhook (default): POSTed to url; mqtt, amqp, nats: published to the broker at url.',
    }),
    topic: t.string({
      description:
        'Broker kinds: the MQTT topic, AMQP routing key or NATS subject, with the placeholders {accountId}, {accessoryId} (- for events of no accessory) and {eventType}.',
    }),
    exchange: t.string({ description: "AMQP: the exchange; left out: '' (the default exchange)." }),
    username: t.string({ description: "Broker kinds: the broker's user name; never returned." }),
    password: t.string({ description: "Broker kinds: the broker's password; never returned." }),
  }),
});

const notifications = { notifications: true, notifications_motion: true } as const;

/** null instead of NOT_FOUND: another account's resource is as missing as none. */
const orNull = <T>(promise: Promise<T>): Promise<T | null> =>
  promise.catch((err: unknown) => {
    if (err instanceof AppError && err.code === 'NOT_FOUND') return null;
    throw err;
  });

builder.queryFields((t) => ({
  notificationRegistration: t.field({
    type: RegistrationRef,
    nullable: true,
    description: "The calling client's registration on its account; null when none.",
    authScopes: notifications,
    args: { accountId: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) =>
      orNull(
        callerOf(ctx, String(args.accountId)).then((caller) =>
          ctx.services.notifications.get(caller),
        ),
      ),
  }),
  notificationDeliveries: t.connection(
    {
      type: DeliveryRef,
      nullable: true,
      description:
        "The delivery log of the calling client's receiver on its account, newest first; each delivery with its attempts. Kept for DELIVERY_LOG_RETENTION_DAYS.",
      authScopes: notifications,
      args: { accountId: t.arg.id({ required: true }) },
      resolve: async (_root, args, ctx) => {
        if (args.last != null || args.before != null) {
          throw invalidArgument(
            args.last != null ? 'last' : 'before',
            'notificationDeliveries pages forward only (first, after)',
          );
        }
        const first = args.first ?? 20;
        if (first < 1 || first > MAX_DELIVERIES_PAGE) {
          throw invalidArgument('first', `first must be 1..${MAX_DELIVERIES_PAGE}`);
        }
        const page = await orNull(
          callerOf(ctx, String(args.accountId)).then((caller) =>
            ctx.services.notifications.deliveries(caller, first, args.after ?? undefined),
          ),
        );
        if (!page) return null;
        const { deliveries } = page;
        return {
          edges: deliveries.map((d) => ({ cursor: d.deliveryId, node: d })),
          pageInfo: {
            hasNextPage: page.hasNextPage,
            hasPreviousPage: false,
            startCursor: deliveries[0]?.deliveryId ?? null,
            endCursor: deliveries.at(-1)?.deliveryId ?? null,
          },
        };
      },
    },
    { name: 'NotificationDeliveryConnection' },
    { name: 'NotificationDeliveryEdge' },
  ),
}));

builder.mutationFields((t) => ({
  registerNotifications: t.field({
    type: RegistrationRef,
    description:
      "Registers (or overwrites) the calling client's receiver on its account; in effect when this returns. motion_* types need notifications_motion.",
    authScopes: notifications,
    args: { input: t.arg({ type: RegisterInput, required: true }) },
    resolve: async (_root, { input }, ctx) =>
      ctx.services.notifications.register(
        await callerOf(ctx, String(input.accountId)),
        {
          url: input.url,
          authKey: input.authKey,
          eventTypes: input.eventTypes,
          userData: not(input.userData),
          filter: not(input.filter),
          maxPerSecond: input.maxPerSecond,
          signing: input.signing,
          kind: input.kind,
          topic: input.topic,
          exchange: input.exchange,
          username: input.username,
          password: input.password,
        },
        motionAllowed(ctx),
      ),
  }),
  enableNotifications: t.field({
    type: RegistrationRef,
    description:
      "Enables the calling client's disabled registration again (its failures forgotten); notifications of events from now on are sent. NOT_FOUND without a registration.",
    authScopes: notifications,
    args: { accountId: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) =>
      ctx.services.notifications.enable(await callerOf(ctx, String(args.accountId))),
  }),
  rotateNotificationKey: t.field({
    type: KeyRotationRef,
    description: `Rotates the key of the calling client's registration to authKey (16..256 characters), or to a generated one (answered once), and an ed25519 registration's key pair to a new one (its publicKey in the registration). For overlapSeconds (0..${OVERLAP_SECONDS_MAX}, default ${OVERLAP_SECONDS_DEFAULT}) every attempt carries a signature (v1, or v1a for ed25519) with each key, the new one first; 0 retires the previous key at once. X-Vendor-Verify uses the new key. NOT_FOUND without a registration.`,
    authScopes: notifications,
    args: {
      accountId: t.arg.id({ required: true }),
      authKey: t.arg.string(),
      overlapSeconds: t.arg.int(),
    },
    resolve: async (_root, args, ctx) =>
      ctx.services.notifications.rotate(await callerOf(ctx, String(args.accountId)), {
        authKey: args.authKey,
        overlapSeconds: args.overlapSeconds,
      }),
  }),
  retirePreviousNotificationKey: t.field({
    type: RegistrationRef,
    description:
      "Ends the overlap of the calling client's last rotation now: only the current key signs from the next attempt on. NOT_FOUND without a registration.",
    authScopes: notifications,
    args: { accountId: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) =>
      ctx.services.notifications.retirePreviousKey(await callerOf(ctx, String(args.accountId))),
  }),
  replayNotifications: t.field({
    type: ReplayRef,
    description: `Queues the events of [from, to) that were sent to the calling client's receiver again, in their original order and with their original webhook-ids, to the registration as it is now; with onlyFailed, only those whose last delivery was discarded, gone or dropped. Pending ones are left alone. Each is a new delivery whose replayOf names the one it replays. More than WEBHOOK_REPLAY_MAX (default 10000) notifications in the range, whatever their state: INVALID_ARGUMENT, nothing queued. One replay of a registration at a time: CONFLICT while another runs. NOT_FOUND without a registration.`,
    authScopes: notifications,
    args: {
      accountId: t.arg.id({ required: true }),
      from: t.arg({ type: 'DateTime', required: true }),
      to: t.arg({ type: 'DateTime', required: true }),
      onlyFailed: t.arg.boolean(),
    },
    resolve: async (_root, args, ctx) =>
      ctx.services.notifications.replay(
        await callerOf(ctx, String(args.accountId)),
        {
          from: args.from.toISOString(),
          to: args.to.toISOString(),
          onlyFailed: args.onlyFailed,
        },
        ctx.signal,
      ),
  }),
  unregisterNotifications: t.boolean({
    description:
      "Removes the calling client's registration (what is still queued for it is dropped); false when there was none.",
    authScopes: notifications,
    args: { accountId: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) =>
      ctx.services.notifications.unregister(await callerOf(ctx, String(args.accountId))),
  }),
  sendTestNotification: t.field({
    type: DeliveryRef,
    description: `Sends a notification with eventType ${TEST_EVENT_TYPE} and eventData {} to the calling client's receiver, like any other (signed, retried, logged). ${TEST_EVENT_TYPE} is not an EventType: receivers should answer 2xx to types they do not know.`,
    authScopes: notifications,
    args: { accountId: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) =>
      ctx.services.notifications.sendTest(await callerOf(ctx, String(args.accountId))),
  }),
  redeliverNotification: t.field({
    type: DeliveryRef,
    description:
      'Queues a discarded (or dropped, or gone) delivery again, to the registration as it is now, for a full round of attempts; a pending or delivered one is a CONFLICT.',
    authScopes: notifications,
    args: { deliveryId: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) =>
      ctx.services.notifications.redeliver(await callerOf(ctx), String(args.deliveryId)),
  }),
}));
