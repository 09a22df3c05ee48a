import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** The pending webhook deliveries, as the dispatcher reads them from the database. */
export interface WebhookQueueStats {
  depth: number;
  oldestPendingSeconds: number;
}

/** Webhook delivery metrics (src/notifications/delivery/); the queue gauges read `webhookQueue.stats` at scrape time. */
export function webhookMetrics(registry: Registry) {
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

export type WebhookMetrics = ReturnType<typeof webhookMetrics>;
