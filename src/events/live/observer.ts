import type { Logger } from '../../logger.ts';
import type { LiveMetrics } from './metrics.ts';
import type { LiveObserver } from './ports.ts';

/** Reports live events to the Prometheus metrics and the log. */
export function liveObserver(metrics: LiveMetrics, logger: Logger): LiveObserver {
  return {
    subscriptions: (change) => metrics.liveSubscriptions.inc(change),
    delivered: () => metrics.liveEventsFannedOut.inc(),
    slowConsumer: (stream) => {
      metrics.liveSlowConsumers.inc();
      logger.info({ stream }, 'cut a slow live-event subscriber');
    },
    failed: (err, message, topic) => logger.error({ err, topic }, message),
    repaired: (count, cause) => {
      metrics.liveEventsRepaired.inc({ cause }, count);
      // Only the check finds what nothing else noticed: an overtaken event is still on its
      // way, and the bus logs its reconnections.
      if (cause === 'check') logger.info({ count }, 'read live events that were never published');
    },
    timedOut: (wait) => {
      metrics.liveWaitTimeouts.inc({ wait });
      logger.warn({ wait }, 'a live-event wait ran into its bound');
    },
    checkFailed: (err) =>
      logger.warn({ err }, 'checking live streams against the event log failed; trying again'),
  };
}
