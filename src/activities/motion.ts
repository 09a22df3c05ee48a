import { AppError, invalidArgument } from '../errors.ts';
import type { StoredEvent } from '../events/types.ts';
import { checkIngestInstant } from './plan.ts';
import { checkMotionZones, type ActivityService } from './service.ts';

export type MotionState = 'started' | 'ended';

export interface MotionReport {
  accessoryId: string;
  state: MotionState;
  at: Date;
  motionZones: string[];
}

/** The checks of a motion report, each a 400 naming its field. */
export function checkMotionReport({ at, motionZones }: MotionReport): void {
  checkMotionZones(motionZones);
  if (new Set(motionZones).size !== motionZones.length) {
    throw invalidArgument('motionZones', 'motionZones lists a zone more than once');
  }
  checkIngestInstant('at', at, new Date());
}

/**
 * Ingest: the camera saw motion start or end. Records `motion_started` / `motion_ended` (which
 * queues their webhook deliveries, src/events/outbox.ts) without touching any activity, through
 * the write path (./writes.ts) in one round trip.
 */
export async function reportMotion(
  deps: { activities: ActivityService },
  report: MotionReport,
): Promise<StoredEvent> {
  checkMotionReport(report);
  const outcome = await deps.activities.writer.applyOne({ kind: 'motion', ...report });
  if (!outcome.ok) throw outcome.error;
  if (!outcome.event) throw new AppError('INTERNAL', 'the event was not recorded');
  return outcome.event;
}
