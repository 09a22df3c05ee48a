/** The event types of the contract, by their wire names. */
export const eventTypes = [
  'activity_created',
  'activity_updated',
  'activity_finished',
  'motion_started',
  'motion_ended',
  'account_deleted',
] as const;

export type EventType = (typeof eventTypes)[number];

export const isEventType = (value: unknown): value is EventType =>
  typeof value === 'string' && (eventTypes as readonly string[]).includes(value);

export interface NewEvent {
  accountId: string;
  accessoryId: string | null;
  eventType: EventType;
  eventData: Record<string, unknown>;
}

/** A committed event as subscribers and receivers see it. */
export interface StoredEvent extends NewEvent {
  eventId: string;
  occurredAt: Date;
}
