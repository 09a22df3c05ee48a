import { Counter, Gauge, type Registry } from 'prom-client';

/** Live events (src/events/live, src/graphql/ws.ts and sse.ts). */
export function liveMetrics(registry: Registry) {
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
    liveQueries: new Gauge({
      name: 'clipgate_live_queries',
      help: 'Live queries (query @live) running, over WebSocket and SSE',
      registers: [registry],
    }),
    liveQueryInvalidations: new Counter({
      name: 'clipgate_live_query_invalidations_total',
      help: 'Events that made a live query stale (one per event and live query); the events that come within LIVE_QUERY_MIN_INTERVAL_MS of its last execution are taken together into its next one',
      registers: [registry],
    }),
    liveQueryExecutions: new Counter({
      name: 'clipgate_live_query_executions_total',
      help: 'Executions of live queries after their first (one that several share counts once), by outcome: changed (an update was sent), unchanged (the same result: nothing was sent), failed (no data, or a result past the live-query memory limits: the live query ended with its errors)',
      labelNames: ['outcome'] as const,
      registers: [registry],
    }),
    liveQueryBytes: new Gauge({
      name: 'clipgate_live_query_bytes',
      help: 'Bytes of the results live queries keep, every caller together (the last result of each, as JSON); at most LIVE_QUERY_MAX_BYTES',
      registers: [registry],
    }),
    liveQueryRefusals: new Counter({
      name: 'clipgate_live_query_refusals_total',
      help: 'Live queries refused at the start, or ended by a larger result, by limit: count (LIVE_QUERY_MAX_PER_CALLER), caller_bytes (LIVE_QUERY_MAX_BYTES_PER_CALLER), bytes (LIVE_QUERY_MAX_BYTES)',
      labelNames: ['limit'] as const,
      registers: [registry],
    }),
  };
}

export type LiveMetrics = ReturnType<typeof liveMetrics>;
