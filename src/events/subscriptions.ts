import { AppError, invalidArgument } from '../errors.ts';
import type { Metrics } from '../http/metrics.ts';
import { deleteInBatches } from '../jobs/batches.ts';
import type { Logger } from '../logger.ts';
import type { Database } from '../storage/database.ts';
import {
  accessoryTopic,
  accountTopic,
  type EventBus,
  type TopicListener,
  type WireEvent,
} from './pubsub.ts';
import type { RecordedEventType, StoredEvent } from './types.ts';

/**
 * Live events: what GraphQL subscriptions (WebSocket and SSE) stream.
 *
 * Publishing: after a commit, `publish()` puts the committed events on the bus, on the topic of
 * their account and of their accessory. `recordEvents` serializes the event writes of an
 * account and tells each event the id of its stream's previous event (`prev`), so every stream
 * is a chain in id order.
 *
 * Receiving: each instance listens once per topic that has local subscribers (a `Topic`), and
 * re-establishes the chain order there: a message whose `prev` is beyond the last event emitted
 * overtook another (two instances published at once, or the bus lost one), and the events in
 * between are read from the event log, which already holds them (they committed first). Events
 * at or below the last emitted one are repeats and dropped. Each subscriber has a bounded queue.
 *
 * Resuming (`after`): the subscriber joins its topic first and buffers, then replays the log
 * after `after`, then drains its buffer, skipping what the replay already gave.
 */

/** A committed event as a subscriber receives it (and as the event log replays it). */
export type LiveEvent = Omit<StoredEvent, 'previousAccountEventId' | 'previousAccessoryEventId'>;

export type Stream =
  | { kind: 'account'; accountId: string }
  | { kind: 'accessory'; accountId: string; accessoryId: string };

/** The connection a subscription streams over, as far as back-pressure is concerned. */
export interface LiveTransport {
  readonly kind: 'ws' | 'sse';
  /** True when the connection's own send buffer is over its bound. */
  congested(): boolean;
  /**
   * Cuts a subscriber that cannot keep up. True when the transport ended the connection (a
   * WebSocket closes with a code); false when the stream has to end itself with an error (SSE).
   */
  cutSlowConsumer(message: string): boolean;
}

/** The last item of a stream that ends with an error (SSE has no close code). */
export class StreamEnd {
  constructor(readonly error: AppError) {}
}

export interface LiveOptions {
  db: Database;
  bus: EventBus;
  logger: Logger;
  metrics: Pick<Metrics, 'liveSubscriptions' | 'liveEventsFannedOut' | 'liveSlowConsumers'>;
  /** Events one subscriber may have waiting before it is cut. */
  bufferEvents: number;
  /** Bytes a connection may have unsent before its subscribers count as slow. */
  maxBufferedBytes: number;
  /** How long the event log keeps events; `after` older than that is refused. */
  retentionHours: number;
  maxConnections: number;
  maxConnectionsPerSubject: number;
}

export interface SubscribeOptions {
  stream: Stream;
  after?: string;
  eventTypes?: readonly string[];
  transport: LiveTransport;
  /** Ends the stream with UNAUTHENTICATED then (unix seconds); for transports that cannot close. */
  expiresAt?: number;
  /** Called once when the subscription ends, however it ends. */
  onEnd?: () => void;
}

/** Compares event ids (decimal strings of a bigserial, without leading zeros). */
export function compareIds(a: string, b: string): number {
  return a.length !== b.length ? a.length - b.length : a < b ? -1 : a > b ? 1 : 0;
}

const EVENT_ID = /^[1-9][0-9]{0,18}$/;
const PAGE = 500;
const MAX_TIMER_MS = 2 ** 31 - 1;
const DONE: IteratorReturnResult<undefined> = { done: true, value: undefined };

type Column = 'account_id' | 'accessory_id';

