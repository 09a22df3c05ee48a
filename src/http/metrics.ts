import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { ReplicaState } from '../storage/replica.ts';

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
    refusals: new Counter({
      name: 'clipgate_refusals_total',
      help: 'Requests refused to protect the service, by reason: rate_limited, too_costly (GraphQL operation limits), shed (overload), unavailable (a dependency failed)',
      labelNames: ['reason'] as const,
      registers: [registry],
    }),
    rateLimitScriptErrors: new Counter({
      name: 'clipgate_rate_limit_script_errors_total',
      help: "Rate-limit checks the shared limiter's script failed, by policy (Redis answered with an error; the instance's own bucket judged the request)",
      labelNames: ['policy'] as const,
      registers: [registry],
    }),
    graphqlWorkerOperations: new Counter({
      name: 'clipgate_graphql_worker_operations_total',
      help: 'GraphQL queries executed on a worker thread (GRAPHQL_WORKERS), by outcome: ok, failed (the thread stopped)',
      labelNames: ['outcome'] as const,
      registers: [registry],
    }),
    ...webhookMetrics(registry),
    ...liveMetrics(registry),
    ...jobMetrics(registry),
    ...exportMetrics(registry),
  };
}

/** The read replica's lag and whether it serves listings (DATABASE_READ_URL), read when scraped. */
export function registerReplicaMetrics(registry: Registry, state: () => ReplicaState): void {
  new Gauge({
    name: 'clipgate_read_replica_lag_seconds',
    help: 'How far the read replica is behind the primary, in seconds (to the check interval, 250 ms)',
    registers: [registry],
    collect() {
      this.set(state().lagSeconds);
    },
  });
  new Gauge({
    name: 'clipgate_read_replica_in_service',
    help: 'Whether listing reads go to the read replica (1), or all to the primary because it lags beyond DATABASE_READ_MAX_LAG_MS (0)',
    registers: [registry],
    collect() {
      this.set(state().inService ? 1 : 0);
    },
  });
}

/** Clip exports (src/media/export.ts): what was refused or cut, and the slots in use. */
function exportMetrics(registry: Registry) {
  return {
    exportRefusals: new Counter({
      name: 'clipgate_export_refusals_total',
      help: 'Exports refused, by reason: busy (every slot of the instance taken), account_busy (the account holds its EXPORT_CONCURRENCY_PER_ACCOUNT), url_rate_limited (EXPORT_URL_RATE_PER_MINUTE), too_large (EXPORT_MAX_BYTES), no_ffmpeg',
      labelNames: ['reason'] as const,
      registers: [registry],
    }),
    exportCuts: new Counter({
      name: 'clipgate_export_cuts_total',
      help: 'Exports ended before their last byte, by reason: slow_reader (EXPORT_MIN_READ_BYTES_PER_S), idle (nothing read for 60 s), deadline (EXPORT_TIMEOUT_S), failed (ffmpeg failed), shutdown',
      labelNames: ['reason'] as const,
      registers: [registry],
    }),
    exportSlots: new Gauge({
      name: 'clipgate_export_slots_in_use',
      help: 'Exports running on this instance (at most EXPORT_CONCURRENCY)',
      registers: [registry],
    }),
  };
}

/** Background jobs (src/jobs). */
function jobMetrics(registry: Registry) {
  return {
    jobRuns: new Counter({
      name: 'clipgate_job_runs_total',
      help: 'Rounds of background jobs, by job and result (ok, failed)',
      labelNames: ['job', 'result'] as const,
      registers: [registry],
    }),
    jobItems: new Counter({
      name: 'clipgate_job_items_total',
      help: 'Items handled by background jobs (rows purged, objects deleted, ...), by job',
      labelNames: ['job'] as const,
      registers: [registry],
    }),
    jobDuration: new Histogram({
      name: 'clipgate_job_duration_seconds',
      help: 'Duration of background job rounds, by job',
      labelNames: ['job'] as const,
      buckets: [0.001, 0.01, 0.1, 1, 10, 60],
      registers: [registry],
    }),
  };
}

