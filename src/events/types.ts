/** The event types of the contract, by their wire names. */
export const eventTypes = [
  'activity_created',
  'activity_updated',
  'activity_finished',
  'activity_media_ready',
  'motion_started',
  'motion_ended',
  'account_deleted',
] as const;

export type EventType = (typeof eventTypes)[number];

export const isEventType = (value: unknown): value is EventType =>
  typeof value === 'string' && (eventTypes as readonly string[]).includes(value);

/**
 * Event types that are recorded in the event log and streamed to subscribers, but are not
 * webhook event types: they are never registrable (isEventType is false for them) and so never
 * delivered to a receiver. `zones_saved`: an accessory's zones were saved (src/zones).
 * `registration_disabled`: a client's receiver was disabled for failing (src/notifications).
 */
export const internalEventTypes = ['zones_saved', 'registration_disabled'] as const;

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
