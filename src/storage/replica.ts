import type pg from 'pg';
import type { Logger } from '../logger.ts';

/** A WAL position (`pg_lsn`, e.g. `16/B374D848`) as a number that orders like it. */
export function lsnValue(lsn: string): bigint {
  const [high, low] = lsn.split('/');
  return (BigInt(`0x${high}`) << 32n) | BigInt(`0x${low}`);
}

const MAX_SAMPLES = 4096;

/** What the replica's check found: for the metrics and the start log. */
export interface ReplicaState {
  /** Seconds the replica is behind the primary (0 when it has replayed all it was sent). */
  lagSeconds: number;
  /** Whether listing reads may go there at all (`DATABASE_READ_MAX_LAG_MS`). */
  inService: boolean;
}

export interface ReplicaReadsOptions {
  primary: pg.Pool;
  replica: pg.Pool;
  /** Beyond this lag the replica serves no reads until it is back under it. */
  maxLagMs: number;
  /** How often the primary's and the replica's positions are compared. */
  checkMs?: number;
  logger: Logger;
  now?: () => number;
}

/**
 * Routes listing reads between a streaming standby and its primary, so that the standby's lag
 * is never seen by the one who wrote.
 *
 * Every `checkMs` it notes the time, then the primary's WAL position (everything committed
 * before that time lies at or below it), and compares the standby's replayed position with the
 * positions noted: the latest time whose position the standby has replayed is the time it has
 * caught up to. A read for a key (an account) that wrote after that time goes to the primary;
 * any other read goes to the standby, unless the standby is more than `maxLagMs` behind or does
 * not answer, when every read goes to the primary until it catches up. A replica that is not a
 * standby (not in recovery: a logical copy, or a standby since promoted) cannot tell: every read
 * goes there.
 */
export class ReplicaReads {
  readonly #options: Required<ReplicaReadsOptions>;
  /** Positions of the primary, oldest first, not yet replayed by the standby. */
  #samples: { at: number; lsn: bigint }[] = [];
  #caughtUpTo: number;
  #inService = true;
  /** Whether the replica is a standby (a server in recovery); unknown before a check. */
  #standby: boolean | undefined;
  readonly #lastWrite = new Map<string, number>();
  #timer: NodeJS.Timeout | undefined;
  #checking: Promise<void> | undefined;

  constructor(options: ReplicaReadsOptions) {
    this.#options = { checkMs: 250, now: Date.now, ...options };
    this.#caughtUpTo = this.#options.now();
  }

  start(): void {
    void this.check();
    this.#timer = setInterval(() => void this.check(), this.#options.checkMs);
    this.#timer.unref();
  }

  async close(): Promise<void> {
    clearInterval(this.#timer);
    await this.#checking;
  }

  /** A write of `key` committed (on this instance): its next reads wait for the standby. */
  noteWrite(key: string): void {
    this.#lastWrite.set(key, this.#options.now());
  }

  /** Where a listing read for `key` goes. */
  poolFor(key: string): pg.Pool {
    if (!this.#inService) return this.#options.primary;
    if (this.#standby === false) return this.#options.replica;
    const wrote = this.#lastWrite.get(key);
    return wrote !== undefined && wrote > this.#caughtUpTo
      ? this.#options.primary
      : this.#options.replica;
  }

  state(): ReplicaState {
    const lagMs = Math.max(0, this.#options.now() - this.#caughtUpTo);
    return { lagSeconds: lagMs / 1000, inService: this.#inService };
  }

  /** One comparison of the two positions (the timer runs it; tests may too). */
  check(): Promise<void> {
    this.#checking ??= this.#check().finally(() => (this.#checking = undefined));
    return this.#checking;
  }

  async #check(): Promise<void> {
    const { primary, replica, now, logger } = this.#options;
    try {
      const at = now();
      const sent = await primary.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn');
      this.#samples.push({ at, lsn: lsnValue(sent.rows[0]!.lsn) });
      // A standby that stays behind for long: dropping the oldest positions only makes the time
      // it has caught up to later to reach, never early.
      if (this.#samples.length > MAX_SAMPLES) this.#samples.shift();
      // A server out of recovery keeps the position its last recovery replayed to (a crash's,
      // or a standby's before promotion): only a server in recovery is a standby.
      const replayed = await replica.query<{ lsn: string | null }>(
        'SELECT CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn()::text END AS lsn',
      );
      const lsn = replayed.rows[0]!.lsn;
      const position = lsn === null ? undefined : lsnValue(lsn);
      this.#standby = position !== undefined;
      let caught = -1;
      this.#samples.forEach((sample, i) => {
        if (position === undefined || sample.lsn <= position) caught = i;
      });
      if (caught >= 0) {
        this.#caughtUpTo = this.#samples[caught]!.at;
        this.#samples = this.#samples.slice(caught + 1);
      }
    } catch (err) {
      // The standby (or the primary) did not answer: its position is unknown, so its lag grows.
      logger.debug({ err }, 'read replica check failed');
    }
    for (const [key, wrote] of this.#lastWrite) {
      if (wrote <= this.#caughtUpTo) this.#lastWrite.delete(key);
    }
    const lagMs = now() - this.#caughtUpTo;
    const inService = lagMs <= this.#options.maxLagMs;
    if (inService !== this.#inService) {
      this.#inService = inService;
      if (inService) logger.info({ lagMs }, 'read replica caught up: listing reads go there again');
      else logger.warn({ lagMs }, 'read replica is behind: listing reads go to the primary');
    }
  }
}
