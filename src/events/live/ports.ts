import type { AppError } from '../../errors.ts';
import type { LiveWait, RepairCause } from './bounds.ts';
import type { LiveEvent, Stream, TopicMessage } from './stream.ts';

/** What the live-event core needs of the world: these interfaces, and nothing else. */

export interface TopicListener {
  /** Resolves once every message published from now on is certain to reach the listener. */
  ready: Promise<void>;
  stop(): void;
}

/**
 * The pub/sub between instances (src/events/pubsub.ts). It may lose messages and deliver them
 * out of order across publishers; the core repairs both from the event log.
 */
export interface LiveBus {
  publish(topic: string, message: TopicMessage): void;
  listen(topic: string, listener: (message: TopicMessage) => void): TopicListener;
  /**
   * Calls back after the bus reconnected (and listens again on every topic): messages
   * published while it was away are lost, so listeners look in the log for what they missed.
   * Returns the function that stops calling back.
   */
  onReconnect(callback: () => void): () => void;
}

export interface LogRead {
  /** Events with a greater id only. */
  after: string;
  /** Events with a smaller id only. */
  before?: string;
  /** Events of these types only. */
  eventTypes?: ReadonlySet<string>;
  /** At most this many (the first ones). */
  limit: number;
}

/** Reads the event log (src/events/log.ts), which holds every committed event for a while. */
export interface EventLogReader {
  /** The logged events of a stream in id order. */
  read(stream: Stream, range: LogRead): Promise<LiveEvent[]>;
  /** The id of each stream's last logged event, in the order given; '0' for one that has none. */
  heads(streams: readonly Stream[]): Promise<string[]>;
  /** Whether the log still holds the event `eventId` of the account. */
  holds(accountId: string, eventId: string): Promise<boolean>;
}

/** What the core reports, for metrics and logs (src/events/live/observer.ts). */
export interface LiveObserver {
  /** A subscription joined (1) or left (-1) its topic. */
  subscriptions(change: 1 | -1): void;
  /** An event was handed to a subscriber. */
  delivered(): void;
  /** A subscriber was cut because it could not keep up. */
  slowConsumer(stream: Stream): void;
  /** Something failed that ends subscriptions: opening or ordering a topic, replaying the log. */
  failed(err: unknown, message: string, topic?: string): void;
  /** A topic read `count` events from the log that the bus had not brought it (yet). */
  repaired(count: number, cause: RepairCause): void;
  /** A wait ran into its bound (./bounds.ts). */
  timedOut(wait: LiveWait): void;
  /** The periodic check could not read the log (it tries again at its next round). */
  checkFailed(err: unknown): void;
}

/** The connection a subscription streams over, as far as back-pressure is concerned. */
export interface LiveSink {
  /** True when the connection's own send buffer is over its bound. */
  congested(): boolean;
  /**
   * Cuts a subscriber that cannot keep up: closes the connection (a WebSocket, with a code),
   * or returns the error the stream ends with (SSE, which has no close code).
   */
  cut(message: string): AppError | undefined;
}
