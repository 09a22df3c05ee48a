/**
 * What one instance holds of the delivery queue, per receiver origin (scheme://host:port): the
 * attempts in flight (its slots) and the deliveries claimed ahead for it (prefetched). No I/O;
 * the dispatcher passes the clock in. See docs/decisions/0087-per-origin-slots.md.
 *
 * - Slots: at most `perOrigin` attempts in flight per origin, so a slow or dead receiver only
 *   ever occupies its own. An origin holding as much as it may is *saturated* and left out of
 *   the claim. In all, the instance claims while it holds (in flight and prefetched) fewer than
 *   twice `total`.
 * - Prefetch: a receiver that answers fast gets 3 to 24 times `perOrigin` more deliveries (the
 *   faster, the more) claimed ahead, which start the moment one of its slots frees, so that its
 *   slots never wait for a claim. A prefetched delivery that waited PREFETCH_MAX_AGE_MS is
 *   expired instead (the dispatcher hands it back unsent), which bounds its lease and how late a
 *   change of its registration can go unseen.
 * - Turns: an origin's slots and prefetch are shared between the registrations (account and
 *   client) that have deliveries of it: the claim is told how many each holds (`claimLimits`)
 *   and takes the next deliveries of those holding fewest first (queue/claim.ts), and a freed
 *   slot starts the prefetched deliveries of its registrations in turn. So one registration's
 *   backlog does not hold its host's other tenants behind it; alone, it may use all of them.
 */

/** A prefetched delivery older than this is expired rather than started. */
export const PREFETCH_MAX_AGE_MS = 1000;
/** Receivers answering faster than this on average get deliveries prefetched for them. */
const PREFETCH_FAST_MS = 250;
/**
 * How many slots' worth a fast receiver may have prefetched, beyond those in flight: as many as
 * it answers in PREFETCH_HORIZON_MS at its average duration, at least PREFETCH_SLOTS_MIN and at
 * most PREFETCH_SLOTS_MAX.
 */
const PREFETCH_HORIZON_MS = 250;
const PREFETCH_SLOTS_MIN = 3;
const PREFETCH_SLOTS_MAX = 24;
/** Origins whose average is kept: the least recently measured are forgotten first. */
const LATENCY_ORIGINS = 10_000;
/** How long a receiver that answered 410 is remembered (longer than anything is held). */
const GONE_MEMORY_MS = 60_000;

/**
 * The prefetch mode of an origin, from the average duration of its attempts here:
 *
 * - `unmeasured`: no attempt of it was sent yet (or it was forgotten): its slots only.
 * - `slow`: it answers in PREFETCH_FAST_MS or more on average: its slots only.
 * - `fast`: it answers faster: its slots and as many slots' worth prefetched as it answers in
 *   PREFETCH_HORIZON_MS (3 to 24), refilled in batches: the origin is left out of the claim
 *   until half of that prefetch is free, so that a busy receiver costs a claim per few dozen to
 *   two hundred deliveries, not one per delivery (what it holds meanwhile keeps its slots busy).
 *   The faster it answers, the more is claimed at once: the more rows a claim takes, the less
 *   it costs the database per row, and the last prefetched delivery still starts well before
 *   PREFETCH_MAX_AGE_MS (within PREFETCH_HORIZON_MS, or three attempts' time at the least).
 *
 * Every attempt sent (not one that could not be signed) updates the average: `unmeasured`
 * becomes `fast` or `slow` with the first, and `fast` and `slow` swap as the average crosses
 * PREFETCH_FAST_MS; beyond LATENCY_ORIGINS origins the least recently measured become
 * `unmeasured` again. In a claim, an origin the instance holds nothing of may get `perOrigin`
 * deliveries whatever its mode; prefetching starts once it holds some.
 */
export type PrefetchMode = 'unmeasured' | 'slow' | 'fast';

export interface SlotLimits {
  /** Attempts in flight per origin (16). */
  perOrigin: number;
  /** Half of what the instance may hold, in flight and prefetched, in all (256). */
  total: number;
}

