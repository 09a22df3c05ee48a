/** Whose live connection it is: the token's subject and OAuth client. */
export interface ConnectionOwner {
  subject: string;
  clientId: string;
}

/**
 * Counts live connections (WebSocket sockets and SSE streams) per instance and per token
 * subject and OAuth client, for the transports to refuse what goes over `LIVE_MAX_CONNECTIONS`
 * and `LIVE_MAX_CONNECTIONS_PER_SUBJECT`. The second counts each client of a subject apart: one
 * app holding all it may does not lock the user's other apps out.
 */
export class ConnectionLimiter {
  #total = 0;
  readonly #byOwner = new Map<string, number>();

  constructor(
    readonly maxTotal: number,
    /** Per subject and client (`LIVE_MAX_CONNECTIONS_PER_SUBJECT`). */
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

  /** Takes a slot of the subject and client; false when they have as many as they may. */
  claim(owner: ConnectionOwner): boolean {
    const key = ownerKey(owner);
    const held = this.#byOwner.get(key) ?? 0;
    if (held >= this.maxPerSubject) return false;
    this.#byOwner.set(key, held + 1);
    return true;
  }

  unclaim(owner: ConnectionOwner): void {
    const key = ownerKey(owner);
    const held = (this.#byOwner.get(key) ?? 1) - 1;
    if (held > 0) this.#byOwner.set(key, held);
    else this.#byOwner.delete(key);
  }
}

/** One key per pair: JSON keeps a subject with a separator in it from passing for another pair. */
const ownerKey = ({ subject, clientId }: ConnectionOwner): string =>
  JSON.stringify([subject, clientId]);
