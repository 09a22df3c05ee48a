import { setImmediate } from 'node:timers/promises';
import { AppError } from '../../errors.ts';
import { TIMED_OUT, within } from '../../deadline.ts';
import type { LiveBounds, RepairCause } from './bounds.ts';
import type { EventLogReader, LiveBus, LiveObserver, TopicListener } from './ports.ts';
import { compareIds, fromWire, type LiveEvent, type Stream, type WireEvent } from './stream.ts';
import type { Subscriber } from './subscription.ts';

/** Subscribers served in one turn of the event loop. */
const FAN_OUT_SLICE = 100;

export interface TopicOptions {
  name: string;
  stream: Stream;
  bus: LiveBus;
  log: EventLogReader;
  /** Events per read of the log. */
  pageSize: number;
  observer: LiveObserver;
  bounds: LiveBounds;
  /** A read of the log within `bounds.logReadMs` (it rejects, counted, past that). */
  bounded<T>(read: Promise<T>): Promise<T>;
  /** Called once when the topic closes (its last subscriber left, or it failed). */
  onClose(): void;
}

/**
 * One stream's events on this instance, in chain order, for its local subscribers: it listens
 * once on the stream's topic and re-establishes the order there. A message whose `prev` is
 * beyond the last event emitted overtook another (two instances published at once, or the bus
 * lost one), and the events in between are read from the event log at once, which already holds
 * them (they committed first). Events at or below the last emitted one are repeats and dropped.
 *
 * What the bus never brings is read from the log too, without waiting for a later event: after
 * the bus reconnected (`resync`), and when the periodic check finds the stream's last logged
 * event beyond the last one emitted (`expect`), e.g. an event whose committer lost its database
 * connection, or died, before it could publish. Every wait is bounded (./bounds.ts): the channel's
 * confirmation (then the topic goes live without it; the check covers what it misses) and every
 * read of the log (then the topic fails, and its subscribers resume with `after`).
 *
 * `#fanOut` is the one place where each event reaches every subscriber.
 */
