import { z } from 'zod';
import { activityDetailSchema, activitySchema } from '../../activities/model.ts';
import { timestamp, uuid } from '../../schemas.ts';
import { attemptErrors } from '../../notifications/delivery/policy.ts';
import { accessoryZonesSchema } from '../../zones/model.ts';
import { deprecatedEventTypes, type RecordedEventType } from '../../events/types.ts';

/**
 * The event catalog: what every event type's `eventData` is, as a zod schema, and what carries
 * it (webhooks, live subscriptions, the event log that pull reads). The JSON Schemas of
 * `GET /api/event-types`, the OpenAPI document's `webhooks` and `/asyncapi.json` are generated
 * from these, and the tests validate every notification and live event they receive against
 * them, so the catalog cannot drift from what is sent. Where the service already had a schema
 * (the activity's, the zones'), the event's is built from it.
 */

const eventId = z
  .string()
  .meta({ pattern: '^[1-9][0-9]*$', description: 'The event id: a decimal integer, as a string' });

const activityEventData = activitySchema
  .omit({ media: true })
  .required({ motionZones: true, objectLocations: true })
  .extend({
    sequence: z.int().min(1).meta({
      description:
        "The activity's changes so far, 1 for its creation: keep the highest per activity and ignore lower ones",
    }),
    occurredAt: timestamp.meta({ description: 'When the change was written' }),
  })
  .meta({
    id: 'ActivityEventData',
    description: 'The activity as the change left it (as read by id, without media)',
  });

const mediaReadyEventData = activityDetailSchema
  .extend({
    mediaExpiresAt: timestamp.meta({ description: 'When the signed media URLs expire' }),
    packaging: z.strictObject({
      status: z.enum(['ready', 'failed', 'unavailable']).meta({
        description:
          'ready: HLS and DASH exist; failed: packaging gave up (error says why); unavailable: the service has no ffmpeg',
      }),
      error: z.string().nullable(),
    }),
  })
  .meta({
    id: 'MediaReadyEventData',
    description:
      'The finished activity with signed media URLs, once its clip is stored and packaged',
  });

const motionEventData = z
  .strictObject({
    accessoryId: uuid,
    motionZones: z.array(z.string()).meta({ description: 'Zone ids: z1..z5, zR' }),
    timestamp: timestamp.meta({ description: 'When the motion started or ended' }),
  })
  .meta({ id: 'MotionEventData' });

const emptyEventData = z.strictObject({}).meta({ id: 'EmptyEventData', description: '`{}`' });

const zonesSavedEventData = accessoryZonesSchema
  .extend({ accessoryId: uuid })
  .meta({ id: 'ZonesSavedEventData', description: "The accessory's zones as saved" });

const receiver = {
  clientId: z.string().meta({ description: 'The OAuth client whose receiver it is' }),
  url: z.string().meta({ description: "The receiver's URL" }),
};

const receiverDisabledEventData = z
  .strictObject({
    ...receiver,
    failingSince: timestamp.meta({ description: 'Since when every attempt failed' }),
    disabledAt: timestamp,
    reason: z.string(),
  })
  .meta({
    id: 'ReceiverDisabledEventData',
    description:
      'A receiver failed every attempt for WEBHOOK_DISABLE_AFTER_HOURS and was disabled: nothing is sent to it until it is registered again or enabled',
  });

const receiverEnabledEventData = z
  .strictObject({
    ...receiver,
    disabledAt: timestamp.meta({ description: 'When it had been disabled' }),
    enabledAt: timestamp,
    cause: z.enum(['enable', 'register']).meta({
      description: 'enable: enableNotifications (POST .../enable); register: registered again',
    }),
  })
  .meta({ id: 'ReceiverEnabledEventData', description: 'A disabled receiver was enabled again' });