/**
 * What the claim may take: no more of `saturated` origins, at most `room[o]` of origin o, the
 * registrations holding fewest (`held`) first.
 */
export interface ClaimLimits {
  saturated: string[];
  /** The room left of each origin held; an origin not listed may get `perOrigin`. */
  room: Record<string, number>;
  /**
   * What the instance holds (in flight and prefetched) per registration of the origins in
   * `room`, by `registrationOf`; a registration not listed holds none.
   */
  held: Record<string, number>;
}

/** Who a delivery is for: the registration (account and client) and its receiver's origin. */
export interface Registered {
  origin: string;
  account_id: string;
  client_id: string;
}

/** The key of a delivery's registration at its origin, as the claim reads `held` by it. */
export const registrationOf = (r: Registered): string =>
  `${r.origin} ${r.account_id} ${r.client_id}`;

interface Prefetched<T> {
  item: T;
  claimedAt: number;
}

/** The slots and prefetched deliveries of one instance; `T` is a claimed delivery. */
export class Slots<T extends Registered> {
  readonly #limits: SlotLimits;
  #inFlight = 0;
  readonly #inFlightOf = new Map<string, number>();
  /**
   * Per origin, its prefetched deliveries per registration (registrationOf), the registration
   * whose turn is next first.
   */
  readonly #prefetched = new Map<string, Map<string, Prefetched<T>[]>>();
  readonly #prefetchedOf = new Map<string, number>();
  #prefetchedCount = 0;
  /** Deliveries held (in flight and prefetched) per registration. */
  readonly #heldBy = new Map<string, number>();
  /** Average attempt duration per origin (ms), least recently measured first. */
  readonly #latency = new Map<string, number>();
  /**
   * The origins a claim may find due deliveries of (see `settled`), each with the number of the
   * mark that put it there.
   */
  readonly #behind = new Map<string, number>();
  #marks = 0;

  constructor(limits: SlotLimits) {
    this.#limits = limits;
  }

  /** Deliveries held: in flight and prefetched. */
  held(): number {
    return this.#inFlight + this.#prefetchedCount;
  }

  /** How many more deliveries may be claimed now (none when 0 or less). */
  room(): number {
    return 2 * this.#limits.total - this.held();
  }

  /** Whether the instance holds `total` or more. */
  full(): boolean {
    return this.held() >= this.#limits.total;
  }

  mode(origin: string): PrefetchMode {
    const latency = this.#latency.get(origin);
    if (latency === undefined) return 'unmeasured';
    return latency < PREFETCH_FAST_MS ? 'fast' : 'slow';
  }

  /** How many deliveries of an origin the instance may hold, in flight and prefetched. */
  capacity(origin: string): number {
    return this.#limits.perOrigin * (1 + this.#prefetchSlots(origin));
  }

  /** How many slots' worth of an origin may be prefetched (0 unless it is fast). */
  #prefetchSlots(origin: string): number {
    if (this.mode(origin) !== 'fast') return 0;
    const answered = Math.floor(PREFETCH_HORIZON_MS / this.#latency.get(origin)!);
    return Math.min(PREFETCH_SLOTS_MAX, Math.max(PREFETCH_SLOTS_MIN, answered));
  }

  #heldOf(origin: string): number {
    return (this.#inFlightOf.get(origin) ?? 0) + (this.#prefetchedOf.get(origin) ?? 0);
  }

