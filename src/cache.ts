/**
 * A small bounded map whose entries expire after `ttlMs`; the oldest entry is evicted when full.
 * Used for lookups that are read on every request but change rarely.
 */
export class TtlCache<K, V> {
  readonly #entries = new Map<K, { value: V; expires: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries: number,
  ) {}

  get(key: K, now = Date.now()): V | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (entry.expires <= now) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  set(key: K, value: V, ttlMs = this.ttlMs): void {
    this.#entries.delete(key);
    if (this.#entries.size >= this.maxEntries) {
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
    this.#entries.set(key, { value, expires: Date.now() + ttlMs });
  }

  delete(key: K): void {
    this.#entries.delete(key);
  }

  deleteWhere(predicate: (value: V) => boolean): void {
    for (const [key, entry] of this.#entries) if (predicate(entry.value)) this.#entries.delete(key);
  }
}
