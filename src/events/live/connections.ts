/**
 * Counts live connections (WebSocket sockets and SSE streams) per instance and per token
 * subject, for the transports to refuse what goes over `LIVE_MAX_CONNECTIONS` and
 * `LIVE_MAX_CONNECTIONS_PER_SUBJECT`.
 */
export class ConnectionLimiter {
  #total = 0;
  readonly #bySubject = new Map<string, number>();

  constructor(
    readonly maxTotal: number,
    readonly maxPerSubject: number,
  ) {}

  get total(): number {
    return this.#total;
  }

  /** True when the instance has no slot left. */
  get full(): boolean {
    return this.#total >= this.maxTotal;
  }

  /** Takes an instance slot; false when the instance is full. */
  open(): boolean {
    if (this.full) return false;
    this.#total++;
    return true;
  }

  close(): void {
    this.#total--;
  }

  /** Takes a slot of the subject; false when it has as many connections as it may. */
  claim(subject: string): boolean {
    const held = this.#bySubject.get(subject) ?? 0;
    if (held >= this.maxPerSubject) return false;
    this.#bySubject.set(subject, held + 1);
    return true;
  }

  unclaim(subject: string): void {
    const held = (this.#bySubject.get(subject) ?? 1) - 1;
    if (held > 0) this.#bySubject.set(subject, held);
    else this.#bySubject.delete(subject);
  }
}
