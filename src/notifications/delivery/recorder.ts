import type pg from 'pg';
import { recordEvents, type EventSignal } from '../../events/outbox.ts';
import type { Logger } from '../../logger.ts';
import { inTransaction, sqlTx } from '../../storage/database.ts';
import { exhaustedEvent, exhausts } from './exhausted.ts';
import { claimDeliveries, type ClaimArgs } from './queue/claim.ts';
import { analyzeQueue } from './queue/reads.ts';
import { recordAndClaim } from './queue/record-and-claim.ts';
import { recordOutcomes } from './queue/record-outcomes.ts';
import type { ClaimedDelivery, Outcome } from './queue/types.ts';

/** Outcomes per statement. */
const RECORD_BATCH = 500;
/**
 * While outcomes come faster than BUSY_PER_SECOND, how long the first outcome of a batch waits
 * for others to join it. A statement costs the database about as much however few rows it
 * writes, and during a drain outcomes written as they came went out a few per statement,
 * hundreds of statements a second. Slower than that, each is written at once, so that the
 * delivery log shows an attempt's outcome right after the receiver answered.
 */
const GATHER_MS = 10;
const BUSY_PER_SECOND = 200;
/** The window the rate of outcomes is counted in. */
const RATE_WINDOW_MS = 100;
/** ANALYZE after this many outcomes... */
const ANALYZE_EVERY = 2000;
/** ...at most this often. */
const ANALYZE_MIN_INTERVAL_MS = 2000;
/**
 * A claim that takes this many deliveries after one found none: a burst the statistics (taken
 * while the queue was empty, or not yet) do not know of, so ANALYZE at once.
 */
const ANALYZE_BURST = 100;

/**
 * The record stage: outcomes queue here and are written in batches, one statement each (while
 * one is written, the next gathers; when busy, each batch gathers for GATHER_MS unless it is
 * full already). A batch that discards deliveries (their last attempt failed) is written in a
 * transaction with their `delivery_exhausted` events (exhausted.ts), so that an event exists
 * exactly when its discard committed; the others stay one statement. The dispatcher's claims
 * come here too (`claim`): while a batch gathers, a claim ends the gathering and rides the
 * batch's statement (queue/record-and-claim.ts), so that a busy drain pays one round trip for
 * both; while a statement is being written, or with no outcome to write, it goes alone at once,
 * never waiting for a write. It also keeps
 * the queue's statistics current while it churns (the embedded database has no autovacuum at
 * all): ANALYZE at start, after every ANALYZE_EVERY outcomes and on a burst (ANALYZE_BURST), at
 * most every ANALYZE_MIN_INTERVAL_MS. Planned from statistics of an empty queue, a claim sorts
 * every pending row instead of walking the due index (docs/decisions/0166-a-burst-is-analyzed.md).
 */
export class OutcomeRecorder {
  readonly #pool: pg.Pool;
  readonly #instanceId: string;
  readonly #logger: Logger;
  readonly #signal: EventSignal;
  readonly #gather: { ms: number; busyPerWindow: number };
  /** Outcomes queued in the current rate window and in the one before it. */
  #rate = { window: 0, count: 0, previous: 0 };
  #queued: { outcome: Outcome; done: () => void }[] = [];
  /** Ends the gathering of the batch being gathered. */
  #gathered: (() => void) | undefined;
  /** The claim that rides the batch being gathered. */
  #claim:
    | {
        args: ClaimArgs;
        resolve: (claimed: ClaimedDelivery[]) => void;
        reject: (err: unknown) => void;
      }
    | undefined;
  #flushing: Promise<void> | undefined;
  #sinceAnalyze = 0;
  #lastAnalyze = 0;
  #analyzing = false;
  /** The last claim found nothing. */
  #drained = false;
  /** A burst came (ANALYZE_BURST) that no ANALYZE has seen yet. */
  #burst = false;

