import { AppError } from '../errors.ts';
import type { HttpHandler } from './handler.ts';

/** How often the event loop's lag is sampled. */
const SAMPLE_MS = 50;

/**
 * Seconds an instance keeps shedding after its last lagging sample; also its `Retry-After`.
 * Without it the shedding would end with the next punctual sample, 50 ms after a long block,
 * and the requests that queued during the block would mostly be served late instead of shed.
 */
const SHED_S = 1;

/**
 * Watches the event loop: a timer due every SAMPLE_MS that fires late measures how far the loop
 * has fallen behind. Above `thresholdMs` the instance counts as overloaded for SHED_S seconds
 * after the last such sample, and new requests are refused (503 with Retry-After) so that the
 * work already accepted can finish and the loop catch up. A blocked loop is seen as soon as it
 * runs again, whether the late timer or the requests that queued meanwhile come first: a sample
 * overdue by more than the threshold counts as lagging already.
 */
export class LagMonitor {
  #timer: NodeJS.Timeout | undefined;
  #expected = 0;
  #shedUntil = 0;

  constructor(private readonly thresholdMs: number) {}

  get overloaded(): boolean {
    if (this.#timer === undefined) return false;
    const now = performance.now();
    return now < this.#shedUntil || now - this.#expected > this.thresholdMs;
  }

  start(): void {
    if (this.thresholdMs <= 0) return;
    const tick = () => {
      const now = performance.now();
      if (now - this.#expected > this.thresholdMs) this.#shedUntil = now + SHED_S * 1000;
      this.#expected = now + SAMPLE_MS;
      this.#timer = setTimeout(tick, SAMPLE_MS);
      this.#timer.unref();
    };
    this.#expected = performance.now() + SAMPLE_MS;
    this.#timer = setTimeout(tick, SAMPLE_MS);
    this.#timer.unref();
  }

  stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#shedUntil = 0;
  }
}

/** The refusal of a request while the instance is overloaded: counted as `shed` (server.ts). */
export class Shed extends AppError {
  constructor() {
    super(
      'UNAVAILABLE',
      'the service is overloaded; retry shortly',
      { retryAfterSeconds: SHED_S },
      { 'Retry-After': String(SHED_S) },
    );
  }
}

/** Refuses every request that reaches it while the instance is overloaded. */
export function sheddingHandler(monitor: LagMonitor): HttpHandler {
  return async () => {
    if (monitor.overloaded) throw new Shed();
    return undefined;
  };
}
