import type { RecordedEventType, StoredEvent } from '../types.ts';

/** The stream a subscription follows: an account's events, or one accessory's. */
export type Stream =
  | { kind: 'account'; accountId: string }
  | { kind: 'accessory'; accountId: string; accessoryId: string };

/** A committed event as a subscriber receives it (and as the event log replays it). */
export type LiveEvent = Omit<StoredEvent, 'previousAccountEventId' | 'previousAccessoryEventId'>;

/** A committed event as it travels between instances (JSON-safe). */
export interface WireEvent {
  eventId: string;
  accountId: string;
  accessoryId: string | null;
  eventType: string;
  eventData: Record<string, unknown>;
  /** ISO 8601. */
  occurredAt: string;
  /**
   * The id of the previous event of this topic's stream (the account's or the accessory's),
   * null when there was none, absent when the publisher does not know it. Subscribers use it to
   * notice a message that overtook another, and fetch what they missed from the event log.
   */
  prev?: string | null;
}

/** What is published on one topic: one transaction's events of that stream, in id order. */
export interface TopicMessage {
  events: WireEvent[];
}

/** Compares event ids (decimal strings of a bigserial, without leading zeros). */
export function compareIds(a: string, b: string): number {
  return a.length !== b.length ? a.length - b.length : a < b ? -1 : a > b ? 1 : 0;
}

const TOPIC_PREFIX = 'clipgate:events:';

const accountTopic = (accountId: string) => `${TOPIC_PREFIX}account:${accountId}`;
const accessoryTopic = (accessoryId: string) => `${TOPIC_PREFIX}accessory:${accessoryId}`;

/** The pub/sub topic (a Redis channel) of a stream. */
export const streamTopic = (stream: Stream): string =>
  stream.kind === 'account' ? accountTopic(stream.accountId) : accessoryTopic(stream.accessoryId);

/**
 * The messages that publish committed events: per topic (the account's, the accessory's), the
 * events of that stream in id order, each with its predecessor in that stream.
 */
export function topicMessages(events: readonly StoredEvent[]): Map<string, TopicMessage> {
  const byTopic = new Map<string, TopicMessage>();
  const add = (topic: string, event: WireEvent) => {
    const message = byTopic.get(topic);
    if (message) message.events.push(event);
    else byTopic.set(topic, { events: [event] });
  };
  for (const e of [...events].sort((a, b) => compareIds(a.eventId, b.eventId))) {
    const wire: WireEvent = {
      eventId: e.eventId,
      accountId: e.accountId,
      accessoryId: e.accessoryId,
      eventType: e.eventType,
      eventData: e.eventData,
      occurredAt: e.occurredAt.toISOString(),
    };
    add(accountTopic(e.accountId), { ...wire, prev: e.previousAccountEventId });
    if (e.accessoryId) {
      add(accessoryTopic(e.accessoryId), { ...wire, prev: e.previousAccessoryEventId });
    }
  }
  return byTopic;
}

/** A wire event as subscribers receive it. */
export const fromWire = (event: WireEvent): LiveEvent => ({
  eventId: event.eventId,
  accountId: event.accountId,
  accessoryId: event.accessoryId,
  eventType: event.eventType as RecordedEventType,
  eventData: event.eventData,
  occurredAt: new Date(event.occurredAt),
});