interface Topic {
  name: string;
  column: Column;
  key: string;
  subscribers: Set<LiveSubscription>;
  /** Subscribers joined or joining; the topic closes when it drops to zero. */
  refs: number;
  /** The id of the last event emitted in order; undefined until the baseline is read. */
  last: string | undefined;
  inbox: WireEvent[];
  busy: boolean;
  resync: boolean;
  closed: boolean;
  listener: TopicListener;
  ready: Promise<void>;
}

/** Counts connections (WebSocket sockets and SSE streams) per instance and per token subject. */
export class ConnectionLimiter {
  #total = 0;
  readonly #bySubject = new Map<string, number>();

  constructor(
    readonly maxTotal: number,
    readonly maxPerSubject: number,
  ) {}

  get total(): number {
    return this.#total;
  }

  /** Takes an instance slot; false when the instance is full. */
  open(): boolean {
    if (this.#total >= this.maxTotal) return false;
    this.#total++;
    return true;
  }

  close(): void {
    this.#total--;
  }

  /** Takes a slot of the subject; false when it has as many connections as it may. */
  claim(subject: string): boolean {
    const held = this.#bySubject.get(subject) ?? 0;
    if (held >= this.maxPerSubject) return false;
    this.#bySubject.set(subject, held + 1);
    return true;
  }

  unclaim(subject: string): void {
    const held = (this.#bySubject.get(subject) ?? 1) - 1;
    if (held > 0) this.#bySubject.set(subject, held);
    else this.#bySubject.delete(subject);
  }
}

export class LiveEvents {
  readonly connections: ConnectionLimiter;
  readonly #topics = new Map<string, Topic>();
  readonly #options: LiveOptions;
  #subscriptions = 0;
  #draining = false;
  #closed: Promise<void> | undefined;

  constructor(options: LiveOptions) {
    this.#options = options;
    this.connections = new ConnectionLimiter(
      options.maxConnections,
      options.maxConnectionsPerSubject,
    );
    options.bus.onReconnect(() => {
      for (const topic of this.#topics.values()) {
        topic.resync = true;
        void this.#drain(topic);
      }
    });
  }

  get bufferEvents(): number {
    return this.#options.bufferEvents;
  }

  get maxBufferedBytes(): number {
    return this.#options.maxBufferedBytes;
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
      for (const sub of topic.subscribers) queued += sub.queued;
    }
    return queued;
  }

  /** Publishes committed events; call only after their transaction committed. */
  publish(events: readonly StoredEvent[]): void {
    if (this.#closed || events.length === 0) return;
    const byTopic = new Map<string, WireEvent[]>();
    const add = (topic: string, event: WireEvent) => {
      const list = byTopic.get(topic);
      if (list) list.push(event);
      else byTopic.set(topic, [event]);
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
    for (const [topic, list] of byTopic) this.#options.bus.publish(topic, { events: list });
  }

  /**
   * Opens a subscription on a stream the caller may read (the caller checks ownership). With
   * `after`, it first replays the logged events after that id.
   */
  async subscribe(options: SubscribeOptions): Promise<LiveSubscription> {
    if (this.#draining) throw new AppError('UNAVAILABLE', 'the server is shutting down');
    const { stream, after } = options;
    if (after !== undefined) await this.#checkAfter(stream, after);
    const eventTypes = options.eventTypes && new Set<string>(options.eventTypes);
    const name =
      stream.kind === 'account'
        ? accountTopic(stream.accountId)
        : accessoryTopic(stream.accessoryId);
    let topic = this.#topics.get(name);
    if (!topic) topic = this.#openTopic(name, stream);
    topic.refs++;
    try {
      await topic.ready;
    } catch {
      this.#release(topic);
      throw new AppError('UNAVAILABLE', 'live events are unavailable, try again');
    }
    if (this.#draining || topic.closed) {
      this.#release(topic);
      throw new AppError(
        'UNAVAILABLE',
        this.#draining ? 'the server is shutting down' : 'live events were interrupted, try again',
      );
    }
    const sub = new LiveSubscription(this, topic, stream, options, eventTypes);
    topic.subscribers.add(sub);
    this.#subscriptions++;
    this.#options.metrics.liveSubscriptions.inc();
    return sub;
  }

  /** Ends every subscription (SSE streams complete) and refuses new ones. */
  drain(): void {
    this.#draining = true;
    for (const topic of [...this.#topics.values()]) {
      for (const sub of [...topic.subscribers]) void sub.return();
    }
  }

  /** Ends every subscription and disconnects from the bus. */
  close(): Promise<void> {
    return (this.#closed ??= (async () => {
      this.drain();
      for (const topic of this.#topics.values()) {
        topic.closed = true;
        topic.listener.stop();
      }
      this.#topics.clear();
      await this.#options.bus.close();
    })());
  }

  /** @internal Called by a subscription once, when it stops receiving. */
  left(topic: Topic, sub: LiveSubscription): void {
    if (!topic.subscribers.delete(sub)) return;
    this.#subscriptions--;
    this.#options.metrics.liveSubscriptions.dec();
    this.#release(topic);
  }

  /** @internal */
  replayFailed(err: unknown): void {
    this.#options.logger.error({ err }, 'replaying the event log failed');
  }

  /** @internal */
  delivered(): void {
    this.#options.metrics.liveEventsFannedOut.inc();
  }

  /** @internal */
  cutSlowConsumer(stream: Stream): void {
    this.#options.metrics.liveSlowConsumers.inc();
    this.#options.logger.info({ stream }, 'cut a slow live-event subscriber');
  }

  /** @internal One page of the log of a topic's stream after `after`, in id order. */
  read(
    column: Column,
    key: string,
    after: string,
    before?: string,
    eventTypes?: ReadonlySet<string>,
  ): Promise<LiveEvent[]> {
    return readEvents(this.#options.db, column, key, after, before, eventTypes);
  }

  async #checkAfter(stream: Stream, after: string): Promise<void> {
    const refused = () =>
      invalidArgument(
        'after',
        `after must be the eventId of an event of this stream within the event log's retention (${this.#options.retentionHours} hours); subscribe without after and reload the current state`,
      );
    if (!EVENT_ID.test(after)) throw refused();
    const { rowCount } = await this.#options.db.pool.query(
      'SELECT 1 FROM events WHERE id = $1::bigint AND account_id = $2::uuid',
      [after, stream.accountId],
    );
    if (!rowCount) throw refused();
  }

  #openTopic(name: string, stream: Stream): Topic {
    const column: Column = stream.kind === 'account' ? 'account_id' : 'accessory_id';
    const key = stream.kind === 'account' ? stream.accountId : stream.accessoryId;
    const topic = {
      name,
      column,
      key,
      subscribers: new Set(),
      refs: 0,
      last: undefined,
      inbox: [],
      busy: false,
      resync: false,
      closed: false,
    } as unknown as Topic;
    topic.listener = this.#options.bus.listen(name, (message) => {
      if (topic.closed) return;
      for (const event of message.events) topic.inbox.push(event);
      void this.#drain(topic);
    });
    // The baseline is read once the topic is live: what committed before it is in the log,
    // what commits after it arrives on the topic.
    topic.ready = topic.listener.ready
      .then(() =>
        this.#options.db.pool.query<{ head: string | null }>(
          `SELECT max(id)::text AS head FROM events WHERE ${column} = $1::uuid`,
          [key],
        ),
      )
      .then(({ rows }) => {
        topic.last = rows[0]?.head ?? '0';
        void this.#drain(topic);
      });
    topic.ready.catch((err: unknown) => {
      this.#options.logger.error({ err, topic: name }, 'opening a live-event topic failed');
      this.#closeTopic(topic);
    });
    this.#topics.set(name, topic);
    return topic;
  }

  #release(topic: Topic): void {
    topic.refs--;
    if (topic.refs <= 0) this.#closeTopic(topic);
  }

  #closeTopic(topic: Topic): void {
    if (topic.closed) return;
    topic.closed = true;
    topic.inbox = [];
    topic.listener.stop();
    if (this.#topics.get(topic.name) === topic) this.#topics.delete(topic.name);
  }

  /** Emits the topic's pending events in chain order; one drain runs per topic at a time. */
  async #drain(topic: Topic): Promise<void> {
    if (topic.busy || topic.last === undefined) return;
    topic.busy = true;
    try {
      while (!topic.closed && (topic.inbox.length > 0 || topic.resync)) {
        if (topic.resync) {
          // The bus was away: whatever committed meanwhile is in the log.
          topic.resync = false;
          await this.#catchUp(topic, undefined);
          continue;
        }
        const batch = topic.inbox;
        topic.inbox = [];
        for (const event of batch) {
          if (topic.closed) break;
          if (compareIds(event.eventId, topic.last) <= 0) continue;
          if (event.prev != null && compareIds(event.prev, topic.last) > 0) {
            await this.#catchUp(topic, event.eventId);
            if (compareIds(event.eventId, topic.last) <= 0) continue;
          }
          this.#emit(topic, {
            eventId: event.eventId,
            accountId: event.accountId,
            accessoryId: event.accessoryId,
            eventType: event.eventType as RecordedEventType,
            eventData: event.eventData,
            occurredAt: new Date(event.occurredAt),
          });
        }
      }
    } catch (err) {
      this.#options.logger.error({ err, topic: topic.name }, 'live-event topic failed');
      const error = new AppError('UNAVAILABLE', 'live events were interrupted; resume with after');
      for (const sub of [...topic.subscribers]) sub.fail(error);
      this.#closeTopic(topic);
    } finally {
      topic.busy = false;
    }
  }

  /** Emits the logged events after the topic's last one (and before `before`, if given). */
  async #catchUp(topic: Topic, before: string | undefined): Promise<void> {
    for (;;) {
      const rows = await readEvents(
        this.#options.db,
        topic.column,
        topic.key,
        topic.last!,
        before,
        undefined,
      );
      for (const row of rows) this.#emit(topic, row);
      if (rows.length < PAGE || topic.closed) return;
    }
  }

  #emit(topic: Topic, event: LiveEvent): void {
    topic.last = event.eventId;
    for (const sub of topic.subscribers) sub.deliver(event);
  }
}

