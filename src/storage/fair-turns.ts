/**
 * Whose turn it is on a pool of connections shared by tenants (./fair-pool.ts): the policy alone,
 * with no connections and no clock. At most `size` turns run at once, and at most `share` of one
 * tenant's; work without a tenant (`undefined`: the jobs, the dispatcher) has no share of its own
 * and takes turns as one more tenant. A turn that cannot start waits behind its tenant's earlier
 * ones. When one ends, the tenant served least recently among those with work waiting and room in
 * their share goes next: a tenant's burst waits behind its own turns, never everyone else's.
 */
export class FairTurns<W> {
  /** Turns running per tenant (tenants with none are absent). */
  readonly #running = new Map<string | undefined, number>();
  /** Waiting work per tenant, oldest first (tenants with none are absent). */
  readonly #waiting = new Map<string | undefined, W[]>();
  /** When each tenant with work running or waiting last started a turn (a count of starts). */
  readonly #served = new Map<string | undefined, number>();
  #starts = 0;
  #total = 0;

  constructor(
    readonly size: number,
    readonly share: number,
  ) {}

  /** Turns running now. */
  get running(): number {
    return this.#total;
  }

  /** Work waiting for a turn now, of every tenant. */
  get waiting(): number {
    let n = 0;
    for (const queue of this.#waiting.values()) n += queue.length;
    return n;
  }

  /** Turns of `tenant` running now. */
  runningOf(tenant: string | undefined): number {
    return this.#running.get(tenant) ?? 0;
  }

  /** Whether `tenant` has taken its whole share (work without a tenant never has). */
  shareFull(tenant: string | undefined): boolean {
    return tenant !== undefined && this.runningOf(tenant) >= this.share;
  }

  /** Starts a turn of `tenant` now if there is room for it and none of its work waits: true. */
  tryStart(tenant: string | undefined): boolean {
    if (this.#total >= this.size || this.shareFull(tenant) || this.#waiting.has(tenant)) {
      return false;
    }
    this.#start(tenant);
    return true;
  }

  /** Queues `work` of `tenant`, to start when its turn comes (`end` hands it out). */
  wait(tenant: string | undefined, work: W): void {
    const queue = this.#waiting.get(tenant);
    if (queue) queue.push(work);
    else this.#waiting.set(tenant, [work]);
  }

  /** Takes waiting `work` out of the queue (it gave up): false if it is not waiting. */
  withdraw(tenant: string | undefined, work: W): boolean {
    const queue = this.#waiting.get(tenant);
    const at = queue?.indexOf(work) ?? -1;
    if (at < 0) return false;
    queue!.splice(at, 1);
    if (queue!.length === 0) this.#waiting.delete(tenant);
    this.#forgetIdle(tenant);
    return true;
  }

  /** Ends a turn of `tenant`: the waiting work whose turns start now, in that order. */
  end(tenant: string | undefined): W[] {
    const left = this.runningOf(tenant) - 1;
    if (left > 0) this.#running.set(tenant, left);
    else this.#running.delete(tenant);
    this.#total--;
    this.#forgetIdle(tenant);
    const started: W[] = [];
    for (let next = this.#next(); next !== undefined; next = this.#next()) {
      const [who, queue] = next;
      const work = queue.shift()!;
      if (queue.length === 0) this.#waiting.delete(who);
      this.#start(who);
      started.push(work);
    }
    return started;
  }

  /** The tenant whose waiting work goes next, with its queue; undefined when none may start. */
  #next(): [string | undefined, W[]] | undefined {
    if (this.#total >= this.size) return undefined;
    let best: [string | undefined, W[]] | undefined;
    let bestServed = Infinity;
    for (const [tenant, queue] of this.#waiting) {
      if (this.shareFull(tenant)) continue;
      const served = this.#served.get(tenant) ?? -1;
      if (served < bestServed) {
        best = [tenant, queue];
        bestServed = served;
      }
    }
    return best;
  }

  #start(tenant: string | undefined): void {
    this.#running.set(tenant, this.runningOf(tenant) + 1);
    this.#total++;
    this.#served.set(tenant, this.#starts++);
  }

  /** A tenant with nothing running or waiting is forgotten: it comes first when it asks again. */
  #forgetIdle(tenant: string | undefined): void {
    if (!this.#running.has(tenant) && !this.#waiting.has(tenant)) this.#served.delete(tenant);
  }
}
