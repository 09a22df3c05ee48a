/**
 * Slowing down clients that ignore `Retry-After`. A refused request costs the service little,
 * yet a client that sends the next one the moment its 429 arrives, from many connections, keeps
 * a core busy answering refusals and slows every other client of the instance. So a caller's
 * first refusals in a second are answered at once, and each one after them is held for
 * `holdMs` before it is answered: such a client then gets at most one answer per connection
 * every `holdMs`, and a client that waits as told never notices. The same idea as
 * express-slow-down's, applied to refusals only. Counted per instance: it protects this
 * instance's event loop, whatever the shared buckets say.
 */
export interface PacingPolicy {
  /** Refusals per caller and second answered at once. */
  prompt: number;
  /** How long each further refusal of that second is held. */
  holdMs: number;
}

export const DEFAULT_PACING: PacingPolicy = { prompt: 50, holdMs: 200 };

export class RefusalPacer {
  /** Per caller: the second its count is of, and how many refusals it had in it. */
  readonly #seconds = new Map<string, { second: number; refusals: number }>();

  constructor(
    private readonly policy: PacingPolicy = DEFAULT_PACING,
    private readonly maxCallers = 100_000,
  ) {}

  /** Counts a refusal of `caller` at `now` (ms): how long to hold its answer. */
  refused(caller: string, now = Date.now()): number {
    const second = Math.floor(now / 1000);
    let entry = this.#seconds.get(caller);
    if (entry?.second !== second) {
      if (!entry && this.#seconds.size >= this.maxCallers) this.#prune(second);
      entry = { second, refusals: 0 };
      this.#seconds.set(caller, entry);
    }
    entry.refusals++;
    return entry.refusals > this.policy.prompt ? this.policy.holdMs : 0;
  }

  /** Forgets the callers not refused this second: their count starts again anyway. */
  #prune(second: number): void {
    for (const [caller, entry] of this.#seconds) {
      if (entry.second !== second) this.#seconds.delete(caller);
    }
  }
}