  /** `signal` hears of the `delivery_exhausted` events once committed. */
  constructor(
    pool: pg.Pool,
    instanceId: string,
    logger: Logger,
    signal: EventSignal,
    gather = { ms: GATHER_MS, busyPerSecond: BUSY_PER_SECOND },
  ) {
    this.#gather = {
      ms: gather.ms,
      busyPerWindow: (gather.busyPerSecond * RATE_WINDOW_MS) / 1000,
    };
    this.#pool = pool;
    this.#instanceId = instanceId;
    this.#logger = logger;
    this.#signal = signal;
  }

  /** Queues an outcome for the next batch; resolves once it is written (or failed to be). */
  record(outcome: Outcome): Promise<void> {
    this.#count(performance.now());
    return new Promise((resolve) => {
      this.#queued.push({ outcome, done: resolve });
      this.#startFlush();
    });
  }

  /**
   * Leases due deliveries as `claimDeliveries` does: with the batch of outcomes being gathered,
   * which is written at once, or else alone (see the class).
   */
  claim(args: ClaimArgs): Promise<ClaimedDelivery[]> {
    return this.#lease(args).then((claimed) => {
      this.#claimed(claimed.length);
      return claimed;
    });
  }

  #lease(args: ClaimArgs): Promise<ClaimedDelivery[]> {
    const gathered = this.#gathered;
    if (gathered === undefined || this.#claim) return claimDeliveries(this.#pool, args);
    return new Promise((resolve, reject) => {
      this.#claim = { args, resolve, reject };
      gathered();
    });
  }

  /** A claim took `count` deliveries: the first one after an empty one may be a burst. */
  #claimed(count: number): void {
    if (count === 0) this.#drained = true;
    else if (this.#drained) {
      this.#drained = false;
      if (count >= ANALYZE_BURST) {
        this.#burst = true;
        this.#analyzeIfDue();
      }
    }
  }

  /** Waits up to GATHER_MS for outcomes to join the batch; a claim ends the wait. */
  #gathering(): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, this.#gather.ms);
      this.#gathered = () => {
        clearTimeout(timer);
        resolve();
      };
    }).finally(() => (this.#gathered = undefined));
  }

  /** Resolves once what is queued has been written. */
  async settled(): Promise<void> {
    while (this.#flushing) await this.#flushing;
  }

  /**
   * Writes what is queued, unless a flush is running. An outcome queued after a flush's last look
   * at the queue, before it ended, starts the next one.
   */
  #startFlush(): void {
    this.#flushing ??= this.#flush().finally(() => {
      this.#flushing = undefined;
      if (this.#queued.length > 0) this.#startFlush();
    });
  }

  #count(now: number): void {
    const window = Math.floor(now / RATE_WINDOW_MS);
    if (window !== this.#rate.window) {
      const previous = window === this.#rate.window + 1 ? this.#rate.count : 0;
      this.#rate = { window, count: 0, previous };
    }
    this.#rate.count++;
  }

  #busy(): boolean {
    return Math.max(this.#rate.count, this.#rate.previous) >= this.#gather.busyPerWindow;
  }

  async #flush(): Promise<void> {
    while (this.#queued.length > 0) {
      if (this.#busy() && this.#queued.length < RECORD_BATCH) await this.#gathering();
      const batch = this.#queued.splice(0, RECORD_BATCH);
      const outcomes = batch.map((b) => b.outcome);
      let claim = this.#claim;
      this.#claim = undefined;
      // A batch that discards is written in a transaction of its own; the claim goes alone.
      if (claim && outcomes.some(exhausts)) {
        claimDeliveries(this.#pool, claim.args).then(claim.resolve, claim.reject);
        claim = undefined;
      }
      try {
        const claimed = await this.#write(outcomes, claim?.args);
        this.churned(batch.length);
        claim?.resolve(claimed ?? []);
      } catch (err) {
        // The leases expire and the deliveries are attempted again: at least once.
        this.#logger.error({ err, count: batch.length }, 'recording delivery attempts failed');
        claim?.reject(err);
      }
      for (const b of batch) b.done();
    }
  }

  /**
   * One statement, with the claim of `claim` when given (answering what it claimed); in a
   * transaction with the `delivery_exhausted` events when the batch discards deliveries (of
   * those the statement did discard: its lease fences it).
   */
  async #write(outcomes: Outcome[], claim?: ClaimArgs): Promise<ClaimedDelivery[] | undefined> {
    if (!outcomes.some(exhausts)) {
      if (claim) return recordAndClaim(this.#pool, outcomes, claim);
      await recordOutcomes(this.#pool, this.#instanceId, outcomes);
      return undefined;
    }
    const stored = await inTransaction(this.#pool, async (client) => {
      const discarded = await recordOutcomes(client, this.#instanceId, outcomes);
      const at = new Date();
      const events = outcomes
        .filter((o) => exhausts(o) && discarded.has(o.delivery.id))
        .map((o) => exhaustedEvent(o, at));
      return recordEvents(sqlTx(client), events);
    });
    this.#signal.committed(stored);
    return undefined;
  }

  /** `outcomes` more were written (0: at start, which analyzes at once). */
  churned(outcomes: number): void {
    this.#sinceAnalyze += outcomes;
    this.#analyzeIfDue();
  }

  /**
   * ANALYZE at start, after ANALYZE_EVERY outcomes or on a burst, at most every
   * ANALYZE_MIN_INTERVAL_MS.
   */
  #analyzeIfDue(): void {
    const now = performance.now();
    const first = this.#lastAnalyze === 0;
    if (this.#analyzing || (this.#sinceAnalyze < ANALYZE_EVERY && !this.#burst && !first)) return;
    if (now - this.#lastAnalyze < ANALYZE_MIN_INTERVAL_MS && !first) return;
    this.#analyzing = true;
    this.#lastAnalyze = now;
    this.#sinceAnalyze = 0;
    this.#burst = false;
    analyzeQueue(this.#pool)
      .catch((err: unknown) => this.#logger.warn({ err }, 'analyzing the delivery queue failed'))
      .finally(() => (this.#analyzing = false));
  }
}