export class Topic {
  /** Resolves once the topic is live: listening, with its baseline read. */
  readonly ready: Promise<void>;
  readonly stream: Stream;
  readonly #options: TopicOptions;
  readonly #subscribers = new Set<Subscriber>();
  readonly #listener: TopicListener;
  /** Subscribers joined or joining; the topic closes when it drops to zero. */
  #refs = 0;
  /** The id of the last event emitted in order; undefined until the baseline is read. */
  #last: string | undefined;
  #inbox: WireEvent[] = [];
  /** Emitted in order, not yet handed to the subscribers (`#fanOut`). */
  #emitted: LiveEvent[] = [];
  #busy = false;
  /** Why the log must be read after the last event emitted, at the next drain. */
  #catchUpFor: RepairCause | undefined;
  /** The stream's last logged event as a check read it, while the bus may still bring it. */
  #expected: string | undefined;
  #grace: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(options: TopicOptions) {
    this.#options = options;
    this.stream = options.stream;
    this.#listener = options.bus.listen(options.name, (message) => {
      if (this.#closed) return;
      for (const event of message.events) this.#inbox.push(event);
      void this.#drain();
    });
    // The baseline is read once the topic is live: what committed before it is in the log,
    // what commits after it arrives on the topic. A channel the bus does not confirm in time
    // goes live all the same: the check reads from the log what the bus does not bring.
    const { observer, bounds, log } = options;
    this.ready = within(this.#listener.ready, bounds.listenMs)
      .then((listening) => {
        if (listening === TIMED_OUT) observer.timedOut('listen');
        return options.bounded(log.heads([options.stream]));
      })
      .then(([head]) => {
        this.#last = head!;
        void this.#drain();
      });
    this.ready.catch((err: unknown) => {
      observer.failed(err, 'opening a live-event topic failed', options.name);
      this.close();
    });
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** The id of the last event emitted; undefined until the baseline is read. */
  get last(): string | undefined {
    return this.#last;
  }

  get subscribers(): ReadonlySet<Subscriber> {
    return this.#subscribers;
  }

  /** Counts a subscriber that is about to join; each `acquire` is undone by one `release`. */
  acquire(): void {
    this.#refs++;
  }

  release(): void {
    this.#refs--;
    if (this.#refs <= 0) this.close();
  }

  join(subscriber: Subscriber): void {
    this.#subscribers.add(subscriber);
  }

  /** True when the subscriber was joined (it leaves once; then `release`). */
  leave(subscriber: Subscriber): boolean {
    return this.#subscribers.delete(subscriber);
  }

  /** The bus was away: whatever committed meanwhile is in the log. */
  resync(): void {
    this.#catchUp('reconnect');
  }

  /**
   * A check read `head` as the stream's last logged event. Unless the bus brings the events up
   * to it within the grace (they may be on their way), they are read from the log.
   */
  expect(head: string): void {
    if (this.#closed || this.#last === undefined || compareIds(head, this.#last) <= 0) return;
    if (this.#expected === undefined || compareIds(head, this.#expected) > 0) {
      this.#expected = head;
    }
    this.#grace ??= setTimeout(() => {
      this.#grace = undefined;
      const expected = this.#expected;
      this.#expected = undefined;
      if (expected !== undefined && compareIds(expected, this.#last!) > 0) this.#catchUp('check');
    }, this.#options.bounds.checkGraceMs);
    this.#grace.unref();
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#grace);
    this.#inbox = [];
    this.#emitted = [];
    this.#listener.stop();
    this.#options.onClose();
  }

  #catchUp(cause: RepairCause): void {
    this.#catchUpFor ??= cause;
    void this.#drain();
  }

  /** Emits the pending events in chain order; one drain runs at a time. */
  async #drain(): Promise<void> {
    if (this.#busy || this.#last === undefined) return;
    this.#busy = true;
    try {
      while (!this.#closed && (this.#inbox.length > 0 || this.#catchUpFor)) {
        const cause = this.#catchUpFor;
        if (cause) {
          this.#catchUpFor = undefined;
          await this.#readLog(undefined, cause);
          await this.#fanOut();
          continue;
        }
        const batch = this.#inbox;
        this.#inbox = [];
        for (const event of batch) {
          if (this.#closed) break;
          if (compareIds(event.eventId, this.#last) <= 0) continue;
          if (event.prev != null && compareIds(event.prev, this.#last) > 0) {
            await this.#readLog(event.eventId, 'overtaken');
            if (compareIds(event.eventId, this.#last) <= 0) continue;
          }
          this.#emit(fromWire(event));
        }
        await this.#fanOut();
      }
    } catch (err) {
      this.#options.observer.failed(err, 'live-event topic failed', this.#options.name);
      const error = new AppError('UNAVAILABLE', 'live events were interrupted; resume with after');
      for (const subscriber of [...this.#subscribers]) subscriber.fail(error);
      this.close();
    } finally {
      this.#busy = false;
    }
  }

  /** Emits the logged events after the last one emitted (and before `before`, if given). */
  async #readLog(before: string | undefined, cause: RepairCause): Promise<void> {
    const { log, stream, pageSize, bounded, observer } = this.#options;
    let read = 0;
    for (;;) {
      const rows = await bounded(log.read(stream, { after: this.#last!, before, limit: pageSize }));
      for (const row of rows) this.#emit(row);
      read += rows.length;
      if (rows.length < pageSize || this.#closed) break;
    }
    if (read > 0) observer.repaired(read, cause);
  }
  #emit(event: LiveEvent): void {
    this.#last = event.eventId;
    this.#emitted.push(event);
  }

  /**
   * Hands the events emitted since the last call to every subscriber, each all of them in order.
   * A large topic is served `FAN_OUT_SLICE` subscribers at a time with a turn of the event loop
   * in between, so that the first ones' frames are written (and read) while the rest are
   * served. One that joins meanwhile starts after these events: they committed before it
   * joined, and a subscriber with `after` replays them from the log.
   */
  async #fanOut(): Promise<void> {
    const events = this.#emitted;
    if (events.length === 0) return;
    this.#emitted = [];
    for (const [i, subscriber] of [...this.#subscribers].entries()) {
      if (i > 0 && i % FAN_OUT_SLICE === 0) await setImmediate();
      if (this.#closed) return;
      for (const event of events) subscriber.deliver(event);
    }
  }
}
