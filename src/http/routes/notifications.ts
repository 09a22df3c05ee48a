import { z } from 'zod';
import { MAX_FILTER_LENGTH } from '../../filter/index.ts';
import { notFound } from '../../errors.ts';
import { eventTypes } from '../../events/types.ts';
import { timestamp, uuid } from '../../schemas.ts';
import { route } from '../rest.ts';
import { callerOf, motionAllowed } from '../caller.ts';
import {
  AUTH_KEY_MAX,
  BROKER_CREDENTIAL_MAX,
  EXCHANGE_MAX,
  MAX_PER_SECOND_MAX,
  OVERLAP_SECONDS_DEFAULT,
  OVERLAP_SECONDS_MAX,
  signingModes,
  USER_DATA_MAX_BYTES,
} from '../../notifications/registration.ts';
import { AUTH_KEY_MIN } from '../../notifications/signing.ts';
import { registrationJson } from '../../notifications/views.ts';
import { destinationKinds, TOPIC_MAX } from '../../notifications/destinations/destination.ts';

// The fields are checked by checkRegistration (shared with GraphQL), so that every problem is a
// 400 naming the field itself; the schema here catches unknown fields and describes the body.
const registrationBody = z
  .object({
    url: z.unknown().meta({
      type: 'string',
      format: 'uri',
      maxLength: 2048,
      description:
        "Absolute https URL (http only with WEBHOOK_ALLOW_HTTP), without credentials; a broker kind's: mqtts, amqps or tls (nats) (mqtt, amqp, nats only with WEBHOOK_ALLOW_HTTP)",
    }),
    authKey: z.unknown().meta({
      type: 'string',
      minLength: AUTH_KEY_MIN,
      maxLength: AUTH_KEY_MAX,
      description: 'The HMAC key of the signatures; never returned',
    }),
    eventTypes: z.unknown().meta({
      type: 'array',
      minItems: 1,
      uniqueItems: true,
      items: { type: 'string', enum: [...eventTypes] },
      description: 'motion_* require notifications_motion; account_deleted is always sent',
    }),
    userData: z
      .unknown()
      .optional()
      .meta({
        type: ['object', 'null'],
        additionalProperties: true,
        description: `Echoed in every notification; a JSON object of at most ${USER_DATA_MAX_BYTES} bytes; null or left out: none`,
      }),
    filter: z
      .unknown()
      .optional()
      .meta({
        type: ['string', 'null'],
        maxLength: MAX_FILTER_LENGTH,
        description:
          'Only events matching it are sent: the filter language of listing plus accessoryId, evaluated against the activity of activity_* events and the accessoryId and motionZones of motion_* events; account_deleted always passes. null or left out: every event of the types',
      }),
    maxPerSecond: z
      .unknown()
      .optional()
      .meta({
        type: ['integer', 'null'],
        minimum: 1,
        maximum: MAX_PER_SECOND_MAX,
        description:
          'At most this many notifications per second start towards the receiver; the rest wait (none is dropped for it); null or left out: no limit',
      }),
    signing: z
      .unknown()
      .optional()
      .meta({
        type: 'string',
        enum: [...signingModes],
        description:
          'How webhook-signature is signed: hmac-sha256 (v1, keyed with authKey; the default) or ed25519 (v1a, with a key pair the service generates; the answer publishes publicKey). authKey keys X-Vendor-Verify either way',
      }),
    kind: z
      .unknown()
      .optional()
      .meta({
        type: 'string',
        enum: [...destinationKinds],
        description:
          'Where notifications go: webhook (the default, a POST to url), or the broker at url: mqtt, amqp or nats',
      }),
    topic: z.unknown().optional().meta({
      type: 'string',
      maxLength: TOPIC_MAX,
      description:
        'Broker kinds: the MQTT topic, AMQP routing key or NATS subject, with the placeholders {accountId}, {accessoryId} (- for events of no accessory) and {eventType}',
    }),
    exchange: z.unknown().optional().meta({
      type: 'string',
      maxLength: EXCHANGE_MAX,
      description: "amqp: the exchange published to; left out: '' (the default exchange)",
    }),
    username: z.unknown().optional().meta({
      type: 'string',
      maxLength: BROKER_CREDENTIAL_MAX,
      description: "Broker kinds: the broker's user name, with password; never returned",
    }),
    password: z.unknown().optional().meta({
      type: 'string',
      maxLength: BROKER_CREDENTIAL_MAX,
      description: "Broker kinds: the broker's password, with username; never returned",
    }),
  })
  .strict()
  .meta({ id: 'NotificationRegistrationInput' });

