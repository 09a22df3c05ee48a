import pg from 'pg';
import { queuedOrigins, type EventSignal } from '../../events/outbox.ts';
import type { Logger } from '../../logger.ts';
import type { Database } from '../../storage/database.ts';

/**
 * When the dispatcher looks for due work: at once on a local commit that queued deliveries for a
 * receiver origin it has room for (the in-process EventSignal; deliveries of saturated origins are
 * claimed as their slots free), on a PostgreSQL NOTIFY from another instance (a LISTEN connection
 * of its own, reconnecting), when it is woken (an attempt ended, a delivery was redelivered), when
 * the next retry falls due, and at least every poll interval.
 */

const NOTIFY_CHANNEL = 'clipgate_deliveries';
const RELISTEN_MS = 2000;
/** Due, yet not claimable just now (locked by another instance's claim): look again after this. */
const DUE_RECHECK_MS = 25;

/**
 * How long to sleep after a claim found nothing: until the next delivery falls due
 * (`nextDueMs`, queue/reads.ts), at most `pollMs`; undefined: nothing known, poll.
 */
export function untilNextDue(
  nextDueMs: number | null,
  full: boolean,
  pollMs: number,
): number | undefined {
  if (nextDueMs === null) return undefined;
  // Due, yet not claimed: locked by another instance's claim, unless this one is full anyway.
  if (nextDueMs <= 0) return full ? undefined : DUE_RECHECK_MS;
  return Math.min(Math.ceil(nextDueMs), pollMs);
}

/** How long to wait after the `failures`-th claim in a row failed. */
export const claimBackoffMs = (failures: number): number =>
  Math.min(5000, 250 * 2 ** Math.min(failures, 5));

export class Wakeups {
  readonly #db: Database;
  readonly #instanceId: string;
  readonly #logger: Logger;
  readonly #unsubscribe: () => void;
  #closed = false;
  #requested = false;
  #wakeUp: (() => void) | undefined;
  #listener: pg.Client | undefined;
  #relisten: NodeJS.Timeout | undefined;
  #notifying = false;
  #notifyAgain = false;

  constructor(options: {
    db: Database;
    signal: EventSignal;
    /**
     * A local commit queued deliveries for these origins: whether a claim now could take some
     * of them (otherwise they wait for a slot of theirs to free).
     */
    queued: (origins: ReadonlySet<string>) => boolean;
    instanceId: string;
    logger: Logger;
  }) {
    this.#db = options.db;
    this.#instanceId = options.instanceId;
    this.#logger = options.logger;
    this.#unsubscribe = options.signal.subscribe((events) => {
      const origins = new Set(events.flatMap(queuedOrigins));
      if (origins.size === 0) return;
      if (options.queued(origins)) this.wake();
      this.#notifyPeers();
    });
  }

  /** Starts listening for other instances' notices (PostgreSQL only). */
  start(): void {
    void this.#listen();
  }

  /** Ends a sleep now, or the next one at once. Cheap and coalescing. */
  wake(): void {
    this.#requested = true;
    this.#wakeUp?.();
  }

  /** Forgets earlier wake-ups: the loop is about to look for work. */
  clear(): void {
    this.#requested = false;
  }

  /** Sleeps `ms`, or not at all if woken since `clear()`, or until woken. */
  sleep(ms: number): Promise<void> {
    if (this.#requested) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.#wakeUp = () => {
        this.#wakeUp = undefined;
        done();
      };
    });
  }

  /** Stops every source, ends a sleep in progress, and closes the LISTEN connection. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#unsubscribe();
    clearTimeout(this.#relisten);
    this.wake();
    const listener = this.#listener;
    this.#listener = undefined;
    await listener?.end().catch(() => undefined);
  }

  /** Another instance's commit queued deliveries: it wakes this one through the channel. */
  async #listen(): Promise<void> {
    if (this.#db.kind !== 'postgres' || this.#closed) return;
    const client = new pg.Client({
      connectionString: this.#db.sessionUrl,
      application_name: 'clipgate-dispatcher',
    });
    let retried = false;
    const retry = (err?: unknown) => {
      if (retried) return;
      retried = true;
      if (this.#listener === client) this.#listener = undefined;
      client.end().catch(() => undefined);
      if (this.#closed) return;
      if (err) this.#logger.warn({ err }, 'the LISTEN connection failed; reconnecting');
      this.#relisten = setTimeout(() => void this.#listen(), RELISTEN_MS);
      this.#relisten.unref();
    };
    client.on('notification', (message) => {
      if (message.channel === NOTIFY_CHANNEL && message.payload !== this.#instanceId) this.wake();
    });
    client.on('error', retry);
    client.on('end', () => retry());
    try {
      await client.connect();
      await client.query(`LISTEN ${NOTIFY_CHANNEL}`);
      if (this.#closed) return void client.end().catch(() => undefined);
      this.#listener = client;
      this.wake(); // catch up with what was queued while not listening
    } catch (err) {
      retry(err);
    }
  }

  /** Tells the other instances that deliveries were queued; at most one NOTIFY in flight. */
  #notifyPeers(): void {
    const client = this.#listener;
    if (!client) return;
    if (this.#notifying) {
      this.#notifyAgain = true;
      return;
    }
    this.#notifying = true;
    client
      .query('SELECT pg_notify($1, $2)', [NOTIFY_CHANNEL, this.#instanceId])
      .catch(() => undefined)
      .finally(() => {
        this.#notifying = false;
        if (this.#notifyAgain) {
          this.#notifyAgain = false;
          this.#notifyPeers();
        }
      });
  }
}
