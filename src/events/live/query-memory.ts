import { AppError } from '../../errors.ts';
import type { LiveMetrics } from './metrics.ts';

/** What live queries may hold of an instance (LIVE_QUERY_MAX_*). */
export interface LiveQueryLimits {
  /** `LIVE_QUERY_MAX_PER_CALLER`. */
  maxPerCaller: number;
  /** `LIVE_QUERY_MAX_BYTES_PER_CALLER`. */
  maxBytesPerCaller: number;
  /** `LIVE_QUERY_MAX_BYTES`. */
  maxBytes: number;
}

/** How long a refused client is told to wait, as a refused live connection is (sse.ts). */
const RETRY_AFTER_SECONDS = 5;

/**
 * The memory live queries hold, with an owner. Each live query keeps its last result until the
 * next one (to tell a change, or to patch it), so what they hold grows with their number and the
 * size of their results, not with the requests that started them. Each caller (the token's
 * subject and OAuth client: `callerOf`) may run `maxPerCaller` of them on an instance, whose
 * kept results take at most `maxBytesPerCaller` together (a result's size is its JSON's), and
 * the live queries of every caller at most `maxBytes`. A new live query past a limit is refused
 * (RATE_LIMITED for a caller's limits, UNAVAILABLE for the instance's, each naming its
 * setting); a result that grows past one ends the live query it belongs to, and no other.
 */
export class LiveQueryMemory {
  #bytes = 0;
  readonly #callers = new Map<string, { count: number; bytes: number }>();

  constructor(
    readonly limits: LiveQueryLimits,
    private readonly metrics: Pick<LiveMetrics, 'liveQueryBytes' | 'liveQueryRefusals'>,
  ) {}

  /** The bytes every live query keeps now. */
  get bytes(): number {
    return this.#bytes;
  }

  /**
   * A place for a new live query of `caller`, holding nothing yet; throws the refusal when the
   * caller runs as many as it may, or its budget or the instance's is spent already.
   */
  open(caller: string): LiveQueryHolding {
    const held = this.#callers.get(caller) ?? { count: 0, bytes: 0 };
    const { maxPerCaller, maxBytesPerCaller, maxBytes } = this.limits;
    if (held.count >= maxPerCaller) {
      throw this.#refuse(
        'count',
        `at most ${maxPerCaller} live queries per token subject and client (LIVE_QUERY_MAX_PER_CALLER); end one to start another`,
        { limit: 'LIVE_QUERY_MAX_PER_CALLER', max: maxPerCaller },
      );
    }
    if (held.bytes >= maxBytesPerCaller) throw this.#callerFull(held.bytes);
    if (this.#bytes >= maxBytes) throw this.#instanceFull();
    held.count++;
    this.#callers.set(caller, held);
    return new LiveQueryHolding(this, caller);
  }

  /**
   * Takes `bytes` in place of `before` for a live query of `caller`; throws the refusal, taking
   * nothing, when that goes over a limit.
   */
  resize(caller: string, before: number, bytes: number): void {
    const held = this.#callers.get(caller)!;
    const callerBytes = held.bytes - before + bytes;
    if (callerBytes > this.limits.maxBytesPerCaller) throw this.#callerFull(callerBytes, bytes);
    if (this.#bytes - before + bytes > this.limits.maxBytes) throw this.#instanceFull(bytes);
    held.bytes = callerBytes;
    this.#add(bytes - before);
  }

  /** Ends a live query of `caller` that holds `bytes`. */
  close(caller: string, bytes: number): void {
    const held = this.#callers.get(caller)!;
    held.bytes -= bytes;
    if (--held.count === 0) this.#callers.delete(caller);
    this.#add(-bytes);
  }

  /** The caller's results would take `bytes` (a result of `result` among them), over its budget. */
  #callerFull(bytes: number, result?: number): AppError {
    const { maxBytesPerCaller: max } = this.limits;
    return this.#refuse(
      'caller_bytes',
      `the results of this token subject and client's live queries would take ${bytes} bytes${sized(result)}, over LIVE_QUERY_MAX_BYTES_PER_CALLER (${max}); end one, or ask for less`,
      { limit: 'LIVE_QUERY_MAX_BYTES_PER_CALLER', max, bytes },
    );
  }

  #instanceFull(result?: number): AppError {
    const { maxBytes: max } = this.limits;
    return this.#refuse(
      'bytes',
      `the live queries of this instance keep as much as they may (LIVE_QUERY_MAX_BYTES, ${max} bytes)${sized(result)}; try again later`,
      { limit: 'LIVE_QUERY_MAX_BYTES', max },
      'UNAVAILABLE',
    );
  }

  #refuse(
    limit: 'count' | 'caller_bytes' | 'bytes',
    message: string,
    details: Record<string, unknown>,
    code: 'RATE_LIMITED' | 'UNAVAILABLE' = 'RATE_LIMITED',
  ): AppError {
    this.metrics.liveQueryRefusals.inc({ limit });
    // Over SSE, a refused live query's answer says it in Retry-After too (yoga.ts).
    return new AppError(code, message, { ...details, retryAfterSeconds: RETRY_AFTER_SECONDS });
  }

  #add(bytes: number): void {
    this.#bytes += bytes;
    this.metrics.liveQueryBytes.set(this.#bytes);
  }
}

const sized = (result: number | undefined) =>
  result === undefined ? '' : ` (this result: ${result} bytes)`;

/** One live query's place in LiveQueryMemory: what its kept result takes, until it ends. */
export class LiveQueryHolding {
  #bytes = 0;
  #closed = false;

  constructor(
    private readonly memory: LiveQueryMemory,
    private readonly caller: string,
  ) {}

  /**
   * Keeps a result of `bytes` in place of the last one; throws the refusal when that is over
   * a limit (the live query then ends: `close()`).
   */
  keep(bytes: number): void {
    if (this.#closed || bytes === this.#bytes) return;
    this.memory.resize(this.caller, this.#bytes, bytes);
    this.#bytes = bytes;
  }

  /** Gives its place back (once; later calls do nothing). */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.memory.close(this.caller, this.#bytes);
  }
}