/**
 * One subscriber's stream: an async iterator of events (and, for a stream that must end with
 * an error, a final StreamEnd). `return()` frees everything at once.
 */
export class LiveSubscription implements AsyncIterableIterator<LiveEvent | StreamEnd> {
  readonly #live: LiveEvents;
  readonly #topic: Topic;
  readonly #stream: Stream;
  readonly #transport: LiveTransport;
  readonly #eventTypes: ReadonlySet<string> | undefined;
  readonly #onEnd: (() => void) | undefined;
  #queue: LiveEvent[] = [];
  #replay: LiveEvent[] = [];
  /** While replaying: the id the next page of the log starts after. */
  #replayAfter: string | undefined;
  #lastSent: string | undefined;
  #waiter: ((result: IteratorResult<LiveEvent | StreamEnd>) => void) | undefined;
  #ending: StreamEnd | undefined;
  #finishAfterNext = false;
  #done = false;
  #timer: NodeJS.Timeout | undefined;

  constructor(
    live: LiveEvents,
    topic: Topic,
    stream: Stream,
    options: SubscribeOptions,
    eventTypes: ReadonlySet<string> | undefined,
  ) {
    this.#live = live;
    this.#topic = topic;
    this.#stream = stream;
    this.#transport = options.transport;
    this.#eventTypes = eventTypes;
    this.#onEnd = options.onEnd;
    this.#replayAfter = options.after;
    this.#lastSent = options.after;
    if (options.expiresAt !== undefined) {
      const ms = options.expiresAt * 1000 - Date.now();
      this.#timer = setTimeout(
        () =>
          this.fail(
            new AppError(
              'UNAUTHENTICATED',
              'the token has expired; subscribe again with a fresh token and resume with after',
            ),
          ),
        Math.max(0, Math.min(ms, MAX_TIMER_MS)),
      );
      this.#timer.unref();
    }
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
          this.#live.replayFailed(err);
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

