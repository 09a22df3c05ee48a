/**
 * The connections of one broker kind, one per (url, username, password): opened on the first
 * publish, shared by every later one, forgotten when they die and opened again by the next
 * publish, but not before a back-off after a failed opening (1 s, doubling to 30 s): meanwhile
 * publishes fail at once with the opening's error. One opening at a time per broker: attempts
 * that come while it is under way wait for it, each until its own signal aborts. See
 * docs/decisions/0150-broker-clients.md.
 */
import { createHash } from 'node:crypto';
import { classifyError, describe } from '../sender.ts';
import { PublishError, type BrokerTarget } from './types.ts';

/** How long opening a connection may take: TCP, TLS and the broker's handshake together. */
export const CONNECT_TIMEOUT_MS = 10_000;
const BACKOFF_FIRST_MS = 1_000;
const BACKOFF_MAX_MS = 30_000;
/** A connection no publish used for this long is closed (registrations go, credentials change). */
const IDLE_MS = 10 * 60_000;
/** How often a publish looks for idle connections: not each one, which would walk every broker's. */
const SWEEP_MS = 60_000;

/** What a kind's pool needs: how to open a connection, and how to close one. */
export interface Connector<C> {
  /**
   * Opens a connection to `target`'s broker; rejects with the cause (classed as the delivery log
   * classes a webhook's, unless a PublishError). Calls `gone` when the connection dies later.
   */
  open(target: BrokerTarget, gone: () => void): Promise<C>;
  close(connection: C): Promise<void>;
}

interface Entry<C> {
  connection?: C | undefined;
  opening?: Promise<C> | undefined;
  /** Failed openings in a row, and the last one's error, until when it stands for the broker. */
  failures: number;
  error?: PublishError;
  retryAt: number;
  usedAt: number;
}

/** A PublishError as it is, any other error classed as the sender classes a webhook's. */
export const publishErrorOf = (err: unknown): PublishError =>
  err instanceof PublishError ? err : new PublishError(classifyError(err), describe(err));

/**
 * `promise`, or a PublishError 'timeout' saying what was awaited once `signal` aborts (the
 * promise goes on; its outcome is then ignored).
 */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal, what: string) {
  return new Promise<T>((resolve, reject) => {
    const abort = () =>
      reject(new PublishError('timeout', `no answer from the broker while ${what}`));
    if (signal.aborted) abort();
    signal.addEventListener('abort', abort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', abort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', abort);
        reject(publishErrorOf(err));
      },
    );
  });
}

/** The pool key of a target: a digest, so that no password is a map key. */
const digestOf = ({ url, username, password }: BrokerTarget) =>
  createHash('sha256')
    .update(JSON.stringify([url, username ?? null, password ?? null]))
    .digest('base64');

/** Where a target's pool key is remembered: its URL and username (no password). */
const brokerOf = ({ url, username }: BrokerTarget) =>
  username === undefined ? url : `${url}\n${username}`;

export class ConnectionPool<C> {
  readonly #entries = new Map<string, Entry<C>>();
  /**
   * The pool key last computed per URL and username, with the password it was computed for:
   * each publish to the same broker and credentials reuses it, the digest is made once (a
   * changed password makes it anew). Cleared at every sweep for idle connections (once a
   * minute), so that it never outgrows the brokers in use.
   */
  readonly #keys = new Map<string, { password: string | undefined; key: string }>();
  readonly #connector: Connector<C>;
  #closed = false;
  #sweptAt = 0;

  constructor(connector: Connector<C>) {
    this.#connector = connector;
  }

  /** The broker's connection: the pooled one, or one opened now (until `signal` aborts). */
  acquire(target: BrokerTarget, signal: AbortSignal): Promise<C> {
    if (this.#closed) return Promise.reject(new PublishError('connect', 'the publisher is closed'));
    const now = Date.now();
    if (now - this.#sweptAt >= SWEEP_MS) this.#closeIdle(now);
    const key = this.#keyOf(target);
    let entry = this.#entries.get(key);
    if (entry === undefined) {
      entry = { failures: 0, retryAt: 0, usedAt: now };
      this.#entries.set(key, entry);
    }
    entry.usedAt = now;
    if (entry.connection !== undefined) return Promise.resolve(entry.connection);
    if (entry.opening === undefined) {
      if (entry.error !== undefined && now < entry.retryAt) {
        const { errorClass, message } = entry.error;
        const seconds = Math.ceil((entry.retryAt - now) / 1000);
        return Promise.reject(
          new PublishError(errorClass, `${message} (the broker is tried again in ${seconds} s)`),
        );
      }
      entry.opening = this.#open(entry, target);
    }
    return untilAborted(entry.opening, signal, 'connecting');
  }

  #keyOf(target: BrokerTarget): string {
    const broker = brokerOf(target);
    const known = this.#keys.get(broker);
    if (known !== undefined && known.password === target.password) return known.key;
    const key = digestOf(target);
    this.#keys.set(broker, { password: target.password, key });
    return key;
  }

  async #open(entry: Entry<C>, target: BrokerTarget): Promise<C> {
    let connection: C | undefined;
    let gone = false;
    try {
      connection = await this.#connector.open(target, () => {
        gone = true;
        if (connection !== undefined && entry.connection === connection) {
          entry.connection = undefined;
        }
      });
    } catch (err) {
      entry.failures += 1;
      entry.error = publishErrorOf(err);
      entry.retryAt =
        Date.now() + Math.min(BACKOFF_MAX_MS, BACKOFF_FIRST_MS * 2 ** (entry.failures - 1));
      throw entry.error;
    } finally {
      entry.opening = undefined;
    }
    if (this.#closed) {
      await this.#connector.close(connection).catch(() => {});
      throw new PublishError('connect', 'the publisher is closed');
    }
    entry.failures = 0;
    entry.error = undefined;
    if (!gone) entry.connection = connection;
    return connection;
  }

  #closeIdle(now: number): void {
    this.#sweptAt = now;
    this.#keys.clear();
    for (const [key, entry] of this.#entries) {
      if (entry.usedAt > now - IDLE_MS || entry.opening !== undefined) continue;
      this.#entries.delete(key);
      if (entry.connection !== undefined) {
        this.#connector.close(entry.connection).catch(() => {});
      }
    }
  }

  /**
   * Closes every connection; publishes fail from now on. A connection still being opened is
   * closed as soon as it opens.
   */
  async close(): Promise<void> {
    this.#closed = true;
    const connections = [...this.#entries.values()].flatMap((e) => e.connection ?? []);
    this.#entries.clear();
    this.#keys.clear();
    await Promise.allSettled(connections.map((c) => this.#connector.close(c)));
  }
}
