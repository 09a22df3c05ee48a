import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

/** The service's Prometheus metrics, one registry per app so several apps can share a process. */
export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    requests: new Counter({
      name: 'clipgate_http_requests_total',
      help: 'HTTP requests by method, route and status',
      labelNames: ['method', 'route', 'status'] as const,
      registers: [registry],
    }),
    latency: new Histogram({
      name: 'clipgate_http_request_duration_seconds',
      help: 'HTTP request latency by route',
      labelNames: ['method', 'route'] as const,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    }),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
