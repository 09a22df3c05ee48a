import type { AccessoryService } from '../accessories/service.ts';
import { AppError, invalidArgument, notFound } from '../errors.ts';
import { recordEvents, type EventSignal } from '../events/outbox.ts';
import type { StoredEvent } from '../events/types.ts';
import type { Database } from '../storage/database.ts';
import { checkMotionZones } from './service.ts';

export type MotionState = 'started' | 'ended';

/**
 * Ingest: the camera saw motion start or end. Records `motion_started` / `motion_ended` (which
 * queues their webhook deliveries, src/events/outbox.ts) without touching any activity.
 */
export async function reportMotion(
  deps: { db: Database; accessories: AccessoryService; signal: EventSignal },
  args: { accessoryId: string; state: MotionState; at: Date; motionZones: string[] },
): Promise<StoredEvent> {
  const { accessoryId, state, at, motionZones } = args;
  checkMotionZones(motionZones);
  if (new Set(motionZones).size !== motionZones.length) {
    throw invalidArgument('motionZones', 'motionZones lists a zone more than once');
  }
  if (Number.isNaN(at.getTime())) throw invalidArgument('at', 'at must be a timestamp');
  const accessory = await deps.accessories.get(accessoryId);
  if (!accessory) throw notFound('accessory');
  const stored = await deps.db.prisma.$transaction((tx) =>
    recordEvents(tx, [
      {
        accountId: accessory.accountId,
        accessoryId,
        eventType: state === 'started' ? 'motion_started' : 'motion_ended',
        eventData: { accessoryId, motionZones, timestamp: at.toISOString() },
      },
    ]),
  );
  deps.signal.committed(stored);
  const [event] = stored;
  if (!event) throw new AppError('INTERNAL', 'the event was not recorded');
  return event;
}