  /** @internal Hands an event emitted on the topic to this subscriber (in id order). */
  deliver(event: LiveEvent): void {
    if (this.#done || this.#ending) return;
    if (this.#eventTypes && !this.#eventTypes.has(event.eventType)) return;
    const waiter = this.#waiter;
    if (waiter && this.#queue.length === 0 && this.#replayAfter === undefined) {
      if (this.#lastSent !== undefined && compareIds(event.eventId, this.#lastSent) <= 0) return;
      this.#waiter = undefined;
      waiter(this.#handOut(event));
      return;
    }
    if (this.#queue.length >= this.#live.bufferEvents || this.#transport.congested()) {
      this.#cut();
      return;
    }
    this.#queue.push(event);
  }

  /** Ends the stream with an error: a final StreamEnd, then done. */
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
    this.#live.delivered();
    // An account's stream ends with its deletion.
    if (this.#stream.kind === 'account' && event.eventType === 'account_deleted') {
      this.#finishAfterNext = true;
      this.#stopReceiving();
    }
    return { value: event, done: false };
  }

  async #readReplay(): Promise<void> {
    const after = this.#replayAfter!;
    const rows = await this.#live.read(
      this.#topic.column,
      this.#topic.key,
      after,
      undefined,
      this.#eventTypes,
    );
    if (this.#done || this.#replayAfter !== after) return;
    this.#replay = rows;
    this.#replayAfter = rows.length < PAGE ? undefined : rows.at(-1)!.eventId;
  }

  #cut(): void {
    this.#live.cutSlowConsumer(this.#stream);
    const message = `slow consumer: more than ${this.#live.bufferEvents} events waited; reconnect and resume with after`;
    this.#queue = [];
    this.#replay = [];
    this.#replayAfter = undefined;
    if (this.#transport.cutSlowConsumer(message)) this.#finish();
    else this.fail(new AppError('RATE_LIMITED', message, { field: 'after' }));
  }

  /** Leaves the topic and frees what waits, but lets a pending end be read. */
  #stopReceiving(): void {
    this.#queue = [];
    this.#replay = [];
    this.#replayAfter = undefined;
    this.#live.left(this.#topic, this);
  }

  #finish(): void {
    if (this.#done) return;
    this.#done = true;
    this.#ending = undefined;
    this.#stopReceiving();
    clearTimeout(this.#timer);
    this.#onEnd?.();
    const waiter = this.#waiter;
    this.#waiter = undefined;
    waiter?.(DONE);
  }
}

async function readEvents(
  db: Database,
  column: Column,
  key: string,
  after: string,
  before: string | undefined,
  eventTypes: ReadonlySet<string> | undefined,
): Promise<LiveEvent[]> {
  const params: unknown[] = [key, after];
  let where = `${column} = $1::uuid AND id > $2::bigint`;
  if (before !== undefined) {
    params.push(before);
    where += ` AND id < $${params.length}::bigint`;
  }
  if (eventTypes) {
    params.push([...eventTypes]);
    where += ` AND event_type = ANY($${params.length}::text[])`;
  }
  const { rows } = await db.pool.query<LiveEvent>(
    `SELECT id::text AS "eventId", account_id AS "accountId", accessory_id AS "accessoryId",
            event_type AS "eventType", event_data AS "eventData", occurred_at AS "occurredAt"
       FROM events WHERE ${where} ORDER BY id LIMIT ${PAGE}`,
    params,
  );
  return rows;
}

/**
 * Deletes the events older than the event log's retention, in batches so that no statement
 * holds many locks for long. Idempotent, so several instances may run it at once.
 */
export function purgeEventLog(
  db: Database,
  retentionHours: number,
  now = new Date(),
): Promise<number> {
  const cutoff = new Date(now.getTime() - retentionHours * 3_600_000);
  return deleteInBatches(db.pool, {
    table: 'events',
    key: 'id',
    where: 'occurred_at < $1',
    params: [cutoff],
    order: 'occurred_at',
  });
}
