import { AppError } from '../../errors.ts';
import type { LiveObserver, LiveSink } from './ports.ts';
import { compareIds, type LiveEvent, type Stream } from './stream.ts';

/** The last item of a stream that ends with an error (SSE has no close code). */
export class StreamEnd {
  constructor(readonly error: AppError) {}
}

/**
 * One subscriber's stream as its transport consumes it: an async iterator of events (and, for a
 * stream that must end with an error, a final StreamEnd). `return()` frees everything at once.
 */
export interface LiveSubscription extends AsyncIterableIterator<LiveEvent | StreamEnd> {
  /** Events waiting for the consumer. */
  readonly queued: number;
  /** Ends the stream at once and frees everything. */
  return(): Promise<IteratorResult<LiveEvent | StreamEnd>>;
  /** Ends the stream with an error: a final StreamEnd, then done. */
  fail(error: AppError): void;
}

export interface SubscriberOptions {
  stream: Stream;
  /** Replays the log after this id first. */
  after: string | undefined;
  eventTypes: ReadonlySet<string> | undefined;
  /** Sees every event of the stream in id order (replayed or live); false: not streamed. */
  accepts: ((event: LiveEvent) => boolean) | undefined;
  sink: LiveSink;
  /** Events that may wait before the subscriber is cut. */
  bufferEvents: number;
  /** One page of the stream's log after an id (`eventTypes` applied), of `pageSize` at most. */
  readLog(after: string): Promise<LiveEvent[]>;
  pageSize: number;
  observer: LiveObserver;
  /** Called when it stops receiving: it leaves its topic. */
  leave(): void;
  /** Called once when it ends, however it ends. */
  onEnd: (() => void) | undefined;
}

const DONE: IteratorReturnResult<undefined> = { done: true, value: undefined };

/**
 * A subscriber of a topic: its topic hands it the stream's events in id order (`deliver`); it
 * keeps them in a bounded queue until the consumer asks. With `after`, it first replays the log
 * page by page while what the topic delivers meanwhile waits in the queue, then drains the
 * queue skipping what the replay already gave: no gap, no repeat.
 */
export class Subscriber implements LiveSubscription {
  readonly #options: SubscriberOptions;
  #queue: LiveEvent[] = [];
  #replay: LiveEvent[] = [];
  /** While replaying: the id the next page of the log starts after. */
  #replayAfter: string | undefined;
  #lastSent: string | undefined;
  #waiter: ((result: IteratorResult<LiveEvent | StreamEnd>) => void) | undefined;
  #ending: StreamEnd | undefined;
  #finishAfterNext = false;
  #done = false;

  constructor(options: SubscriberOptions) {
    this.#options = options;
    this.#replayAfter = options.after;
    this.#lastSent = options.after;
  }

  /** Events waiting for the consumer. */
  get queued(): number {
    return this.#queue.length;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<LiveEvent | StreamEnd>> {
    if (this.#finishAfterNext) this.#finish();
    if (this.#done) return Promise.resolve(DONE);
    const taken = this.#take();
    if (taken) return Promise.resolve(taken);
    if (this.#replayAfter !== undefined) {
      // A failed read ends the stream (an error, then done): a rejected next() would leave it
      // joined, since the GraphQL layer does not call return() after one.
      return this.#readReplay().then(
        () => this.next(),
        (err: unknown) => {
          this.#options.observer.failed(err, 'replaying the event log failed');
          this.fail(new AppError('UNAVAILABLE', 'reading the event log failed; resume with after'));
          return this.next();
        },
      );
    }
    return new Promise((resolve) => (this.#waiter = resolve));
  }

  return(): Promise<IteratorResult<LiveEvent | StreamEnd>> {
    this.#finish();
    return Promise.resolve(DONE);
  }

  throw(error?: unknown): Promise<IteratorResult<LiveEvent | StreamEnd>> {
    this.#finish();
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }

  /** Takes the next event of the stream (in id order) from the topic. */
  deliver(event: LiveEvent): void {
    if (this.#done || this.#ending) return;
    const { eventTypes, accepts, bufferEvents, sink } = this.#options;
    // The filter first: it follows the stream's zones_saved events even when they are not wanted.
    if (accepts && !accepts(event)) return;
    if (eventTypes && !eventTypes.has(event.eventType)) return;
    const waiter = this.#waiter;
    if (waiter && this.#queue.length === 0 && this.#replayAfter === undefined) {
      if (this.#lastSent !== undefined && compareIds(event.eventId, this.#lastSent) <= 0) return;
      this.#waiter = undefined;
      waiter(this.#handOut(event));
      return;
    }
    if (this.#queue.length >= bufferEvents || sink.congested()) {
      this.#cut();
      return;
    }
    this.#queue.push(event);
  }

  fail(error: AppError): void {
    if (this.#done || this.#ending) return;
    this.#stopReceiving();
    const end = new StreamEnd(error);
    const waiter = this.#waiter;
    if (waiter) {
      this.#waiter = undefined;
      this.#finish();
      waiter({ value: end, done: false });
    } else {
      this.#ending = end;
    }
  }

  #take(): IteratorResult<LiveEvent | StreamEnd> | undefined {
    if (this.#ending) {
      const end = this.#ending;
      this.#ending = undefined;
      this.#finish();
      return { value: end, done: false };
    }
    const replayed = this.#replay.shift();
    if (replayed) return this.#handOut(replayed);
    if (this.#replayAfter !== undefined) return undefined;
    for (let event = this.#queue.shift(); event; event = this.#queue.shift()) {
      if (this.#lastSent === undefined || compareIds(event.eventId, this.#lastSent) > 0) {
        return this.#handOut(event);
      }
    }
    return undefined;
  }

  #handOut(event: LiveEvent): IteratorResult<LiveEvent> {
    this.#lastSent = event.eventId;
    this.#options.observer.delivered();
    // An account's stream ends with its deletion.
    if (this.#options.stream.kind === 'account' && event.eventType === 'account_deleted') {
      this.#finishAfterNext = true;
      this.#stopReceiving();
    }
    return { value: event, done: false };
  }

  async #readReplay(): Promise<void> {
    const after = this.#replayAfter!;
    const rows = await this.#options.readLog(after);
    if (this.#done || this.#replayAfter !== after) return;
    const { accepts } = this.#options;
    this.#replay = accepts ? rows.filter(accepts) : rows;
    this.#replayAfter = rows.length < this.#options.pageSize ? undefined : rows.at(-1)!.eventId;
  }

  #cut(): void {
    const { observer, stream, bufferEvents, sink } = this.#options;
    observer.slowConsumer(stream);
    const message = `slow consumer: more than ${bufferEvents} events waited; reconnect and resume with after`;
    this.#queue = [];
    this.#replay = [];
    this.#replayAfter = undefined;
    const error = sink.cut(message);
    if (error) this.fail(error);
    else this.#finish();
  }

  /** Leaves the topic and frees what waits, but lets a pending end be read. */
  #stopReceiving(): void {
    this.#queue = [];
    this.#replay = [];
    this.#replayAfter = undefined;
    this.#options.leave();
  }

  #finish(): void {
    if (this.#done) return;
    this.#done = true;
    this.#ending = undefined;
    this.#stopReceiving();
    this.#options.onEnd?.();
    const waiter = this.#waiter;
    this.#waiter = undefined;
    waiter?.(DONE);
  }
}