/** The pending webhook deliveries, as the dispatcher reads them from the database. */
export interface WebhookQueueStats {
  depth: number;
  oldestPendingSeconds: number;
}

/** Webhook delivery metrics (src/notifications/delivery/); the queue gauges read `webhookQueue.stats` at scrape time. */
function webhookMetrics(registry: Registry) {
  const webhookQueue: { stats?: () => Promise<WebhookQueueStats> } = {};
  return {
    webhookQueue,
    webhookDeliveries: new Counter({
      name: 'clipgate_webhook_deliveries_total',
      help: 'Webhook deliveries finished, by outcome: delivered, discarded, gone, dropped',
      labelNames: ['outcome'] as const,
      registers: [registry],
    }),
    webhookReceiversDisabled: new Counter({
      name: 'clipgate_webhook_receivers_disabled_total',
      help: 'Registrations disabled because their receiver failed every attempt for WEBHOOK_DISABLE_AFTER_HOURS',
      registers: [registry],
    }),
    webhookAttempts: new Histogram({
      name: 'clipgate_webhook_attempt_duration_seconds',
      help: 'Webhook delivery attempts by result (2xx, 3xx, 4xx, 5xx or the error class) and their latency',
      labelNames: ['result'] as const,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    webhookQueueDepth: new Gauge({
      name: 'clipgate_webhook_queue_depth',
      help: 'Webhook deliveries pending (queued, in flight or waiting for a retry)',
      registers: [registry],
      async collect() {
        const stats = await webhookQueue.stats?.().catch(() => undefined);
        if (stats) this.set(stats.depth);
      },
    }),
    webhookOldestPending: new Gauge({
      name: 'clipgate_webhook_oldest_pending_age_seconds',
      help: 'Age of the oldest pending webhook delivery (0 when none)',
      registers: [registry],
      async collect() {
        const stats = await webhookQueue.stats?.().catch(() => undefined);
        if (stats) this.set(stats.oldestPendingSeconds);
      },
    }),
  };
}

/** Live events (src/events/live, src/graphql/ws.ts and sse.ts). */
function liveMetrics(registry: Registry) {
  return {
    liveSockets: new Gauge({
      name: 'clipgate_live_sockets',
      help: 'Open GraphQL WebSocket connections',
      registers: [registry],
    }),
    liveSubscriptions: new Gauge({
      name: 'clipgate_live_subscriptions',
      help: 'Active GraphQL subscriptions (WebSocket and SSE)',
      registers: [registry],
    }),
    liveEventsFannedOut: new Counter({
      name: 'clipgate_live_events_fanned_out_total',
      help: 'Events handed to subscribers (one per event and subscriber)',
      registers: [registry],
    }),
    liveSlowConsumers: new Counter({
      name: 'clipgate_live_slow_consumers_dropped_total',
      help: 'Subscribers cut off because their bounded buffer overflowed',
      registers: [registry],
    }),
    liveEventsRepaired: new Counter({
      name: 'clipgate_live_events_repaired_total',
      help: 'Events a live topic read from the event log instead of the pub/sub, by cause: overtaken (a later event came first), reconnect (the pub/sub was away), check (never published: found by the periodic check)',
      labelNames: ['cause'] as const,
      registers: [registry],
    }),
    liveWaitTimeouts: new Counter({
      name: 'clipgate_live_wait_timeouts_total',
      help: 'Live-event waits that ran into their bound, by wait: log (a read of the event log; its subscribers resume), listen (the pub/sub did not confirm a channel; the topic went live without), check (the periodic check could not read the log), resubscribe (the pub/sub did not confirm its channels after a reconnect; the topics caught up anyway)',
      labelNames: ['wait'] as const,
      registers: [registry],
    }),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
