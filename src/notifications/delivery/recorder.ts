import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../../logger.ts';
import { analyzeQueue, recordOutcomes, type Outcome, type Queryable } from './sql.ts';

/** Outcomes per statement. */
const RECORD_BATCH = 500;
/**
 * How long the first outcome of a batch waits for others to join it. A statement costs the
 * database about a millisecond however few rows it writes (mostly planning over the partitions),
 * while an outcome may wait: its delivery stays leased until it is written.
 */
const GATHER_MS = 10;
/** ANALYZE after this many outcomes... */
const ANALYZE_EVERY = 2000;
/** ...at most this often. */
const ANALYZE_MIN_INTERVAL_MS = 2000;

/**
 * The record stage: outcomes queue here and are written in batches, one statement each: each
 * batch gathers for GATHER_MS (unless it is full already) before it is written. It also keeps
 * the queue's statistics current while it churns (the embedded database has no autovacuum at
 * all): ANALYZE at start and after every ANALYZE_EVERY outcomes, at most every
 * ANALYZE_MIN_INTERVAL_MS.
 */
export class OutcomeRecorder {
  readonly #pool: Queryable;
  readonly #instanceId: string;
  readonly #logger: Logger;
  readonly #gatherMs: number;
  #queued: { outcome: Outcome; done: () => void }[] = [];
  #flushing: Promise<void> | undefined;
  #sinceAnalyze = 0;
  #lastAnalyze = 0;
  #analyzing = false;

  constructor(pool: Queryable, instanceId: string, logger: Logger, gatherMs = GATHER_MS) {
    this.#gatherMs = gatherMs;
    this.#pool = pool;
    this.#instanceId = instanceId;
    this.#logger = logger;
  }

  /** Queues an outcome for the next batch; resolves once it is written (or failed to be). */
  record(outcome: Outcome): Promise<void> {
    return new Promise((resolve) => {
      this.#queued.push({ outcome, done: resolve });
      this.#flushing ??= this.#flush().finally(() => (this.#flushing = undefined));
    });
  }

  /** Resolves once what is queued has been written. */
  async settled(): Promise<void> {
    await this.#flushing;
  }

  async #flush(): Promise<void> {
    while (this.#queued.length > 0) {
      if (this.#queued.length < RECORD_BATCH) await sleep(this.#gatherMs);
      const batch = this.#queued.splice(0, RECORD_BATCH);
      try {
        await recordOutcomes(
          this.#pool,
          this.#instanceId,
          batch.map((b) => b.outcome),
        );
        this.churned(batch.length);
      } catch (err) {
        // The leases expire and the deliveries are attempted again: at least once.
        this.#logger.error({ err, count: batch.length }, 'recording delivery attempts failed');
      }
      for (const b of batch) b.done();
    }
  }

  /** `outcomes` more were written (0: at start, which analyzes at once). */
  churned(outcomes: number): void {
    this.#sinceAnalyze += outcomes;
    const now = performance.now();
    if (this.#analyzing || (this.#sinceAnalyze < ANALYZE_EVERY && this.#lastAnalyze !== 0)) return;
    if (now - this.#lastAnalyze < ANALYZE_MIN_INTERVAL_MS && this.#lastAnalyze !== 0) return;
    this.#analyzing = true;
    this.#lastAnalyze = now;
    this.#sinceAnalyze = 0;
    analyzeQueue(this.#pool)
      .catch((err: unknown) => this.#logger.warn({ err }, 'analyzing the delivery queue failed'))
      .finally(() => (this.#analyzing = false));
  }
}
