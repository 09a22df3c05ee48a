import type pg from 'pg';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Clock } from '../../clock.ts';
import type { WebhookConfig } from '../../config.ts';
import type { EventSignal } from '../../events/outbox.ts';
import type { WebhookMetrics, WebhookQueueStats } from './metrics.ts';
import type { Logger } from '../../logger.ts';
import type { Database } from '../../storage/database.ts';
import { rememberOpened, type SecretBox } from '../secrets.ts';
import { attemptMaxMs, createSender, type Sender } from '../sender.ts';
import { createPublishers } from '../destinations/publishers.ts';
import { createDestinationSender } from '../destinations/sender.ts';
import { ReceiverHealth } from './health.ts';
import type { AttemptResult } from './policy.ts';
import { OutcomeRecorder } from './recorder.ts';
import { GoneReceivers, PREFETCH_MAX_AGE_MS, Slots, type ClaimLimits } from './slots.ts';
import { handBack } from './queue/hand-back.ts';
import { dispatcherPool } from './queue/pool.ts';
import { nextDueMs, queueStats } from './queue/reads.ts';
import type { ClaimedDelivery } from './queue/types.ts';
import { call, handle, prepare, record, type StageContext } from './stages.ts';
import { ReceiverPauses, ReceiverThrottle } from './throttle.ts';
import { claimBackoffMs, untilNextDue, Wakeups } from './wakeups.ts';

/**
 * The webhook dispatcher: sends the deliveries the outbox queued (src/events/outbox.ts), at
 * least once, logging every attempt. See docs/decisions/0084-dispatcher-stages.md. One pass of its
 * loop, and one delivery's way through it, in stages named as in the code:
 *
 * 1. claim: one statement leases due deliveries to this instance (queue/claim.ts), no more than its
 *    slots and prefetch leave room for (slots.ts); saturated receiver origins are left out (a
 *    fast one until half its prefetch is free), and the registrations of an origin take turns.
 *    A claim made while a batch of outcomes gathers rides the batch's statement (recorder.ts,
 *    queue/record-and-claim.ts).
 * 2. admit: each starts at once in a free slot of its origin, or waits prefetched for one (in
 *    its registration's turn); one that waited too long is handed back unsent.
 * 3. prepare: the receiver's key is opened and the request built (policy.ts); a key this
 *    instance cannot open is an attempt not sent (key_unavailable).
 * 4. gate: a registration paused by its receiver's "slow down" is handed back to fall due at
 *    the pause's end; one with `maxPerSecond` waits for its start, or is handed back to fall
 *    due at it (throttle.ts).
 * 5. call: the signed POST (sender.ts).
 * 6. handle: success (2xx: delivered) or failure: a 410 removes the registration and drops its
 *    queue; anything else is retried after the next delay, or discarded after the last
 *    (policy.ts). The slot frees here; the delivery stays leased until its outcome is written.
 * 7. health: the receiver's failures are counted; failing too long disables it (health.ts).
 * 8. record: the outcome joins the next batched write (recorder.ts), effective only while this
 *    instance holds that attempt's lease (fenced by `attempt_count`); a discard records its
 *    `delivery_exhausted` event with it (exhausted.ts).
 *
 * Then it waits for a wake-up (wakeups.ts). No transaction is held while sending. The claim and
 * the record are where work is batched (CLAIM_BATCH rows per claim, a batch of outcomes per
 * write): each is one function over a list.
 */

/** Attempts in flight per receiver origin. */
const PER_ORIGIN = 16;
/** Half of what the instance may hold in all, in flight and prefetched (slots.ts). */
const MAX_IN_FLIGHT = 256;
const CLAIM_BATCH = 400;
const POLL_INTERVAL_MS = 1000;
/**
 * How long the loop waits for a wake-up when nothing at all is pending. On PostgreSQL other
 * instances queue work too (their notices may be lost), so it polls as ever. On the embedded
 * database this instance is the only one: all that can become due is what it queues (a commit's
 * wake-up) or hands back (its due time), so an idle service does not plan a claim every second
 * on the connection that every request shares.
 */
const IDLE_POLL_MS = { postgres: POLL_INTERVAL_MS, embedded: 10_000 };
const STATS_CACHE_MS = 1000;
/** Room to write an outcome after the attempt. */
const RECORD_MARGIN_MS = 2000;

/**
 * The lease of a claimed delivery: it may wait (prefetched) up to PREFETCH_MAX_AGE_MS for a
 * slot, then take a whole attempt, then its outcome is recorded.
 */
