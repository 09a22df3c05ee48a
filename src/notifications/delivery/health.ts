import type { Clock } from '../../clock.ts';
import { recordEvents, type EventSignal } from '../../events/outbox.ts';
import type { WebhookMetrics } from './metrics.ts';
import type { Logger } from '../../logger.ts';
import { inTransaction, sqlTx, type Database } from '../../storage/database.ts';
import type { AttemptResult } from './policy.ts';
import type { Queryable } from '../../storage/database.ts';
import { dropPending } from './queue/drop-pending.ts';
import type { ClaimedDelivery } from './queue/types.ts';

/**
 * Receiver health, the stage after `handle`: a registration whose receiver has failed every
 * attempt for `WEBHOOK_DISABLE_AFTER_HOURS` is disabled. See
 * docs/decisions/0107-disable-failing-receivers.md.
 *
 * The registration row holds `failing_since`: set (if unset) by a failed attempt, cleared by a
 * successful one. A failure finding it older than the limit disables the registration in one
 * transaction: `disabled_at` and the reason are set, what is still pending for it is dropped,
 * and a `receiver_disabled` event is recorded (the account's live subscribers get it, and other
 * receivers of the account that list it). From then on the
 * outbox queues nothing for it (src/events/outbox.ts) until the client registers again or calls
 * `enable` (src/notifications/service.ts). Times come from the injected clock, so that tests
 * can let 72 hours pass.
 */

/** What follows from an attempt for its receiver's health. */
export type HealthStep = 'failed' | 'succeeded' | 'none';

/**
 * Only the receiver's own answers count: a 2xx succeeded, any other answer or network failure
 * failed. An attempt this instance could not sign (key_unavailable) says nothing about the
 * receiver, and a 410 removes the registration anyway.
 */
export function healthStep(result: Pick<AttemptResult, 'outcome' | 'error'>): HealthStep {
  if (result.outcome === 'accepted') return 'succeeded';
  if (result.outcome === 'gone' || result.error === 'key_unavailable') return 'none';
  return 'failed';
}

/** Whether a receiver failing since `failingSince` is to be disabled at `now`; 0 hours: never. */
export function disableDue(failingSince: Date, now: Date, afterHours: number): boolean {
  return afterHours > 0 && now.getTime() - failingSince.getTime() >= afterHours * 3_600_000;
}

/** How often a success writes `failing_since = NULL` for a receiver this instance saw no failure of. */
export const CLEAR_EVERY_MS = 60_000;
/** Receivers whose last clear is remembered; beyond, the least recent are forgotten. */
const CLEAR_MEMORY = 10_000;

/**
 * When a success should clear the receiver's `failing_since`: at once after a failure this
 * instance saw, else at most every CLEAR_EVERY_MS (another instance may have seen the failure),
 * so that a healthy receiver costs no write per attempt. No I/O; times in ms.
 */
export class ClearSchedule {
  /** Receiver → when it was last cleared (-Infinity: failed since). */
  readonly #cleared = new Map<string, number>();

  failed(receiver: string): void {
    this.#cleared.delete(receiver);
    this.#remember(receiver, -Infinity);
  }

  /** A success at `now`: true if it should clear (and it counts as cleared from now). */
  succeeded(receiver: string, now: number): boolean {
    const last = this.#cleared.get(receiver);
    if (last !== undefined && now - last < CLEAR_EVERY_MS) return false;
    this.#cleared.delete(receiver);
    this.#remember(receiver, now);
    return true;
  }

  #remember(receiver: string, at: number): void {
    this.#cleared.set(receiver, at);
    if (this.#cleared.size > CLEAR_MEMORY) {
      this.#cleared.delete(this.#cleared.keys().next().value!);
    }
  }
}

export interface ReceiverHealthOptions {
  db: Database;
  pool: Queryable;
  clock: Clock;
  disableAfterHours: number;
  signal: EventSignal;
  metrics: WebhookMetrics | undefined;
  logger: Logger;
}

type Receiver = Pick<ClaimedDelivery, 'account_id' | 'client_id' | 'url'>;

const receiverKey = (r: Receiver) => `${r.account_id} ${r.client_id} ${r.url}`;

/** The health stage of one dispatcher. */
export class ReceiverHealth {
  readonly #options: ReceiverHealthOptions;
  readonly #schedule = new ClearSchedule();

  constructor(options: ReceiverHealthOptions) {
    this.#options = options;
  }

  /** Records what the attempt says about its receiver; never throws (logged instead). */
  async observe(delivery: ClaimedDelivery, result: AttemptResult): Promise<void> {
    const step = healthStep(result);
    if (step === 'none') return;
    const key = receiverKey(delivery);
    try {
      if (step === 'succeeded') {
        if (this.#schedule.succeeded(key, performance.now())) await this.#clear(delivery);
      } else {
        this.#schedule.failed(key);
        await this.#failed(delivery, result);
      }
    } catch (err) {
      this.#options.logger.warn(
        { err, accountId: delivery.account_id, clientId: delivery.client_id },
        "recording the receiver's health failed",
      );
    }
  }

  async #clear(r: Receiver): Promise<void> {
    await this.#options.pool.query(
      `UPDATE notification_registrations SET failing_since = NULL
        WHERE account_id = $1 AND client_id = $2 AND url = $3 AND failing_since IS NOT NULL`,
      [r.account_id, r.client_id, r.url],
    );
  }

  async #failed(r: Receiver, result: AttemptResult): Promise<void> {
    const now = this.#options.clock.now();
    const { rows } = await this.#options.pool.query<{ failing_since: Date }>(
      `UPDATE notification_registrations SET failing_since = coalesce(failing_since, $4)
        WHERE account_id = $1 AND client_id = $2 AND url = $3 AND disabled_at IS NULL
        RETURNING failing_since`,
      [r.account_id, r.client_id, r.url, now],
    );
    const since = rows[0]?.failing_since;
    if (since && disableDue(since, now, this.#options.disableAfterHours)) {
      await this.#disable(r, since, now, result);
    }
  }

  /** Disables the registration, drops its queue and tells subscribers, in one transaction. */
  async #disable(r: Receiver, since: Date, now: Date, result: AttemptResult): Promise<void> {
    const { db, disableAfterHours, signal, metrics, logger } = this.#options;
    const last = result.status === null ? result.error : `HTTP ${result.status}`;
    const reason = `every attempt failed for ${disableAfterHours} hours (since ${since.toISOString()}; the last: ${last})`;
    const stored = await inTransaction(db.pool, async (client) => {
      const disabled = await client.query(
        `UPDATE notification_registrations SET disabled_at = $4, disabled_reason = $5
          WHERE account_id = $1 AND client_id = $2 AND url = $3 AND disabled_at IS NULL
            AND failing_since = $6`,
        [r.account_id, r.client_id, r.url, now, reason, since],
      );
      if (!disabled.rowCount) return []; // enabled, re-registered or disabled meanwhile
      await dropPending(client, { accountId: r.account_id, clientId: r.client_id, url: r.url });
      return recordEvents(sqlTx(client), [
        {
          accountId: r.account_id,
          accessoryId: null,
          eventType: 'receiver_disabled',
          eventData: {
            clientId: r.client_id,
            url: r.url,
            failingSince: since.toISOString(),
            disabledAt: now.toISOString(),
            reason,
          },
        },
      ]);
    });
    if (stored.length === 0) return;
    signal.committed(stored);
    metrics?.webhookReceiversDisabled.inc();
    logger.warn(
      { accountId: r.account_id, clientId: r.client_id, failingSince: since },
      'receiver failed every attempt too long: registration disabled',
    );
  }
}
