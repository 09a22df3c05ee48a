import type { Metrics } from '../../http/metrics.ts';
import type { Logger } from '../../logger.ts';
import type { LiveObserver } from './ports.ts';

type LiveMetrics = Pick<Metrics, 'liveSubscriptions' | 'liveEventsFannedOut' | 'liveSlowConsumers'>;

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
  };
}
