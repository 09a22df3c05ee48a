import { purgeExpiredActivities } from '../activities/retention.ts';
import { purgeEventLog } from '../events/log.ts';
import { purgeDeliveryLog } from '../notifications/delivery/sql.ts';
import type { Services } from '../services.ts';
import type { PeriodicJob } from './scheduler.ts';

/** The longest media objects wait for deletion once their rows are gone. */
const MEDIA_GARBAGE_EVERY_MS = 60_000;

/** Every periodic job of an instance, in one list. */
export function backgroundJobs(services: Services): PeriodicJob[] {
  const { config, db, media } = services;
  const sweepMs = config.retentionSweepMs;
  return [
    {
      // Reads already ignore what fell out of the window; this reclaims the space. Media rows
      // cascade, and their trigger queues the objects for `media.garbage`.
      name: 'activities.retention',
      everyMs: sweepMs,
      run: () => purgeExpiredActivities(db),
    },
    {
      name: 'media.garbage',
      everyMs: Math.min(sweepMs, MEDIA_GARBAGE_EVERY_MS),
      run: () => media.cleanup.collectGarbage(),
    },
    {
      // Takes packaging jobs queued in the database (left by a full memory queue, a restart or
      // an instance that died) into this instance's queue.
      name: 'media.package-poll',
      everyMs: config.media.packager.pollMs,
      run: () => media.packager.poll(),
      wakeOn: (wake) => media.packager.onSlotFree(wake),
    },
    {
      name: 'events.log-retention',
      everyMs: sweepMs,
      run: () => purgeEventLog(db, config.eventLogRetentionHours),
    },
    {
      name: 'notifications.log-retention',
      everyMs: sweepMs,
      run: () => purgeDeliveryLog(db, config.webhook.deliveryLogRetentionDays),
    },
  ];
}
