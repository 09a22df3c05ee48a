/**
 * How much of an instance one caller's GraphQL operations may take at once. The cost budget
 * (RATE_LIMIT_COST) bounds what a caller runs per second, but not when: a client that sends its
 * allowed operations together, from many connections, has them all execute at the same moment,
 * and every other client's requests wait behind them. So each caller may have operations worth
 * at most `capacity` cost points executing at once on an instance (by default the costliest
 * operation the limits allow, so one such operation at a time); the next waits, in arrival
 * order, until enough of them have finished. Nothing is refused here: what was charged runs, a
 * little later.
 */
export class CostShares {
  readonly #callers = new Map<string, Caller>();

  constructor(readonly capacity: number) {}

  /** Callers with operations running or waiting now (tests). */
  get callers(): number {
    return this.#callers.size;
  }

  /**
   * Resolves once `caller` may start an operation of `cost`, with the function to call when it
   * has ended (once; later calls do nothing).
   */
  acquire(caller: string, cost: number): Promise<() => void> {
    let entry = this.#callers.get(caller);
    if (!entry) {
      entry = { running: 0, waiting: [] };
      this.#callers.set(caller, entry);
    }
    if (entry.waiting.length === 0 && this.#fits(entry, cost)) {
      return Promise.resolve(this.#start(caller, entry, cost));
    }
    const waiting = entry;
    return new Promise((resolve) => waiting.waiting.push({ cost, start: resolve }));
  }

  #fits(entry: Caller, cost: number): boolean {
    return entry.running === 0 || entry.running + cost <= this.capacity;
  }

  #start(caller: string, entry: Caller, cost: number): () => void {
    entry.running += cost;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      entry.running -= cost;
      for (
        let next = entry.waiting[0];
        next && this.#fits(entry, next.cost);
        next = entry.waiting[0]
      ) {
        entry.waiting.shift();
        next.start(this.#start(caller, entry, next.cost));
      }
      if (entry.running === 0 && entry.waiting.length === 0) this.#callers.delete(caller);
    };
  }
}

interface Caller {
  /** The cost of the caller's operations executing now. */
  running: number;
  waiting: { cost: number; start: (release: () => void) => void }[];
}
