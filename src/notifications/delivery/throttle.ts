import type { Queryable } from '../../storage/database.ts';
import type { ClaimedDelivery } from './queue/types.ts';

/**
 * The rate gate, the stage between prepare and call: a registration with `maxPerSecond` gets
 * its attempts started at least 1/maxPerSecond apart, across every instance, and none is dropped
 * for it. See docs/decisions/0106-receiver-rate-limit.md.
 *
 * The registration row holds `next_send_at`, the earliest start of its next attempt. An attempt
 * reserves the first free start (`reserve`, pure) and moves `next_send_at` one interval past
 * it with a compare-and-set, so that instances sharing the database never hand out the same
 * start; then it waits for that start in its slot. A start further away than MAX_WAIT_MS is not
 * reserved: the delivery is handed back unsent, due when that start comes (its lease covers a
 * short wait only). A registration's limit is read at most every LIMIT_CACHE_MS per instance;
 * registrations without one cost nothing more: their attempts pass the gate at once, without
 * queueing behind each other.
 */

/** The longest an attempt waits in its slot for its start; beyond, it is handed back. */
export const MAX_WAIT_MS = 1000;
/** How long an instance trusts the limit it read of a registration. */
const LIMIT_CACHE_MS = 5000;
/** Registrations whose limit is remembered; beyond, the least recently read are forgotten. */
const LIMIT_MEMORY = 10_000;
/** Compare-and-set rounds before the attempt is handed back (other instances kept winning). */
const CAS_ROUNDS = 5;

/**
 * What the gate decides for one attempt: start after `waitMs`, or hand back for `deferMs` (half
 * a MAX_WAIT_MS before the start it would have had, which it then likely reserves).
 */
export type Gate = { waitMs: number } | { deferMs: number };

const UNLIMITED: Gate = { waitMs: 0 };

/**
 * The start of the next attempt of a receiver allowed `ratePerSecond`, at `now` (ms), given the
 * earliest free start `nextSendAt` (null: none reserved yet): wait for it and move the next free
 * start one interval on, or, when it is more than `maxWaitMs` away, defer without reserving.
 */
export function reserve(
  nextSendAt: number | null,
  now: number,
  ratePerSecond: number,
  maxWaitMs = MAX_WAIT_MS,
): { waitMs: number; next: number } | { deferMs: number } {
  const start = Math.max(nextSendAt ?? now, now);
  const waitMs = start - now;
  // Back half a wait early, so that the claim's latency does not cost the start.
  if (waitMs > maxWaitMs) return { deferMs: waitMs - maxWaitMs / 2 };
  // Whole milliseconds, as the column stores them.
  return { waitMs, next: Math.round(start + 1000 / ratePerSecond) };
}

interface Limit {
  maxPerSecond: number | null;
  nextSendAt: number | null;
  readAt: number;
}

type Registration = Pick<ClaimedDelivery, 'account_id' | 'client_id'>;

const registrationKey = (r: Registration) => `${r.account_id} ${r.client_id}`;

export class ReceiverThrottle {
  readonly #pool: Queryable;
  readonly #limits = new Map<string, Limit>();
  /** One reservation at a time per registration in this instance. */
  readonly #queues = new Map<string, Promise<unknown>>();

  constructor(pool: Queryable) {
    this.#pool = pool;
  }

  /** The gate of an attempt at `delivery`. */
  admit(delivery: Registration): Promise<Gate> {
    const key = registrationKey(delivery);
    // Known to have no limit: nothing to reserve, nor to wait for behind other attempts.
    if (this.#cached(key)?.maxPerSecond === null) return Promise.resolve(UNLIMITED);
    const previous = this.#queues.get(key) ?? Promise.resolve();
    const gate = previous.then(
      () => this.#admit(key, delivery),
      () => this.#admit(key, delivery),
    );
    const settled = gate.catch(() => undefined);
    this.#queues.set(key, settled);
    void settled.then(() => {
      if (this.#queues.get(key) === settled) this.#queues.delete(key);
    });
    return gate;
  }

  async #admit(key: string, r: Registration): Promise<Gate> {
    let limit = this.#cached(key) ?? (await this.#read(key, r));
    for (let round = 0; round < CAS_ROUNDS; round++) {
      if (limit.maxPerSecond === null) return UNLIMITED;
      const now = Date.now();
      const decision = reserve(limit.nextSendAt, now, limit.maxPerSecond);
      if ('deferMs' in decision) return decision;
      const { rowCount } = await this.#pool.query(
        `UPDATE notification_registrations SET next_send_at = $4
          WHERE account_id = $1 AND client_id = $2 AND max_per_second = $3
            AND next_send_at IS NOT DISTINCT FROM $5`,
        [
          r.account_id,
          r.client_id,
          limit.maxPerSecond,
          new Date(decision.next),
          limit.nextSendAt === null ? null : new Date(limit.nextSendAt),
        ],
      );
      if (rowCount) {
        limit.nextSendAt = decision.next;
        // The wait counts from when the start was computed.
        return { waitMs: Math.max(0, decision.waitMs - (Date.now() - now)) };
      }
      limit = await this.#read(key, r); // another instance reserved, or the limit changed
    }
    return { deferMs: 1000 / (limit.maxPerSecond ?? 1) };
  }

  /** The registration's limit as last read here, unless that was over LIMIT_CACHE_MS ago. */
  #cached(key: string): Limit | undefined {
    const limit = this.#limits.get(key);
    return limit && Date.now() - limit.readAt <= LIMIT_CACHE_MS ? limit : undefined;
  }

  async #read(key: string, r: Registration): Promise<Limit> {
    const { rows } = await this.#pool.query<{
      max_per_second: number | null;
      next_send_at: Date | null;
    }>(
      `SELECT max_per_second, next_send_at FROM notification_registrations
        WHERE account_id = $1 AND client_id = $2`,
      [r.account_id, r.client_id],
    );
    const limit: Limit = {
      maxPerSecond: rows[0]?.max_per_second ?? null,
      nextSendAt: rows[0]?.next_send_at?.getTime() ?? null,
      readAt: Date.now(),
    };
    this.#limits.delete(key);
    this.#limits.set(key, limit);
    if (this.#limits.size > LIMIT_MEMORY) this.#limits.delete(this.#limits.keys().next().value!);
    return limit;
  }
}

/**
 * Registrations whose receiver said "slow down" (policy.ts, slowDownMs), and until when this
 * instance sends them nothing: an attempt claimed meanwhile is handed back, due when the pause
 * ends. Keyed by registration, not origin: on a host that many tenants' endpoints share (chat and
 * automation services answer 429 per hook), one endpoint's Retry-After holds only its own
 * notifications. Per instance (another instance learns from its own attempts); bounded like the
 * limits.
 */
export class ReceiverPauses {
  readonly #until = new Map<string, number>();

  /**
   * Holds the registration back for `ms` from now (a longer pause already set stands). True when
   * it was not held back before: a pause begins.
   */
  hold(r: Registration, ms: number, now = Date.now()): boolean {
    const key = registrationKey(r);
    const before = this.#until.get(key) ?? 0;
    this.#until.delete(key);
    this.#until.set(key, Math.max(before, now + ms));
    if (this.#until.size > LIMIT_MEMORY) this.#until.delete(this.#until.keys().next().value!);
    return before <= now;
  }

  /** How long the registration is still held back, in ms (0: not). */
  remaining(r: Registration, now = Date.now()): number {
    const key = registrationKey(r);
    const until = this.#until.get(key);
    if (until === undefined) return 0;
    if (until <= now) this.#until.delete(key);
    return Math.max(0, until - now);
  }
}
