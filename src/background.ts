import { purgeIdempotencyKeys } from './activities/batch.ts';
import { purgeExpiredActivities } from './activities/retention.ts';
import { purgeEventLog } from './events/log.ts';
import { purgeDeliveryLog } from './notifications/delivery/queue/purge.ts';
import type { Services } from './services.ts';
import { createPartitionsAhead } from './storage/partitions.ts';
import type { PeriodicJob } from './jobs/scheduler.ts';

/** The longest media objects wait for deletion once their rows are gone. */
const MEDIA_GARBAGE_EVERY_MS = 60_000;

/** Every periodic job of an instance, in one list. */
export function backgroundJobs(services: Services): PeriodicJob[] {
  const { config, db, media } = services;
  const sweepMs = config.retentionSweepMs;
  return [
    {
      // Days of activities, media, event log and delivery log, created a week ahead: the
      // guard partition above them is only for rows the job did not expect.
      name: 'storage.partitions',
      everyMs: sweepMs,
      run: () => createPartitionsAhead(db.pool),
    },
    {
      // Reads already ignore what fell out of the window; this drops the days past every
      // window, queueing their media objects for `media.garbage`.
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
      // Ingest announces the clips its finishes make ready right after its statement commits;
      // this catches the ones an instance died before announcing.
      name: 'media.ready',
      everyMs: MEDIA_GARBAGE_EVERY_MS,
      run: () => media.readiness.announcePending(db.pool),
    },
    {
      name: 'events.log-retention',
      everyMs: sweepMs,
      run: () => purgeEventLog(db, config.eventLogRetentionHours),
    },
    {
      // Idempotency-Key answers of ingest batches past their TTL (a day).
      name: 'ingest.idempotency-retention',
      everyMs: sweepMs,
      run: () => purgeIdempotencyKeys(db),
    },
    {
      name: 'notifications.log-retention',
      everyMs: sweepMs,
      run: () => purgeDeliveryLog(db, config.webhook.deliveryLogRetentionDays),
    },
  ];
}
