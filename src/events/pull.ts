import { AppError, invalidArgument } from '../errors.ts';
import { isBigintId } from '../ids.ts';
import { within } from '../deadline.ts';
import type { ConnectionLimiter, ConnectionOwner } from './live/connections.ts';
import type { LiveEvents } from './live/live-events.ts';
import type { EventLogReader, LiveSink } from './live/ports.ts';
import type { LiveEvent, Stream } from './live/stream.ts';

/** Events per page at most, and by default. */
export const PULL_MAX_LIMIT = 1000;
export const PULL_DEFAULT_LIMIT = 100;
/** The longest a pull waits for an event, in seconds. */
export const PULL_MAX_WAIT_S = 30;

export interface PullRequest {
  /** The last eventId the caller has; undefined: from the oldest event in the log. */
  after: string | undefined;
  limit: number;
  /** How long to wait, when nothing follows `after` yet (0: answer at once). */
  waitMs: number;
  /** Whose pull it is: a waiting one counts as their live connection. */
  owner: ConnectionOwner;
  /** Aborted when the caller has gone away: a wait ends then. */
  signal?: AbortSignal;
}

export interface PulledPage {
  /** The account's events after `after`, in id order. */
  events: LiveEvent[];
  /** Where the next pull continues: the last event's id, else `after` (null: none yet). */
  next: string | null;
  /** More events follow this page already. */
  more: boolean;
}

/** A long poll's subscription is read at once: it never backs up, and is never cut. */
const pollSink: LiveSink = { congested: () => false, cut: () => undefined };

/** When a refused wait may be tried again. */
const RETRY_AFTER_S = 5;
const retry = { 'Retry-After': String(RETRY_AFTER_S) };

/**
 * Pull: an account's events from the event log after a cursor, for receivers without an
 * endpoint. The cursor is an event id (a webhook's `webhook-id`, a live event's `eventId`); the
 * account's events commit in id order (src/events/outbox.ts), so reading after the last id one
 * has yields every event once. With nothing there yet it waits, bounded, for the live core to
 * see one of the account's events: the same bus that feeds subscriptions, so an event
 * committed on another instance wakes it too (through Redis, or the core's periodic check of
 * the log). A waiting pull is a live connection like a WebSocket or an SSE stream: it counts
 * against the same limits (per instance, and per token subject and client).
 */
export class EventPull {
  readonly #log: EventLogReader;
  readonly #live: LiveEvents;
  readonly #connections: ConnectionLimiter;
  readonly #retentionHours: number;

  constructor(
    log: EventLogReader,
    live: LiveEvents,
    connections: ConnectionLimiter,
    retentionHours: number,
  ) {
    this.#log = log;
    this.#live = live;
    this.#connections = connections;
    this.#retentionHours = retentionHours;
  }

  /**
   * One page of the account's events. `idle` runs the wait (so that a long poll holds no share
   * of the instance while it waits, src/http/rest.ts).
   */
  async page(
    accountId: string,
    request: PullRequest,
    idle: <T>(wait: Promise<T>) => Promise<T> = (wait) => wait,
  ): Promise<PulledPage> {
    const { after, limit, waitMs } = request;
    if (after !== undefined && !(isBigintId(after) && (await this.#log.holds(accountId, after)))) {
      throw invalidArgument(
        'after',
        `after must be the eventId of an event of this account within the event log's retention (${this.#retentionHours} hours); pull without after for the oldest events it holds`,
      );
    }
    const stream: Stream = { kind: 'account', accountId };
    const read = () => this.#log.read(stream, { after: after ?? '0', limit: limit + 1 });
    let rows = await read();
    if (rows.length === 0 && waitMs > 0) {
      rows = await idle(this.#wait(stream, request, read));
      if (rows.length === 0) rows = await read();
    }
    const events = rows.slice(0, limit);
    return { events, next: events.at(-1)?.eventId ?? after ?? null, more: rows.length > limit };
  }

  /**
   * Waits up to `waitMs` for an event of the stream; answers what `read` found before the wait,
   * or nothing (the caller reads again after it). Joined to the stream's topic first, then read:
   * what commits after the join reaches the subscription, what committed before it is in the
   * log.
   */
  async #wait(
    stream: Stream,
    { waitMs, owner, signal }: PullRequest,
    read: () => Promise<LiveEvent[]>,
  ): Promise<LiveEvent[]> {
    const release = this.#connect(owner);
    try {
      let subscription;
      try {
        subscription = await this.#live.subscribe({ stream, sink: pollSink });
      } catch (err) {
        if (!(err instanceof AppError) || err.code !== 'UNAVAILABLE') throw err;
        throw new AppError('UNAVAILABLE', `${err.message}; pull again`, {}, retry);
      }
      const gone = () => void subscription.return();
      signal?.addEventListener('abort', gone, { once: true });
      try {
        const rows = await read();
        if (rows.length > 0 || signal?.aborted) return rows;
        // An event, the end of the subscription (the instance drains, the topic failed, the
        // caller went away), or time.
        await within(subscription.next(), waitMs);
        return [];
      } finally {
        signal?.removeEventListener('abort', gone);
        await subscription.return();
      }
    } finally {
      release();
    }
  }

  /** Takes a live connection of the instance and of `owner`; answers its release. */
  #connect(owner: ConnectionOwner): () => void {
    const connections = this.#connections;
    if (!connections.open()) {
      throw new AppError(
        'UNAVAILABLE',
        'this instance serves as many live connections as it may; pull again',
        { retryAfterSeconds: RETRY_AFTER_S },
        retry,
      );
    }
    if (!connections.claim(owner)) {
      connections.close();
      throw new AppError(
        'RATE_LIMITED',
        `at most ${connections.maxPerSubject} live connections (waiting pulls included) per token subject and client; pull again later, or without wait`,
        { retryAfterSeconds: RETRY_AFTER_S, limit: 'LIVE_MAX_CONNECTIONS_PER_SUBJECT' },
        retry,
      );
    }
    return () => {
      connections.unclaim(owner);
      connections.close();
    };
  }
}