const leaseMs = (timeoutMs: number) =>
  PREFETCH_MAX_AGE_MS + attemptMaxMs(timeoutMs) + RECORD_MARGIN_MS;

export interface DispatcherOptions {
  db: Database;
  webhook: WebhookConfig;
  secrets: SecretBox;
  logger: Logger;
  signal: EventSignal;
  metrics?: WebhookMetrics;
  clock: Clock;
}

export class Dispatcher {
  readonly #instanceId = randomUUID();
  readonly #pool: pg.Pool;
  readonly #endPool: () => Promise<void>;
  readonly #leaseMs: number;
  readonly #idlePollMs: number;
  readonly #logger: Logger;
  readonly #metrics: WebhookMetrics | undefined;
  readonly #sender: Sender;
  readonly #slots = new Slots<ClaimedDelivery>({ perOrigin: PER_ORIGIN, total: MAX_IN_FLIGHT });
  readonly #gone = new GoneReceivers();
  readonly #wakeups: Wakeups;
  readonly #recorder: OutcomeRecorder;
  readonly #stages: StageContext;
  readonly #throttle: ReceiverThrottle;
  readonly #pauses = new ReceiverPauses();
  readonly #health: ReceiverHealth;
  readonly #tasks = new Set<Promise<void>>();
  #started = false;
  #stopped = false;
  #loop: Promise<void> | undefined;
  #closing: Promise<void> | undefined;
  #stats: { at: number; value: Promise<WebhookQueueStats> } | undefined;
  /** A claim is running; a slot freed meanwhile (see #roomFreed). */
  #claiming = false;
  #freedWhileClaiming = false;
  /**
   * When the earliest delivery this instance handed back for later, or scheduled a retry of,
   * falls due (performance.now() ms): the loop looks again then.
   */
  #dueAt: number | undefined;

