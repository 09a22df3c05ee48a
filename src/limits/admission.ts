import type { Principal } from '../accounts/auth.ts';
import type { LimitsConfig } from '../config.ts';
import { callerOf } from './rate.ts';
import { CostShares } from './shares.ts';

/**
 * Fair admission: how many requests of one caller (OAuth client and account) execute at once on
 * an instance, `RATE_LIMIT_CONCURRENCY` (for ingest tokens scaled as their request rate is). The
 * rate limit says how many requests a caller gets per second, not how many run at once: a
 * client spending its burst from sixteen connections had sixteen requests executing together,
 * and, were they slow, all of the database pool's connections; every other client's request
 * then waited for one. Here the caller's requests beyond its share wait, in arrival order, for
 * its earlier ones to end; other callers go past them. Nothing is refused:
 * a request admitted by the rate limit runs, a little later. REST operations and GraphQL queries
 * and mutations take a share; subscriptions do not (they run for as long as they are subscribed).
 */
export class Admission {
  readonly #shares: { standard: CostShares; ingest: CostShares } | undefined;

  constructor(config: LimitsConfig) {
    if (config.rateRps === 0 || config.concurrency === 0) return;
    const ingest = Math.max(
      config.concurrency,
      Math.floor((config.concurrency * config.ingestRps) / config.rateRps),
    );
    this.#shares = {
      standard: new CostShares(config.concurrency),
      ingest: new CostShares(ingest),
    };
  }

  /**
   * Resolves once the caller may start one more request, with the function to call when it has
   * ended (once; later calls do nothing).
   */
  enter(principal: Principal): Promise<() => void> {
    if (!this.#shares) return Promise.resolve(ended);
    const shares = principal.scopes.has('ingest') ? this.#shares.ingest : this.#shares.standard;
    return shares.acquire(callerOf(principal), 1);
  }
}

const ended = () => undefined;
