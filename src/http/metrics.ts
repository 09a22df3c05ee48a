import { Counter, Histogram, type Registry } from 'prom-client';

/** The HTTP chain's metrics (server.ts, overload.ts) and the GraphQL worker threads'. */
export function httpMetrics(registry: Registry) {
  return {
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
    refusals: new Counter({
      name: 'clipgate_refusals_total',
      help: 'Requests refused to protect the service, by reason: rate_limited, too_costly (GraphQL operation limits), shed (overload), unavailable (a dependency failed)',
      labelNames: ['reason'] as const,
      registers: [registry],
    }),
    graphqlDocuments: new Counter({
      name: 'clipgate_graphql_documents_total',
      help: 'GraphQL requests by how their document came: text, known (a hash of a manifest), registered (a hash a client registered, APQ), not_found (an unknown hash), refused (GRAPHQL_TRUSTED_DOCUMENTS)',
      labelNames: ['source'] as const,
      registers: [registry],
    }),
    graphqlWorkerOperations: new Counter({
      name: 'clipgate_graphql_worker_operations_total',
      help: 'GraphQL queries executed on a worker thread (GRAPHQL_WORKERS), by outcome: ok, failed (the thread stopped)',
      labelNames: ['outcome'] as const,
      registers: [registry],
    }),
  };
}

export type HttpMetrics = ReturnType<typeof httpMetrics>;
