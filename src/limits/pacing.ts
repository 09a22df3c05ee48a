import { type BucketPolicy, MemoryBuckets } from './gcra.ts';

/**
 * Slowing down clients that ignore `Retry-After`. A refused request costs the service little,
 * yet a client that sends the next one the moment its 429 arrives, from many connections, keeps
 * a core busy answering refusals and slows every other client of the instance. So a caller's
 * refusals are answered at once up to `prompt` a second, and each one beyond that is held for
 * `holdMs` before it is answered: such a client then gets at most one answer per connection
 * every `holdMs`, and a client that waits as told never notices. The same idea as
 * express-slow-down's, applied to refusals only. Counted per instance: it protects this
 * instance's event loop, whatever the shared buckets say.
 *
 * The prompt refusals are a token bucket (a burst of `prompt`, then `prompt` a second spread
 * evenly), not a count per clock second: with a count, every flooding client's next fifty
 * refusals came together at the start of each second, about 15 ms of the event loop in
 * one piece that the other clients' requests waited behind.
 */
export interface PacingPolicy {
  /** Refusals per caller and second answered at once (and as many in a burst). */
  prompt: number;
  /** How long each further refusal is held. */
  holdMs: number;
}

export const DEFAULT_PACING: PacingPolicy = { prompt: 50, holdMs: 200 };

export class RefusalPacer {
  readonly #buckets = new MemoryBuckets();
  readonly #prompt: BucketPolicy;

  constructor(private readonly policy: PacingPolicy = DEFAULT_PACING) {
    this.#prompt = { name: 'prompt-refusals', ratePerSecond: policy.prompt, burst: policy.prompt };
  }

  /** Counts a refusal of `caller` at `now` (ms): how long to hold its answer. */
  refused(caller: string, now = Date.now()): number {
    return this.#buckets.take(caller, this.#prompt, 1, now).allowed ? 0 : this.policy.holdMs;
  }
}