const deliveryExhaustedEventData = z
  .strictObject({
    deliveryId: eventId.meta({ description: 'The delivery in the delivery log' }),
    webhookId: z.string().meta({ description: 'The webhook-id its attempts carried' }),
    eventId: eventId.nullable().meta({ description: 'The event notified; null for a test' }),
    eventType: z.string().meta({ description: 'Its eventType (test_notification for a test)' }),
    ...receiver,
    attempts: z.int().min(1).meta({ description: 'Attempts in its last round' }),
    lastStatus: z.int().nullable().meta({ description: "The last answer's HTTP status" }),
    lastError: z.enum(attemptErrors).nullable().meta({
      description: 'Why the last attempt had no status',
    }),
    discardedAt: timestamp,
  })
  .meta({
    id: 'DeliveryExhaustedEventData',
    description:
      'A notification failed its last attempt and was discarded (redeliverNotification sends it again). None is recorded for a delivery_exhausted notification.',
  });

/** Where an event type goes: to receivers of each destination kind, live, pull. */
export const eventChannels = ['webhook', 'mqtt', 'amqp', 'nats', 'live', 'pull'] as const;
export type EventChannel = (typeof eventChannels)[number];

export interface CatalogEntry {
  eventType: RecordedEventType | 'test_notification';
  description: string;
  /** Its `eventData`. */
  data: z.ZodType;
  /** Registrations may list it. */
  registrable: boolean;
  /** An event of an accessory (in its accessoryEvents stream too); false: of the account. */
  ofAccessory: boolean;
  channels: readonly EventChannel[];
  /** No longer recorded: what replaced it. */
  deprecated?: string;
}

/** Every destination kind: what a registration gets. */
const notified: readonly EventChannel[] = ['webhook', 'mqtt', 'amqp', 'nats'];
const everywhere: readonly EventChannel[] = [...notified, 'live', 'pull'];
const logged: readonly EventChannel[] = ['live', 'pull'];

/** Every event type, with the schema of its `eventData` and where it goes. */
export const catalog: readonly CatalogEntry[] = [
  {
    eventType: 'activity_created',
    description: 'An activity was created',
    data: activityEventData,
    registrable: true,
    ofAccessory: true,
    channels: everywhere,
  },
  {
    eventType: 'activity_updated',
    description: 'An activity in progress changed',
    data: activityEventData,
    registrable: true,
    ofAccessory: true,
    channels: everywhere,
  },
  {
    eventType: 'activity_finished',
    description: 'An activity ended (its endTime was set, or a newer activity started)',
    data: activityEventData,
    registrable: true,
    ofAccessory: true,
    channels: everywhere,
  },
  {
    eventType: 'activity_media_ready',
    description: "A finished activity's clip is stored and packaged (once per activity)",
    data: mediaReadyEventData,
    registrable: true,
    ofAccessory: true,
    channels: everywhere,
  },
  {
    eventType: 'motion_started',
    description: 'The camera saw motion start (registering it needs notifications_motion)',
    data: motionEventData,
    registrable: true,
    ofAccessory: true,
    channels: everywhere,
  },
  {
    eventType: 'motion_ended',
    description: 'The camera saw motion end (registering it needs notifications_motion)',
    data: motionEventData,
    registrable: true,
    ofAccessory: true,
    channels: everywhere,
  },
  {
    eventType: 'account_deleted',
    description:
      'The account was deleted: the last event of the account; every receiver gets it, listed or not',
    data: emptyEventData,
    registrable: true,
    ofAccessory: false,
    channels: everywhere,
  },
  {
    eventType: 'receiver_disabled',
    description: 'A receiver of the account was disabled for failing',
    data: receiverDisabledEventData,
    registrable: true,
    ofAccessory: false,
    channels: everywhere,
  },
  {
    eventType: 'receiver_enabled',
    description: 'A disabled receiver of the account was enabled again',
    data: receiverEnabledEventData,
    registrable: true,
    ofAccessory: false,
    channels: everywhere,
  },
  {
    eventType: 'delivery_exhausted',
    description: 'A notification to a receiver of the account was discarded after its last attempt',
    data: deliveryExhaustedEventData,
    registrable: true,
    ofAccessory: false,
    channels: everywhere,
  },
  {
    eventType: 'zones_saved',
    description: "An accessory's zones were saved (not sent to receivers)",
    data: zonesSavedEventData,
    registrable: false,
    ofAccessory: true,
    channels: logged,
  },
  {
    eventType: 'registration_disabled',
    description: `What receiver_disabled was called before; no longer recorded, only events of an older release`,
    data: receiverDisabledEventData,
    registrable: false,
    ofAccessory: false,
    channels: logged,
    deprecated: deprecatedEventTypes.registration_disabled,
  },
  {
    eventType: 'test_notification',
    description: 'Sent by sendTestNotification; no event, not registrable',
    data: emptyEventData,
    registrable: false,
    ofAccessory: false,
    channels: notified,
  },
];