const registrationSchema = z
  .strictObject({
    accountId: uuid,
    clientId: z.string().meta({ description: 'The OAuth client the registration belongs to' }),
    url: z.string(),
    eventTypes: z.array(z.enum(eventTypes)),
    userData: z.record(z.string(), z.unknown()).nullable(),
    filter: z.string().nullable().meta({ description: 'The filter as registered; null: none' }),
    maxPerSecond: z.number().int().nullable(),
    state: z.enum(['active', 'disabled']).meta({
      description:
        'disabled: the receiver failed every attempt for WEBHOOK_DISABLE_AFTER_HOURS; nothing is sent until it is registered again or enabled',
    }),
    failingSince: timestamp.nullable().meta({
      description: 'Since when every attempt failed; null: the last attempt succeeded, or none yet',
    }),
    disabledAt: timestamp.nullable(),
    disabledReason: z.string().nullable(),
    previousKeyUntil: timestamp.nullable().meta({
      description:
        'Until when the previous key signs too (a second v1 signature), after a rotation with an overlap; null: only the current key signs',
    }),
    signing: z.enum(signingModes),
    publicKey: z.string().nullable().meta({
      description:
        'ed25519: the public key that verifies the v1a signatures, whpk_ + base64 of its raw 32 bytes (a rotation replaces it); null for hmac-sha256',
    }),
    kind: z.enum(destinationKinds).meta({
      description: 'webhook: POSTed to url; mqtt, amqp, nats: published to the broker at url',
    }),
    topic: z.string().nullable().meta({
      description: "A broker kind's topic, routing key or subject template; null for a webhook",
    }),
    exchange: z
      .string()
      .nullable()
      .meta({ description: 'amqp: the exchange; null for the other kinds' }),
    hasCredentials: z.boolean().meta({
      description: 'Whether broker credentials are set (they are never returned)',
    }),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({
    id: 'NotificationRegistration',
    description: "The calling client's receiver on the account; the authKey is never returned",
  });

const path = '/api/accounts/{accountId}/notifications';
const scopes = ['notifications', 'notifications_motion'] as const;

export const notificationRoutes = [
  route({
    method: 'PUT',
    path,
    operationId: 'registerNotifications',
    summary: "Registers (or overwrites) the calling client's receiver of server notifications",
    scopes: [...scopes],
    body: registrationBody,
    response: registrationSchema,
    async handle(ctx, { params, body }) {
      const caller = await callerOf(ctx, params.accountId!);
      const registration = await ctx.services.notifications.register(
        caller,
        body,
        motionAllowed(ctx),
      );
      return { body: registrationJson(registration) };
    },
  }),
  route({
    method: 'GET',
    path,
    operationId: 'getNotificationRegistration',
    summary: "The calling client's registration on the account",
    scopes: [...scopes],
    response: registrationSchema,
    async handle(ctx, { params }) {
      const registration = await ctx.services.notifications.get(
        await callerOf(ctx, params.accountId!),
      );
      if (!registration) throw notFound('registration');
      return { body: registrationJson(registration) };
    },
  }),
  route({
    method: 'POST',
    path: `${path}/enable`,
    operationId: 'enableNotifications',
    summary: "Enables the calling client's disabled registration again",
    scopes: [...scopes],
    body: z
      .strictObject({})
      .meta({ id: 'EnableNotificationsInput', description: 'Nothing: `{}` or an empty body' }),
    response: registrationSchema,
    async handle(ctx, { params }) {
      const caller = await callerOf(ctx, params.accountId!);
      return { body: registrationJson(await ctx.services.notifications.enable(caller)) };
    },
  }),
  route({
    method: 'POST',
    path: `${path}/rotate`,
    operationId: 'rotateNotificationKey',
    summary:
      "Rotates the key of the calling client's registration; the previous key signs too for overlapSeconds",
    scopes: [...scopes],
    body: z
      .strictObject({
        authKey: z.unknown().optional().meta({
          type: 'string',
          minLength: AUTH_KEY_MIN,
          maxLength: AUTH_KEY_MAX,
          description: 'The new key; left out: one is generated and answered in this response only',
        }),
        overlapSeconds: z
          .unknown()
          .optional()
          .meta({
            type: 'integer',
            minimum: 0,
            maximum: OVERLAP_SECONDS_MAX,
            description: `How long the previous key signs too (default ${OVERLAP_SECONDS_DEFAULT}); 0: it is retired at once. A rotation during an overlap retires the key before the current one`,
          }),
      })
      .meta({ id: 'RotateNotificationKeyInput' }),
    response: registrationSchema
      .extend({
        authKey: z.string().optional().meta({
          description: 'The generated key, when none was given: shown here only, never again',
        }),
      })
      .meta({ id: 'NotificationKeyRotation' }),
    async handle(ctx, { params, body }) {
      const caller = await callerOf(ctx, params.accountId!);
      const { registration, generatedAuthKey } = await ctx.services.notifications.rotate(
        caller,
        body,
      );
      return {
        body: {
          ...registrationJson(registration),
          ...(generatedAuthKey !== null && { authKey: generatedAuthKey }),
        },
      };
    },
  }),
  route({
    method: 'POST',
    path: `${path}/retire-previous-key`,
    operationId: 'retirePreviousNotificationKey',
    summary:
      'Ends the overlap of the last rotation now: only the current key signs from the next attempt on',
    scopes: [...scopes],
    body: z.strictObject({}).meta({
      id: 'RetirePreviousNotificationKeyInput',
      description: 'Nothing: `{}` or an empty body',
    }),
    response: registrationSchema,
    async handle(ctx, { params }) {
      const caller = await callerOf(ctx, params.accountId!);
      return { body: registrationJson(await ctx.services.notifications.retirePreviousKey(caller)) };
    },
  }),
  route({
    method: 'POST',
    path: `${path}/replay`,
    operationId: 'replayNotifications',
    summary:
      "Queues the events of a time range sent to the calling client's receiver again, in order, with their original webhook-ids",
    scopes: [...scopes],
    body: z
      .strictObject({
        from: z.unknown().meta({ type: 'string', format: 'date-time', description: 'Inclusive' }),
        to: z.unknown().meta({
          type: 'string',
          format: 'date-time',
          description: 'Exclusive; later than from',
        }),
        onlyFailed: z.unknown().optional().meta({
          type: 'boolean',
          description:
            'Only the events whose last delivery was discarded, gone or dropped; default false (every one not pending)',
        }),
      })
      .meta({ id: 'ReplayNotificationsInput' }),
    response: z
      .strictObject({
        queued: z.number().int().meta({ description: 'How many notifications were queued again' }),
        from: timestamp,
        to: timestamp,
        onlyFailed: z.boolean(),
      })
      .meta({
        id: 'NotificationReplay',
        description:
          'Each replay is a new delivery in the delivery log whose replayOf names the delivery it replays. More than WEBHOOK_REPLAY_MAX (default 10000) notifications in the range, whatever their state: 400 with details.max, nothing queued. Another replay of the registration still running: 409',
      }),
    async handle(ctx, { params, body, signal }) {
      const caller = await callerOf(ctx, params.accountId!);
      const { queued, from, to, onlyFailed } = await ctx.services.notifications.replay(
        caller,
        body,
        signal,
      );
      return {
        body: { queued, from: from.toISOString(), to: to.toISOString(), onlyFailed },
      };
    },
  }),
  route({
    method: 'DELETE',
    path,
    operationId: 'unregisterNotifications',
    summary: "Removes the calling client's registration; what is still queued for it is dropped",
    scopes: [...scopes],
    async handle(ctx, { params }) {
      const caller = await callerOf(ctx, params.accountId!);
      if (!(await ctx.services.notifications.unregister(caller))) {
        throw notFound('registration');
      }
      return { status: 204 };
    },
  }),
];
