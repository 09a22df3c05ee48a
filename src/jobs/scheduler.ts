import type { JobMetrics } from './metrics.ts';
import type { Logger } from '../logger.ts';

/**
 * One kind of background work of an instance: a purge, a sweep, a queue poll. Each round is
 * idempotent and safe to run on several instances at once (they share the work through the
 * database: batched deletes, leased claims), so no instance is special.
 */
export interface PeriodicJob {
  /** `<domain>.<what>`, e.g. `activities.retention`: the label of its metrics and logs. */
  name: string;
  /** Time between the end of one round and the start of the next; 0: only when asked (`runNow`). */
  everyMs: number;
  /** One round; resolves with how many items it handled. */
  run(): Promise<number>;
  /**
   * For work that can arrive between rounds: subscribes `wake` (a round now, as `runNow`) to
   * what signals it, and returns the unsubscription, which runs when the jobs stop.
   */
  wakeOn?(wake: () => void): () => void;
}

interface Entry {
  job: PeriodicJob;
  timer: NodeJS.Timeout | undefined;
  /** The round in progress, if any. */
  running: Promise<number> | undefined;
  /** A round asked for while one ran: it starts right after, and every caller waits for it. */
  again: Promise<number> | undefined;
  unsubscribe: (() => void) | undefined;
}

/**
 * The home of an instance's background work: named periodic jobs, started with the app and
 * stopped (waiting for rounds in progress) before the database closes. Rounds of one job never
 * overlap; a failed round is logged and counted, and the next one runs on schedule.
 */
export class Jobs {
  readonly #entries = new Map<string, Entry>();
  #started = false;
  #stopped = false;

  constructor(
    private readonly logger: Logger,
    private readonly metrics: JobMetrics,
  ) {}

  add(job: PeriodicJob): void {
    if (this.#entries.has(job.name)) throw new Error(`job ${job.name} is already registered`);
    const entry: Entry = {
      job,
      timer: undefined,
      running: undefined,
      again: undefined,
      unsubscribe: job.wakeOn?.(() => void this.runNow(job.name).catch(() => 0)),
    };
    this.#entries.set(job.name, entry);
    if (this.#started) this.#kick(entry);
  }

  /** Runs every job once now, then on its schedule. */
  start(): void {
    this.#started = true;
    for (const entry of this.#entries.values()) this.#kick(entry);
  }

  /**
   * Runs a job now (after the round in progress, if any) and resolves with what that round
   * handled. Several calls during one round share the next round.
   */
  runNow(name: string): Promise<number> {
    const entry = this.#entries.get(name);
    if (!entry) throw new Error(`no job ${name}`);
    if (this.#stopped) return Promise.resolve(0);
    if (!entry.running) return this.#round(entry);
    return (entry.again ??= entry.running
      .catch(() => 0)
      .then(() => {
        entry.again = undefined;
        return this.#round(entry);
      }));
  }

  /** No new rounds; resolves once the rounds in progress have ended. */
  async stop(): Promise<void> {
    this.#stopped = true;
    for (const entry of this.#entries.values()) {
      clearTimeout(entry.timer);
      entry.unsubscribe?.();
    }
    await Promise.allSettled(
      [...this.#entries.values()].flatMap((e) => [e.running, e.again].filter(Boolean)),
    );
  }

  #kick(entry: Entry): void {
    if (entry.job.everyMs <= 0) return;
    void this.runNow(entry.job.name).catch(() => 0);
  }

  #round(entry: Entry): Promise<number> {
    const { job } = entry;
    clearTimeout(entry.timer);
    const started = performance.now();
    const round = job.run().then(
      (items) => {
        this.metrics.jobRuns.inc({ job: job.name, result: 'ok' });
        this.metrics.jobItems.inc({ job: job.name }, items);
        if (items > 0) this.logger.info({ job: job.name, items }, 'background job round');
        return items;
      },
      (err: unknown) => {
        this.metrics.jobRuns.inc({ job: job.name, result: 'failed' });
        if (!this.#stopped) this.logger.error({ err, job: job.name }, 'background job failed');
        throw err;
      },
    );
    entry.running = round;
    void round
      .catch(() => 0)
      .finally(() => {
        this.metrics.jobDuration.observe({ job: job.name }, (performance.now() - started) / 1000);
        if (entry.running === round) entry.running = undefined;
        if (!this.#stopped && this.#started && job.everyMs > 0 && !entry.again) {
          entry.timer = setTimeout(() => void this.runNow(job.name).catch(() => 0), job.everyMs);
          entry.timer.unref();
        }
      });
    return round;
  }
}
