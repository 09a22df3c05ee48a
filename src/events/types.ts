/**
 * The event types a registration may list, by their wire names: the contract's, and the
 * operational events of the account's receivers (`operationalEventTypes`).
 */
export const eventTypes = [
  'activity_created',
  'activity_updated',
  'activity_finished',
  'activity_media_ready',
  'motion_started',
  'motion_ended',
  'account_deleted',
  'receiver_disabled',
  'receiver_enabled',
  'delivery_exhausted',
] as const;

export type EventType = (typeof eventTypes)[number];

export const isEventType = (value: unknown): value is EventType =>
  typeof value === 'string' && (eventTypes as readonly string[]).includes(value);

/**
 * Operational events: what happened to the account's webhook receivers, recorded through the
 * outbox in the transaction of the change (src/notifications). `receiver_disabled`: a receiver
 * failed every attempt too long; `receiver_enabled`: a disabled one was enabled or registered
 * again; `delivery_exhausted`: a notification was discarded after its last attempt (none is
 * recorded for a `delivery_exhausted` notification: that would cascade).
 */
export const operationalEventTypes = [
  'receiver_disabled',
  'receiver_enabled',
  'delivery_exhausted',
] as const satisfies readonly EventType[];

/**
 * Event types that are recorded in the event log and streamed to subscribers, but are not
 * webhook event types: they are never registrable (isEventType is false for them) and so never
 * delivered to a receiver. `zones_saved`: an accessory's zones were saved (src/zones).
 * `registration_disabled`: what `receiver_disabled` was called before; no longer recorded, kept
 * so that subscriptions naming it stay valid and events of an older release still stream
 * (docs/decisions/0061-receiver-disabled-name.md).
 */
export const internalEventTypes = ['zones_saved', 'registration_disabled'] as const;

/** Event types no longer recorded, kept for older clients; each with what replaced it. */
export const deprecatedEventTypes: Partial<Record<InternalEventType, EventType>> = {
  registration_disabled: 'receiver_disabled',
};

export type InternalEventType = (typeof internalEventTypes)[number];

/** Every type an event in the log can have: the webhook types and the internal ones. */
export type RecordedEventType = EventType | InternalEventType;

export const recordedEventTypes: readonly RecordedEventType[] = [
  ...eventTypes,
  ...internalEventTypes,
];

export interface NewEvent {
  accountId: string;
  accessoryId: string | null;
  eventType: RecordedEventType;
  eventData: Record<string, unknown>;
}

/** A committed event as subscribers and receivers see it. */
export interface StoredEvent extends NewEvent {
  eventId: string;
  occurredAt: Date;
  /**
   * The id of the account's previous event (null: none), and of the accessory's; set by
   * recordEvents under the account's event lock (src/events/outbox.ts). Live subscribers use
   * them to restore the commit order of events that reach them out of order.
   */
  previousAccountEventId?: string | null;
  previousAccessoryEventId?: string | null;
}
