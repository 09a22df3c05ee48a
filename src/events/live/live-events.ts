import { AppError, invalidArgument } from '../../errors.ts';
import { isBigintId } from '../../ids.ts';
import type { StoredEvent } from '../types.ts';
import { TIMED_OUT, within } from '../../deadline.ts';
import { defaultBounds, LogReadTimeout, type LiveBounds, type LiveWait } from './bounds.ts';
import type { EventLogReader, LiveBus, LiveObserver, LiveSink } from './ports.ts';
import { streamTopic, topicMessages, type LiveEvent, type Stream } from './stream.ts';
import { Subscriber, type LiveSubscription } from './subscription.ts';
import { Topic } from './topic.ts';

export interface LiveOptions {
  bus: LiveBus;
  log: EventLogReader;
  observer: LiveObserver;
  /** Events one subscriber may have waiting before it is cut. */
  bufferEvents: number;
  /** How long the event log keeps events; `after` older than that is refused. */
  retentionHours: number;
  /** Events per read of the log (default 500). */
  pageSize?: number;
  /** The bounds on every wait (default `defaultBounds`; `checkMs` is LIVE_CHECK_MS). */
  bounds?: Partial<LiveBounds>;
}

export interface SubscribeOptions {
  stream: Stream;
  after?: string;
  eventTypes?: readonly string[];
  /**
   * A filter on the events of those types (src/events/filter.ts): called with every event of
   * the stream, in id order, whatever its type; only those it accepts are streamed.
   */
  accepts?: (event: LiveEvent) => boolean;
  /** The connection it streams over (back-pressure, cutting a slow consumer). */
  sink: LiveSink;
  /** Called once when the subscription ends, however it ends. */
  onEnd?: () => void;
}

/** Streams compared with the log in one statement of a check. */
const CHECK_SLICE = 1000;

/**
 * Live events, whatever carries them (WebSocket and SSE adapters are in src/graphql): committed
 * events go out on the bus (`publish`), and each instance streams them to its subscribers in id
 * order per stream, without gap or repeat, resuming from the log with `after`.
 *
 * A `Topic` per stream with local subscribers restores the chain order and repairs what the bus
 * lost from the log; a `Subscriber` per subscription replays the log after `after` and holds a
 * bounded queue. Both depend only on the bus and the event-log reader given here. Every
 * `bounds.checkMs` the topics' last events are compared with the log (`check`), so that an event
 * the bus never carried reaches the subscribers without waiting for the next one.
 */
export class LiveEvents {
  readonly #topics = new Map<string, Topic>();
  readonly #options: LiveOptions & { pageSize: number; bounds: LiveBounds };
  readonly #stopReconnect: () => void;
  #subscriptions = 0;
  #draining = false;
  #closed = false;
  #nextCheck: NodeJS.Timeout | undefined;
  /** The last check failed: the next failure is not reported again. */
  #checkFailing = false;