  /** The origins the instance holds deliveries of. */
  #origins(): Set<string> {
    return new Set([...this.#inFlightOf.keys(), ...this.#prefetched.keys()]);
  }

  /** The least room an origin is claimed for: half its prefetch when fast, else one. */
  #refill(origin: string): number {
    return Math.max(1, (this.#limits.perOrigin * this.#prefetchSlots(origin)) / 2);
  }

  /** Whether `origin` has room enough to be claimed for. */
  claimable(origin: string): boolean {
    return this.capacity(origin) - this.#heldOf(origin) >= this.#refill(origin);
  }

  /**
   * Whether a claim now could take deliveries of one of `origins` (just queued): the instance
   * has room and one of them is claimable. Otherwise they wait for a slot of theirs to free.
   */
  roomFor(origins: Iterable<string>): boolean {
    if (this.room() <= 0) return false;
    for (const origin of origins) if (this.claimable(origin)) return true;
    return false;
  }

  /** Origins without room enough: left out of the claim and of the next-due lookup. */
  saturated(): string[] {
    return [...this.#origins()].filter((o) => !this.claimable(o));
  }

  claimLimits(): ClaimLimits {
    const room: Record<string, number> = {};
    for (const origin of this.#origins()) {
      if (this.claimable(origin)) room[origin] = this.capacity(origin) - this.#heldOf(origin);
    }
    const held: Record<string, number> = {};
    for (const [key, count] of this.#heldBy) {
      if (key.slice(0, key.indexOf(' ')) in room) held[key] = count;
    }
    return { saturated: this.saturated(), room, held };
  }

  /**
   * Deliveries of `origins` became due and were not claimed: queued by a commit while they were
   * not claimable, or handed back.
   */
  queued(origins: Iterable<string>): void {
    for (const origin of origins) this.#behind.set(origin, ++this.#marks);
  }

  /** The last mark: what a claim starting now saw (passed to `settled`). */
  mark(): number {
    return this.#marks;
  }

  /** Whether a claim may find due deliveries of `origin` (so that its freed slot calls for one). */
  behind(origin: string): boolean {
    return this.#behind.has(origin);
  }

  /**
   * After a claim that started at mark `since`, made with `limits`, took `claimed` (admitted
   * already): an origin it left out (saturated) or that got all the room it was claimed for may
   * have more due; one that got less has none, unless the claim stopped at its batch size
   * (`complete` false) or the origin was marked since the claim started (its snapshot may have
   * missed that). Claiming for an origin with none due would walk the queue to find nothing.
   */
  settled(limits: ClaimLimits, claimed: readonly T[], complete: boolean, since: number): void {
    const got = new Map<string, number>();
    for (const { origin } of claimed) got.set(origin, (got.get(origin) ?? 0) + 1);
    const saturated = new Set(limits.saturated);
    for (const origin of saturated) this.#behind.set(origin, ++this.#marks);
    for (const origin of new Set([...this.#behind.keys(), ...got.keys()])) {
      if (saturated.has(origin)) continue;
      const asked = limits.room[origin] ?? this.#limits.perOrigin;
      if ((got.get(origin) ?? 0) >= asked) this.#behind.set(origin, ++this.#marks);
      else if (complete && (this.#behind.get(origin) ?? 0) <= since) this.#behind.delete(origin);
    }
  }

  /**
   * Whether slots freed while a claim ran call for another claim after it (`settled` first):
   * an origin that is behind has room now.
   */
  claimAgain(): boolean {
    for (const origin of this.#behind.keys()) if (this.claimable(origin)) return true;
    return false;
  }

  /**
   * A claimed delivery: takes a free slot of its origin (true: start it now), or else holds it
   * prefetched (false).
   */
  admit(item: T, claimedAt: number): boolean {
    if ((this.#inFlightOf.get(item.origin) ?? 0) < this.#limits.perOrigin) {
      this.#take(item);
      return true;
    }
    this.prefetch(item, claimedAt);
    return false;
  }

  /** Holds a claimed delivery for a slot of its origin, in its registration's turn. */
  prefetch(item: T, claimedAt: number): void {
    const key = registrationOf(item);
    const queues = this.#prefetched.get(item.origin) ?? new Map<string, Prefetched<T>[]>();
    const list = queues.get(key) ?? [];
    list.push({ item, claimedAt });
    queues.set(key, list);
    this.#prefetched.set(item.origin, queues);
    count(this.#prefetchedOf, item.origin, 1);
    count(this.#heldBy, key, 1);
    this.#prefetchedCount++;
  }

  #take(item: T): void {
    this.#inFlight++;
    count(this.#inFlightOf, item.origin, 1);
    count(this.#heldBy, registrationOf(item), 1);
  }

  /** An attempt at `item` ended: its slot frees. */
  release(item: T): void {
    this.#inFlight--;
    count(this.#inFlightOf, item.origin, -1);
    count(this.#heldBy, registrationOf(item), -1);
  }

  /**
   * A slot of `origin` freed: the next of its prefetched deliveries to start in it (the slot is
   * taken for it), the oldest of the registration whose turn it is (each registration's turn
   * comes after the others'), skipping those `skip` names (dropped meanwhile; it gets each with
   * the time it was claimed) and expiring those older than PREFETCH_MAX_AGE_MS at `now`, which
   * the caller hands back.
   */
  next(
    origin: string,
    now: number,
    skip: (item: T, claimedAt: number) => boolean,
  ): { start?: T; expired: T[] } {
    const queues = this.#prefetched.get(origin);
    const expired: T[] = [];
    while (queues && queues.size > 0) {
      const [key, list] = queues.entries().next().value!;
      const { item, claimedAt } = list.shift()!;
      queues.delete(key);
      if (list.length > 0) queues.set(key, list); // its next turn is after the others'
      if (queues.size === 0) this.#prefetched.delete(origin);
      this.#prefetchedCount--;
      count(this.#prefetchedOf, origin, -1);
      count(this.#heldBy, key, -1);
      if (skip(item, claimedAt)) continue;
      if (now - claimedAt < PREFETCH_MAX_AGE_MS) {
        this.#take(item);
        return { start: item, expired };
      }
      expired.push(item);
    }
    return { expired };
  }

  /** Every prefetched delivery, no longer held (on shutdown, to be handed back). */
  drain(): T[] {
    const items: T[] = [];
    for (const queues of this.#prefetched.values()) {
      for (const list of queues.values()) {
        for (const { item } of list) {
          items.push(item);
          count(this.#heldBy, registrationOf(item), -1);
        }
      }
    }
    this.#prefetched.clear();
    this.#prefetchedOf.clear();
    this.#prefetchedCount = 0;
    return items;
  }

  /** An attempt to `origin` took `durationMs`: updates its average, so its mode. */
  observe(origin: string, durationMs: number): void {
    const previous = this.#latency.get(origin);
    this.#latency.delete(origin);
    // An exponentially weighted average, the newest attempt weighing a fifth.
    this.#latency.set(
      origin,
      previous === undefined ? durationMs : 0.8 * previous + 0.2 * durationMs,
    );
    if (this.#latency.size > LATENCY_ORIGINS) {
      this.#latency.delete(this.#latency.keys().next().value!);
    }
  }
}

/** Adds `by` to `key`'s count in `counts`, forgetting it at 0. */
function count(counts: Map<string, number>, key: string, by: number): void {
  const value = (counts.get(key) ?? 0) + by;
  if (value > 0) counts.set(key, value);
  else counts.delete(key);
}

/** Who a delivery goes to: one registration's receiver. */
interface Receiver {
  account_id: string;
  client_id: string;
  url: string;
}

const receiverKey = (r: Receiver) => `${r.account_id} ${r.client_id} ${r.url}`;

/**
 * Receivers that answered 410 lately, and when: the deliveries the instance claimed for one
 * before that (and holds, prefetched) were dropped with its registration, so they are skipped
 * rather than sent. What is claimed afterwards is sent: it is pending after the drop, so it was
 * queued for a registration made again since.
 */
export class GoneReceivers {
  readonly #at = new Map<string, number>();

  /** `receiver` answered 410, or its registration was removed, at `now`. */
  add(receiver: Receiver, now: number): void {
    for (const [key, at] of this.#at) if (now - at > GONE_MEMORY_MS) this.#at.delete(key);
    this.#at.set(receiverKey(receiver), now);
  }

  /** True when `receiver` went after a delivery for it was claimed at `claimedAt`. */
  has(receiver: Receiver, claimedAt: number): boolean {
    const at = this.#at.get(receiverKey(receiver));
    return at !== undefined && claimedAt <= at;
  }
}
