import { AppError } from '../errors.ts';
import type { Metrics } from './metrics.ts';
import type { HttpHandler } from './server.ts';

/** How often the event loop's lag is sampled. */
const SAMPLE_MS = 50;

/**
 * Watches the event loop: a timer due every SAMPLE_MS that fires late measures how far the loop
 * has fallen behind. Above `thresholdMs` the instance counts as overloaded until a sample comes
 * back under it, and new requests are refused (503 with Retry-After) so that the work already
 * accepted can finish and the loop catch up. A blocked loop is seen as soon as it runs again,
 * before the requests that queued meanwhile are read.
 */
export class LagMonitor {
  #timer: NodeJS.Timeout | undefined;
  #expected = 0;
  #overloaded = false;

  constructor(private readonly thresholdMs: number) {}

  get overloaded(): boolean {
    return this.#overloaded;
  }

  start(): void {
    if (this.thresholdMs <= 0) return;
    const tick = () => {
      const lag = performance.now() - this.#expected;
      this.#overloaded = lag > this.thresholdMs;
      this.#expected = performance.now() + SAMPLE_MS;
      this.#timer = setTimeout(tick, SAMPLE_MS);
      this.#timer.unref();
    };
    this.#expected = performance.now() + SAMPLE_MS;
    this.#timer = setTimeout(tick, SAMPLE_MS);
    this.#timer.unref();
  }

  stop(): void {
    clearTimeout(this.#timer);
    this.#overloaded = false;
  }
}

export const overloaded = () =>
  new AppError(
    'UNAVAILABLE',
    'the service is overloaded; retry shortly',
    { retryAfterSeconds: 1 },
    { 'Retry-After': '1' },
  );

/** Refuses every request that reaches it while the instance is overloaded. */
export function sheddingHandler(
  monitor: LagMonitor,
  metrics: Pick<Metrics, 'refusals'>,
): HttpHandler {
  return async () => {
    if (!monitor.overloaded) return undefined;
    metrics.refusals.inc({ reason: 'shed' });
    throw overloaded();
  };
}