/** `activity_created` → `ActivityCreated`: the names of an event type's schemas. */
export const pascal = (eventType: string) =>
  eventType.replace(/(^|_)([a-z])/g, (_, _sep: string, c: string) => c.toUpperCase());

const byType = new Map(catalog.map((entry) => [entry.eventType, entry]));

/** The catalog entry of an event type; undefined for an unknown one. */
export const catalogEntry = (eventType: string): CatalogEntry | undefined =>
  byType.get(eventType as CatalogEntry['eventType']);

/** The whole webhook body of one event type, as a receiver gets it. */
function notificationSchema(entry: CatalogEntry): z.ZodType {
  return z
    .strictObject({
      accountId: uuid,
      eventType: z.literal(entry.eventType),
      eventData: entry.data,
      userData: z
        .record(z.string(), z.unknown())
        .optional()
        .meta({ description: "The registration's userData; left out when it has none" }),
    })
    .meta({ id: `${pascal(entry.eventType)}Notification`, description: entry.description });
}

/** An event of one type as live subscriptions stream it and pull answers it. */
function eventSchema(entry: CatalogEntry): z.ZodObject {
  return z
    .strictObject({
      eventId: eventId.meta({
        description:
          'Increases in commit order per account; the webhook-id of its notifications; pass it as `after` to resume',
      }),
      accountId: uuid,
      accessoryId: uuid.nullable().meta({ description: 'null for an event of the account' }),
      eventType: z.literal(entry.eventType),
      eventData: entry.data,
      occurredAt: timestamp.meta({ description: 'When it was recorded' }),
    })
    .meta({ id: `${pascal(entry.eventType)}Event`, description: entry.description });
}

/** The webhook body schema of each type sent to receivers, by event type. */
export const notificationSchemas: ReadonlyMap<string, z.ZodType> = new Map(
  catalog
    .filter((e) => e.channels.includes('webhook'))
    .map((e) => [e.eventType, notificationSchema(e)]),
);

/** The event schema of each type in the event log, by event type. */
export const eventSchemas: ReadonlyMap<string, z.ZodObject> = new Map(
  catalog.filter((e) => e.channels.includes('live')).map((e) => [e.eventType, eventSchema(e)]),
);

/** Any event of the log, told apart by `eventType` (pull's answer). */
export const anyEventSchema: z.ZodType = z
  .discriminatedUnion('eventType', [...eventSchemas.values()] as [z.ZodObject, ...z.ZodObject[]])
  .meta({ id: 'Event', description: 'An event of the log; eventData as its eventType says' });

/** A self-contained JSON Schema (2020-12) of a zod schema, its named parts in `$defs`. */
export const jsonSchema = (schema: z.ZodType): Record<string, unknown> =>
  z.toJSONSchema(schema, { target: 'draft-2020-12' }) as Record<string, unknown>;

/** `GET /api/event-types`: every event type with the JSON Schemas of what carries it. */
export function catalogJson() {
  return catalog.map((entry) => {
    const notification = notificationSchemas.get(entry.eventType);
    const event = eventSchemas.get(entry.eventType);
    return {
      eventType: entry.eventType,
      description: entry.description,
      registrable: entry.registrable,
      channels: [...entry.channels],
      deprecated: entry.deprecated ? `no longer recorded: use ${entry.deprecated}` : null,
      schema: jsonSchema(entry.data),
      webhookSchema: notification ? jsonSchema(notification) : null,
      eventSchema: event ? jsonSchema(event) : null,
    };
  });
}
