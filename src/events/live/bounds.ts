/**
 * The bounds on what the live path waits for. Every place that holds an event (for order, for a
 * catch-up from the log, for the bus to confirm a channel) waits at most this long, and tells
 * the observer when a bound fired (docs/decisions/0048-live-waits-bounded.md).
 */
export interface LiveBounds {
  /**
   * How often every topic's last emitted event is compared with its stream's last logged one
   * (`LIVE_CHECK_MS`): an event that committed without reaching the bus (its committer lost its
   * connection, or died, before publishing) is read from the log within about this long, even
   * when no other event follows.
   */
  checkMs: number;
  /** A check found the stream ahead: how long the bus may still bring it before the log is read. */
  checkGraceMs: number;
  /**
   * A read of the event log (a topic's baseline or catch-up, a replay page, a check): past this
   * it counts as failed (the topic's subscribers end with UNAVAILABLE and resume with `after`).
   */
  logReadMs: number;
  /** How long a topic waits for the bus to confirm its channel before it goes live without. */
  listenMs: number;
}

export const defaultBounds: LiveBounds = {
  checkMs: 1000,
  checkGraceMs: 200,
  logReadMs: 5000,
  listenMs: 2000,
};

/** What waited too long, as the observer hears of it (and the metric's `wait` label says). */
export type LiveWait = 'log' | 'listen' | 'check';

/** Why a topic read events from the log instead of the bus. */
export type RepairCause = 'overtaken' | 'reconnect' | 'check';

/** A read of the event log that ran past its bound. */
export class LogReadTimeout extends Error {
  constructor(ms: number) {
    super(`reading the event log took longer than ${ms} ms`);
  }
}