  constructor(options: DispatcherOptions) {
    this.#logger = options.logger.child({ component: 'dispatcher', instance: this.#instanceId });
    const { pool, end } = dispatcherPool(options.db);
    this.#pool = pool;
    this.#endPool = end;
    this.#leaseMs = leaseMs(options.webhook.timeoutMs);
    this.#idlePollMs = IDLE_POLL_MS[options.db.kind];
    this.#metrics = options.metrics;
    const { timeoutMs, allowPrivateNetworks } = options.webhook;
    this.#sender = createDestinationSender({
      webhook: createSender({
        timeoutMs,
        allowPrivateNetworks,
        connectionsPerOrigin: PER_ORIGIN,
        logger: this.#logger,
      }),
      publishers: createPublishers({ allowPrivateNetworks }),
      timeoutMs,
    });
    this.#wakeups = new Wakeups({
      db: options.db,
      signal: options.signal,
      queued: (origins) => this.#queued(origins),
      instanceId: this.#instanceId,
      logger: this.#logger,
    });
    this.#recorder = new OutcomeRecorder(pool, this.#instanceId, this.#logger, options.signal);
    this.#stages = {
      pool,
      secrets: rememberOpened(options.secrets),
      sender: this.#sender,
      recorder: this.#recorder,
      gone: this.#gone,
      pauses: this.#pauses,
      retryDelaysMs: options.webhook.retryDelaysMs,
      clock: options.clock,
      logger: this.#logger,
      metrics: this.#metrics,
    };
    this.#throttle = new ReceiverThrottle(pool);
    this.#health = new ReceiverHealth({
      db: options.db,
      pool,
      clock: options.clock,
      disableAfterHours: options.webhook.disableAfterHours,
      signal: options.signal,
      metrics: this.#metrics,
      logger: this.#logger,
    });
    if (this.#metrics) this.#metrics.webhookQueue.stats = () => this.#queueStats();
  }

  /** Starts claiming; pending work of an earlier run (or a dead instance) resumes. */
  start(): void {
    if (this.#started || this.#stopped) return;
    this.#started = true;
    this.#recorder.churned(0); // analyzes the queue at once
    this.#loop = this.#run();
    this.#wakeups.start();
  }

  /** Looks for due work now (new deliveries, a freed slot). Cheap and coalescing. */
  wake(): void {
    this.#wakeups.wake();
  }

  /**
   * Stops: no new claims; the attempts in flight finish and are recorded. What is still pending
   * stays in the database for the next start (or another instance).
   */
  close(): Promise<void> {
    return (this.#closing ??= this.#close());
  }

  async #close(): Promise<void> {
    this.#stopped = true;
    await this.#wakeups.close();
    await this.#loop;
    // Prefetched deliveries were not attempted: give their leases back for the next start.
    const handedBack = this.#handBack(this.#slots.drain());
    while (this.#tasks.size > 0) await Promise.all([...this.#tasks]);
    await handedBack;
    await this.#recorder.settled();
    await this.#sender.close();
    if (this.#metrics?.webhookQueue.stats) this.#metrics.webhookQueue.stats = undefined;
    await this.#endPool();
  }

  async #run(): Promise<void> {
    let failures = 0;
    while (!this.#stopped) {
      this.#wakeups.clear();
      // This pass is the look that a due time asked for.
      if (this.#dueAt !== undefined && performance.now() >= this.#dueAt) this.#dueAt = undefined;
      let delay: number | undefined;
      try {
        const room = this.#slots.room();
        if (room > 0) {
          const limit = Math.min(room, CLAIM_BATCH);
          const limits = this.#slots.claimLimits();
          const since = this.#slots.mark();
          this.#claiming = true;
          this.#freedWhileClaiming = false;
          let claimed: ClaimedDelivery[];
          try {
            claimed = await this.#claim(limit, limits);
          } finally {
            this.#claiming = false;
          }
          this.#admit(claimed);
          this.#slots.settled(limits, claimed, claimed.length < limit, since);
          failures = 0;
          if (claimed.length === limit) continue; // there may be more, e.g. for other origins
          if (this.#freedWhileClaiming && this.#slots.claimAgain()) continue;
          // Took what it could (what is left, if anything, is its saturated origins': looking
          // for it again would walk past all of it): the next look is at a wake-up, a freed
          // slot or new work, or at the poll.
          if (claimed.length === 0) {
            const due = await nextDueMs(this.#pool, this.#slots.saturated());
            delay =
              due === null
                ? this.#idlePollMs
                : untilNextDue(due, this.#slots.full(), POLL_INTERVAL_MS);
          }
        }
      } catch (err) {
        if (this.#stopped) break;
        failures++;
        this.#logger.error({ err }, 'claiming deliveries failed');
        delay = claimBackoffMs(failures);
      }
      if (this.#stopped) continue;
      await this.#wakeups.sleep(this.#untilDue(delay ?? POLL_INTERVAL_MS));
    }
  }

  /** `delayMs`, or less when something this instance scheduled falls due sooner. */
  #untilDue(delayMs: number): number {
    if (this.#dueAt === undefined) return delayMs;
    return Math.max(0, Math.min(delayMs, Math.ceil(this.#dueAt - performance.now())));
  }

  /** A delivery falls due in `delayMs` (handed back for later, or its retry). */
  #expectDue(delayMs: number): void {
    const at = performance.now() + delayMs;
    if (this.#dueAt === undefined || at < this.#dueAt) this.#dueAt = at;
    this.wake(); // ends the loop's sleep, so that the next one is measured to it
  }

  /**
   * Deliveries of `origins` are due and unclaimed (queued by a commit, or handed back): their
   * origins are behind until a claim takes them. Whether a claim now could take some.
   */
  #queued(origins: ReadonlySet<string>): boolean {
    this.#slots.queued(origins);
    return this.#slots.roomFor(origins);
  }

  /**
   * claim: leases up to `limit` due deliveries, within the room of each origin, with the batch
   * of outcomes being gathered, if any (recorder.ts).
   */
  #claim(limit: number, limits: ClaimLimits): Promise<ClaimedDelivery[]> {
    return this.#recorder.claim({
      instanceId: this.#instanceId,
      leaseMs: this.#leaseMs,
      limit,
      limits,
      perOrigin: PER_ORIGIN,
    });
  }

  /**
   * A slot freed and its origin (or the instance) has room again: a claim, now or, while one
   * runs, after it if it leaves room it did not look for (Slots.claimAgain).
   */
  #roomFreed(): void {
    if (this.#claiming) this.#freedWhileClaiming = true;
    else this.wake();
  }

  /** admit: starts what has a free slot, prefetches the rest. */
  #admit(claimed: ClaimedDelivery[]): void {
    const claimedAt = performance.now();
    const skipped: ClaimedDelivery[] = [];
    for (const delivery of claimed) {
      // Its receiver just answered 410: it is being dropped with the registration.
      if (this.#gone.has(delivery, claimedAt)) skipped.push(delivery);
      else if (this.#stopped) this.#slots.prefetch(delivery, claimedAt);
      else if (this.#slots.admit(delivery, claimedAt)) this.#start(delivery);
    }
    void this.#handBack(skipped);
  }

  /** Runs the attempt of a delivery that holds a slot; the slot frees once it is handled. */
  #start(delivery: ClaimedDelivery): void {
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      const wasFull = this.#slots.room() <= 0;
      this.#slots.release(delivery);
      this.#startNext(delivery.origin);
      // A claim is due once the origin has room enough again (fast ones refill in batches) and
      // may have due deliveries the last claims left, or when the instance had no room at all.
      if (
        wasFull ||
        (this.#slots.claimable(delivery.origin) && this.#slots.behind(delivery.origin))
      ) {
        this.#roomFreed();
      }
    };
    const task: Promise<void> = this.#dispatch(delivery, release)
      .catch((err: unknown) => {
        this.#logger.error(
          { err, deliveryId: delivery.id },
          'delivery attempt failed unexpectedly',
        );
        this.wake();
      })
      .finally(() => {
        release();
        this.#tasks.delete(task);
      });
    this.#tasks.add(task);
  }

  /** A slot of `origin` freed: its next prefetched delivery starts in it. */
  #startNext(origin: string): void {
    if (this.#stopped) return;
    const { start, expired } = this.#slots.next(origin, performance.now(), (d, claimedAt) =>
      this.#gone.has(d, claimedAt),
    );
    void this.#handBack(expired);
    if (start) this.#start(start);
  }

  /** One attempt at a claimed delivery, stage by stage (stages.ts). */
  async #dispatch(delivery: ClaimedDelivery, release: () => void): Promise<void> {
    const prepared = prepare(this.#stages, delivery);
    let result: AttemptResult;
    let startedAt = new Date();
    if ('request' in prepared) {
      // Its receiver said "slow down": back in the queue until the pause ends.
      const pausedMs = this.#pauses.remaining(delivery);
      if (pausedMs > 0) {
        release();
        await this.#handBack([delivery], pausedMs);
        this.#expectDue(pausedMs);
        return;
      }
      const gate = await this.#throttle.admit(delivery);
      if ('deferMs' in gate) {
        release();
        await this.#handBack([delivery], gate.deferMs);
        this.#expectDue(gate.deferMs);
        return;
      }
      if (gate.waitMs > 0) await sleep(gate.waitMs);
      startedAt = new Date();
      result = await call(this.#stages, delivery, prepared.request);
      this.#slots.observe(delivery.origin, result.durationMs); // sets its origin's prefetch mode
    } else {
      result = prepared.unsent;
    }
    const handled = await handle(this.#stages, delivery, result);
    const { next } = handled;
    result = handled.result;
    await this.#health.observe(delivery, result);
    // The slot frees once handled (a 410's registration is gone by now, so the slot claims
    // nothing more for it); the delivery stays leased until its outcome is written.
    release();
    await record(this.#stages, { delivery, startedAt, result, next });
    // Written: its retry may fall due before the loop would look again.
    if (next.state === 'pending') this.#expectDue(next.delayMs);
  }

  /**
   * Gives up the leases of claimed deliveries that were not attempted, due in `delayMs`, and
   * none before its registration's pause ends (on a shutdown, too: the next instance waits).
   */
  async #handBack(deliveries: ClaimedDelivery[], delayMs = 0): Promise<void> {
    const now = Date.now();
    const byDelay = new Map<number, ClaimedDelivery[]>();
    for (const d of deliveries) {
      const ms = Math.max(delayMs, this.#pauses.remaining(d, now));
      const some = byDelay.get(ms);
      if (some) some.push(d);
      else byDelay.set(ms, [d]);
    }
    await Promise.all([...byDelay].map(([ms, some]) => this.#handBackAfter(some, ms)));
  }

  async #handBackAfter(deliveries: ClaimedDelivery[], delayMs: number): Promise<void> {
    try {
      await handBack(this.#pool, this.#instanceId, deliveries, delayMs);
      // Due again at once: claimed now if their origins have room, else as a slot frees.
      if (delayMs === 0 && this.#queued(new Set(deliveries.map((d) => d.origin)))) this.wake();
    } catch (err) {
      // Their leases expire instead.
      this.#logger.warn(
        { err, count: deliveries.length },
        'handing back claimed deliveries failed',
      );
    }
  }

  /** Pending deliveries and the age of the oldest, for the metrics (cached for a second). */
  #queueStats(): Promise<WebhookQueueStats> {
    const now = Date.now();
    if (this.#stats && now - this.#stats.at < STATS_CACHE_MS) return this.#stats.value;
    const value = queueStats(this.#pool);
    this.#stats = { at: now, value };
    value.catch(() => (this.#stats = undefined));
    return value;
  }
}