  constructor(options: LiveOptions) {
    this.#options = {
      ...options,
      pageSize: options.pageSize ?? 500,
      bounds: { ...defaultBounds, ...options.bounds },
    };
    this.#stopReconnect = options.bus.onReconnect(() => {
      for (const topic of this.#topics.values()) topic.resync();
    });
    this.#scheduleCheck();
  }

  /** Subscriptions currently joined to a topic, on this instance. */
  get activeSubscriptions(): number {
    return this.#subscriptions;
  }

  /** Topics this instance listens to. */
  get topicCount(): number {
    return this.#topics.size;
  }

  /** Events waiting in subscriber queues, over all subscribers of this instance. */
  queuedEvents(): number {
    let queued = 0;
    for (const topic of this.#topics.values()) {
      for (const subscriber of topic.subscribers) queued += subscriber.queued;
    }
    return queued;
  }

  /** Publishes committed events; call only after their transaction committed. */
  publish(events: readonly StoredEvent[]): void {
    if (this.#closed || events.length === 0) return;
    for (const [topic, message] of topicMessages(events)) this.#options.bus.publish(topic, message);
  }

  /**
   * Opens a subscription on a stream the caller may read (the caller checks ownership). With
   * `after`, it first replays the logged events after that id.
   */
  async subscribe(options: SubscribeOptions): Promise<LiveSubscription> {
    if (this.#draining) throw new AppError('UNAVAILABLE', 'the server is shutting down');
    const { stream, after } = options;
    if (after !== undefined) await this.#checkAfter(stream, after);
    const topic = this.#topic(stream);
    topic.acquire();
    try {
      await topic.ready;
    } catch {
      topic.release();
      throw new AppError('UNAVAILABLE', 'live events are unavailable, try again');
    }
    if (this.#draining || topic.closed) {
      topic.release();
      throw new AppError(
        'UNAVAILABLE',
        this.#draining ? 'the server is shutting down' : 'live events were interrupted, try again',
      );
    }
    const { log, observer, bufferEvents, pageSize } = this.#options;
    const eventTypes = options.eventTypes && new Set<string>(options.eventTypes);
    const subscriber: Subscriber = new Subscriber({
      stream,
      after,
      eventTypes,
      accepts: options.accepts,
      sink: options.sink,
      bufferEvents,
      readLog: (from) =>
        this.#bounded(log.read(stream, { after: from, eventTypes, limit: pageSize })),
      pageSize,
      observer,
      leave: () => {
        if (!topic.leave(subscriber)) return;
        this.#subscriptions--;
        observer.subscriptions(-1);
        topic.release();
      },
      onEnd: options.onEnd,
    });
    topic.join(subscriber);
    this.#subscriptions++;
    observer.subscriptions(1);
    return subscriber;
  }

  /** Ends every subscription (SSE streams complete) and refuses new ones. */
  drain(): void {
    this.#draining = true;
    for (const topic of [...this.#topics.values()]) {
      for (const subscriber of [...topic.subscribers]) void subscriber.return();
    }
  }

  /**
   * Compares every live topic's last emitted event with its stream's last logged one, a slice of
   * streams per statement; a topic behind its stream reads the rest from the log unless the bus
   * brings it within the grace. Runs every `bounds.checkMs` (after the previous round ended).
   */
  async check(): Promise<void> {
    const topics = [...this.#topics.values()].filter((t) => t.last !== undefined && !t.closed);
    for (let i = 0; i < topics.length && !this.#closed; i += CHECK_SLICE) {
      const slice = topics.slice(i, i + CHECK_SLICE);
      let heads: string[];
      try {
        heads = await this.#bounded(this.#options.log.heads(slice.map((t) => t.stream)), 'check');
      } catch (err) {
        if (!this.#checkFailing) this.#options.observer.checkFailed(err);
        this.#checkFailing = true;
        return;
      }
      slice.forEach((topic, j) => topic.expect(heads[j]!));
    }
    this.#checkFailing = false;
  }

  /** Ends every subscription and stops listening on the bus (which the caller closes). */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#nextCheck);
    this.drain();
    this.#stopReconnect();
    for (const topic of [...this.#topics.values()]) topic.close();
  }

  #scheduleCheck(): void {
    if (this.#closed) return;
    this.#nextCheck = setTimeout(
      () => void this.check().finally(() => this.#scheduleCheck()),
      this.#options.bounds.checkMs,
    );
    this.#nextCheck.unref();
  }

  /**
   * A read of the event log within its bound: past it, it fails (LogReadTimeout), counted as a
   * timeout of `wait`.
   */
  async #bounded<T>(read: Promise<T>, wait: LiveWait = 'log'): Promise<T> {
    const { bounds, observer } = this.#options;
    const result = await within(read, bounds.logReadMs);
    if (result !== TIMED_OUT) return result;
    observer.timedOut(wait);
    throw new LogReadTimeout(bounds.logReadMs);
  }

  async #checkAfter(stream: Stream, after: string): Promise<void> {
    if (!isBigintId(after)) throw this.#staleAfter();
    let held: boolean;
    try {
      held = await this.#bounded(this.#options.log.holds(stream.accountId, after));
    } catch (err) {
      if (err instanceof LogReadTimeout) {
        throw new AppError('UNAVAILABLE', 'reading the event log timed out; try again');
      }
      throw err;
    }
    if (!held) throw this.#staleAfter();
  }

  #staleAfter(): AppError {
    return invalidArgument(
      'after',
      `after must be the eventId of an event of this stream within the event log's retention (${this.#options.retentionHours} hours); subscribe without after and reload the current state`,
    );
  }

  /** The stream's topic, opened when it has none. */
  #topic(stream: Stream): Topic {
    const name = streamTopic(stream);
    const existing = this.#topics.get(name);
    if (existing) return existing;
    const { bus, log, pageSize, observer, bounds } = this.#options;
    const topic: Topic = new Topic({
      name,
      stream,
      bus,
      log,
      pageSize,
      observer,
      bounds,
      bounded: (read) => this.#bounded(read),
      onClose: () => {
        if (this.#topics.get(name) === topic) this.#topics.delete(name);
      },
    });
    this.#topics.set(name, topic);
    return topic;
  }
}
