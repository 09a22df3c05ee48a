import { collectDefaultMetrics, Registry } from 'prom-client';
import { liveMetrics } from './events/live/metrics.ts';
import { httpMetrics } from './http/metrics.ts';
import { jobMetrics } from './jobs/metrics.ts';
import { rateLimitMetrics } from './limits/metrics.ts';
import { exportMetrics } from './media/metrics.ts';
import { webhookMetrics } from './notifications/delivery/metrics.ts';

/**
 * The service's Prometheus metrics, one registry per app so several apps can share a process;
 * each part declares its own (http, limits, jobs, media, live events, webhook deliveries).
 * `processMetrics: false` leaves out the process's own figures (prom-client's defaults: CPU,
 * memory, the event loop's delay, which it samples every 10 ms): a registry nobody serves, as a
 * GraphQL worker thread's, would otherwise wake its thread a hundred times a second for them.
 */
export function createMetrics({ processMetrics = true }: { processMetrics?: boolean } = {}) {
  const registry = new Registry();
  if (processMetrics) collectDefaultMetrics({ register: registry });
  return {
    registry,
    ...httpMetrics(registry),
    ...rateLimitMetrics(registry),
    ...webhookMetrics(registry),
    ...liveMetrics(registry),
    ...jobMetrics(registry),
    ...exportMetrics(registry),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
