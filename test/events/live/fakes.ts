import { AppError } from '../../../src/errors.ts';
import type { LiveWait, RepairCause } from '../../../src/events/live/bounds.ts';
import type {
  EventLogReader,
  LiveBus,
  LiveObserver,
  LiveSink,
  LogRead,
} from '../../../src/events/live/ports.ts';
import {
  compareIds,
  type LiveEvent,
  type Stream,
  type TopicMessage,
} from '../../../src/events/live/stream.ts';
import type { LiveSubscription, StreamEnd } from '../../../src/events/live/subscription.ts';
import type { RecordedEventType, StoredEvent } from '../../../src/events/types.ts';

export const ACCOUNT = 'account-1';
export const CAMERA = 'camera-1';
export const accountStream: Stream = { kind: 'account', accountId: ACCOUNT };
export const cameraStream: Stream = { kind: 'accessory', accountId: ACCOUNT, accessoryId: CAMERA };

/**
 * An event log in memory: `commit` appends an event and links it to its streams' previous ones,
 * as recordEvents does. Reads wait while `hold()` is in force (of events, or of the streams' last
 * events), and can be made to fail.
 */
export class FakeLog implements EventLogReader {
  readonly events: StoredEvent[] = [];
  /** Every read, with its range. */
  readonly reads: LogRead[] = [];
  failReads = false;
  /** Reads of streams' last events fail (`read` goes on). */
  failHeads = false;
  readonly #held: { events?: Promise<void>; heads?: Promise<void> } = {};

  commit(eventType: RecordedEventType = 'motion_started', accessoryId = CAMERA): StoredEvent {
    const eventId = String(this.events.length + 1);
    const last = (match: (e: StoredEvent) => boolean) =>
      this.events.findLast(match)?.eventId ?? null;
    const event: StoredEvent = {
      eventId,
      accountId: ACCOUNT,
      accessoryId,
      eventType,
      eventData: { n: eventId },
      occurredAt: new Date(Date.UTC(2025, 0, 1, 0, 0, Number(eventId))),
      previousAccountEventId: last(() => true),
      previousAccessoryEventId: last((e) => e.accessoryId === accessoryId),
    };
    this.events.push(event);
    return event;
  }

  /** Holds every read of `what` until the returned function is called. */
  hold(what: 'events' | 'heads' = 'events'): () => void {
    let release!: () => void;
    this.#held[what] = new Promise((resolve) => (release = resolve));
    return () => {
      this.#held[what] = undefined;
      release();
    };
  }

  async read(stream: Stream, range: LogRead): Promise<LiveEvent[]> {
    this.reads.push(range);
    await this.#held.events;
    if (this.failReads) throw new Error('the log is unreachable');
    return this.#of(stream)
      .filter(
        (e) =>
          compareIds(e.eventId, range.after) > 0 &&
          (range.before === undefined || compareIds(e.eventId, range.before) < 0) &&
          (!range.eventTypes || range.eventTypes.has(e.eventType)),
      )
      .slice(0, range.limit)
      .map(({ previousAccountEventId: _a, previousAccessoryEventId: _b, ...event }) => event);
  }

  async heads(streams: readonly Stream[]): Promise<string[]> {
    await this.#held.heads;
    if (this.failHeads) throw new Error('the log is unreachable');
    return streams.map((stream) => this.#of(stream).at(-1)?.eventId ?? '0');
  }

  async holds(accountId: string, eventId: string): Promise<boolean> {
    return this.events.some((e) => e.accountId === accountId && e.eventId === eventId);
  }

  #of(stream: Stream): StoredEvent[] {
    return this.events.filter((e) =>
      stream.kind === 'account'
        ? e.accountId === stream.accountId
        : e.accessoryId === stream.accessoryId,
    );
  }
}

/**
 * A pub/sub in memory that delivers at once, as JSON, unless paused: then messages wait in
 * `held` for the test to deliver them (`deliver`), in any order, or never.
 */
export class FakeBus implements LiveBus {
  readonly listeners = new Map<string, Set<(message: TopicMessage) => void>>();
  readonly held: { topic: string; message: TopicMessage }[] = [];
  paused = false;
  /** False: a channel is never confirmed (its `ready` never resolves), as a bus that is away. */
  confirming = true;
  readonly #reconnect = new Set<() => void>();

  publish(topic: string, message: TopicMessage): void {
    if (this.paused) this.held.push({ topic, message });
    else this.deliver(topic, message);
  }

  deliver(topic: string, message: TopicMessage): void {
    const copy = JSON.parse(JSON.stringify(message)) as TopicMessage;
    for (const listener of this.listeners.get(topic) ?? []) listener(copy);
  }

  listen(topic: string, listener: (message: TopicMessage) => void) {
    const set = this.listeners.get(topic) ?? new Set();
    this.listeners.set(topic, set.add(listener));
    return {
      ready: this.confirming ? Promise.resolve() : new Promise<void>(() => {}),
      stop: () => {
        set.delete(listener);
        if (set.size === 0) this.listeners.delete(topic);
      },
    };
  }

  onReconnect(callback: () => void): () => void {
    this.#reconnect.add(callback);
    return () => this.#reconnect.delete(callback);
  }

  /** The bus came back after an outage. */
  reconnect(): void {
    for (const callback of this.#reconnect) callback();
  }
}

/** Counts what the core reports. */
export function countingObserver() {
  const counts = {
    subscriptions: 0,
    delivered: 0,
    slowConsumers: 0,
    failures: [] as string[],
    repaired: {} as Partial<Record<RepairCause, number>>,
    timeouts: [] as LiveWait[],
    checkFailures: 0,
  };
  const observer: LiveObserver = {
    subscriptions: (change) => void (counts.subscriptions += change),
    delivered: () => void counts.delivered++,
    slowConsumer: () => void counts.slowConsumers++,
    failed: (_err, message) => void counts.failures.push(message),
    repaired: (count, cause) =>
      void (counts.repaired[cause] = (counts.repaired[cause] ?? 0) + count),
    timedOut: (wait) => void counts.timeouts.push(wait),
    checkFailed: () => void counts.checkFailures++,
  };
  return { counts, observer };
}

/** A sink like a WebSocket's (cutting closes the connection) or an SSE response's. */
export function fakeSink(kind: 'ws' | 'sse', congested = () => false) {
  const cuts: string[] = [];
  const sink: LiveSink = {
    congested,
    cut: (message) => {
      cuts.push(message);
      return kind === 'sse' ? new AppError('RATE_LIMITED', message) : undefined;
    },
  };
  return { sink, cuts };
}

/** Lets pending promise chains (log reads, drains) run; a few turns of the event loop. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 10; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** Consumes a subscription in the background, as a transport does. */
export function consume(sub: LiveSubscription) {
  const items: (LiveEvent | StreamEnd)[] = [];
  let done = false;
  void (async () => {
    for (let r = await sub.next(); !r.done; r = await sub.next()) items.push(r.value);
    done = true;
  })();
  return {
    items,
    ids: () => items.map((item) => ('eventId' in item ? item.eventId : 'end')),
    done: () => done,
  };
}
