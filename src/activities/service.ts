import type { AccessoryService, AccessoryView } from '../accessories/service.ts';
import type { AccountView } from '../accounts/service.ts';
import { conflict, invalidArgument, notFound } from '../errors.ts';
import { recordEvents, type EventSignal } from '../events/outbox.ts';
import type { NewEvent } from '../events/types.ts';
import type { Database, Tx } from '../storage/database.ts';
import { loadZoneIndex, testsZones, zoneMembershipSql } from '../zones/membership.ts';
import type { FilterNode } from './filter/index.ts';
import { activityIdFromDate, isActivityId, nextActivityId, retentionFloor } from './ids.ts';
import { activityJson, allExtraFields, type ActivityRecord } from './model.ts';
import { queryMany, queryOne, queryPage, type Operator, type Page } from './store.ts';

/** A list request as both APIs hand it over, already type-checked. */
export interface ListRequest {
  scanDirectionNewer: boolean;
  startActivityId?: string;
  operator?: Operator;
  limit: number;
  filter?: FilterNode;
}

/** What names one activity: its accessory and its id there. */
export interface ActivityKey {
  accessoryId: string;
  activityId: string;
}

export const MAX_LIMIT = 100;
export const DEFAULT_LIMIT = 20;

export interface ActivityInput {
  startTime?: Date;
  relevanceLevel?: number;
  motionZones?: string[];
  objectLocations?: number[];
}

export class ActivityService {
  constructor(
    private readonly db: Database,
    private readonly accessories: AccessoryService,
    private readonly signal: EventSignal,
  ) {}

  /** The one query path behind REST 4.1 and GraphQL `Accessory.activities`. */
  async list(account: AccountView, accessoryId: string, req: ListRequest): Promise<Page> {
    await this.accessories.owned(account.accountId, accessoryId);
    const floor = retentionFloor(account.retentionDays);
    if (req.startActivityId !== undefined && req.startActivityId < floor) {
      throw invalidArgument(
        'startActivityId',
        `startActivityId is older than the account's retention window (${account.retentionDays} days)`,
      );
    }
    return queryPage(this.db.pool, {
      accessoryId,
      floor,
      scanDirectionNewer: req.scanDirectionNewer,
      start:
        req.startActivityId !== undefined && req.operator !== undefined
          ? { activityId: req.startActivityId, operator: req.operator }
          : undefined,
      limit: req.limit,
      filter: req.filter,
      // A motionZones condition follows the accessory's zones (the zones-and-time rule).
      zoneMembership:
        req.filter && testsZones(req.filter)
          ? zoneMembershipSql(await loadZoneIndex(this.db.pool, accessoryId))
          : undefined,
    });
  }

  async get(
    account: AccountView,
    accessoryId: string,
    activityId: string,
  ): Promise<ActivityRecord> {
    await this.accessories.owned(account.accountId, accessoryId);
    if (!isActivityId(activityId)) throw notFound('activity');
    const activity = await queryOne(
      this.db.pool,
      accessoryId,
      activityId,
      retentionFloor(account.retentionDays),
    );
    if (!activity) throw notFound('activity');
    return activity;
  }

  /**
   * The activities of these keys, in their order: null for one that does not exist, is outside
   * the retention window or belongs to an accessory of another account.
   */
  async getMany(
    account: AccountView | null,
    keys: readonly ActivityKey[],
  ): Promise<(ActivityRecord | null)[]> {
    if (!account) return keys.map(() => null);
    const accessories = await this.accessories.getMany(keys.map((k) => k.accessoryId));
    const owned = keys.filter(
      (k) =>
        accessories.get(k.accessoryId)?.accountId === account.accountId &&
        isActivityId(k.activityId),
    );
    const rows = await queryMany(this.db.pool, owned, retentionFloor(account.retentionDays));
    const found = new Map(rows.map((a) => [`${a.accessoryId}/${a.activityId}`, a]));
    return keys.map((k) => found.get(`${k.accessoryId}/${k.activityId}`) ?? null);
  }

  /**
   * Creates the accessory's newest activity. Its id is the second of `createdAt`, or the next
   * free second after the newest id; a `createdAt` before the newest activity's is a conflict.
   * A still running previous activity is finished at the new one's creation.
   */
  async create(
    accessoryId: string,
    input: ActivityInput & { createdAt?: Date },
  ): Promise<ActivityRecord> {
    const createdAt = input.createdAt ?? new Date();
    checkInput(input);
    return this.change(accessoryId, async (tx, accessory, newest) => {
      const events: NewEvent[] = [];
      let activityId = activityIdFromDate(createdAt);
      if (newest) {
        if (createdAt < newest.createdAt) {
          throw conflict(`the accessory already has a newer activity (${newest.activityId})`);
        }
        if (activityId <= newest.activityId) activityId = nextActivityId(newest.activityId);
        if (newest.endTime === null) {
          const endTime = createdAt < newest.startTime ? newest.startTime : createdAt;
          const finished = await finish(tx, newest, endTime);
          events.push(activityEvent(accessory, 'activity_finished', finished));
        }
      }
      const startTime = input.startTime ?? createdAt;
      const created = await tx.activity.create({
        data: {
          accessoryId,
          activityId,
          createdAt,
          startTime,
          relevanceLevel: input.relevanceLevel ?? 0,
          motionZones: input.motionZones ?? [],
          objectLocations: input.objectLocations ?? [],
        },
      });
      events.push(activityEvent(accessory, 'activity_created', created));
      return { result: created, events };
    });
  }

  /** Changes the newest activity's metadata; any older one is fixed (409). */
  async update(
    accessoryId: string,
    activityId: string,
    input: ActivityInput,
  ): Promise<ActivityRecord> {
    checkInput(input);
    return this.change(accessoryId, async (tx, accessory, newest) => {
      const current = await requireNewest(tx, newest, activityId);
      const updated = await tx.activity.update({
        where: { accessoryId_activityId: { accessoryId, activityId } },
        data: {
          startTime: input.startTime,
          relevanceLevel: input.relevanceLevel,
          motionZones: input.motionZones,
          objectLocations: input.objectLocations,
          playbackDuration:
            input.startTime && current.endTime
              ? current.endTime.getTime() - input.startTime.getTime()
              : undefined,
          updatedAt: new Date(),
        },
      });
      if (updated.endTime && updated.endTime < updated.startTime) {
        throw invalidArgument('startTime', 'startTime must not be after the endTime');
      }
      return { result: updated, events: [activityEvent(accessory, 'activity_updated', updated)] };
    });
  }

  async finish(accessoryId: string, activityId: string, endTime: Date): Promise<ActivityRecord> {
    return this.change(accessoryId, async (tx, accessory, newest) => {
      const current = await requireNewest(tx, newest, activityId);
      if (current.endTime !== null) throw conflict('the activity is already finished');
      if (endTime < current.startTime) {
        throw invalidArgument('endTime', 'endTime must not be before the startTime');
      }
      const finished = await finish(tx, current, endTime);
      return {
        result: finished,
        events: [activityEvent(accessory, 'activity_finished', finished)],
      };
    });
  }

  /**
   * Runs an ingest change in one transaction with its events, serialized per accessory by a
   * row lock on the accessory, and wakes the event readers after the commit.
   */
  private async change(
    accessoryId: string,
    body: (
      tx: Tx,
      accessory: AccessoryView,
      newest: (ActivityRecord & { createdAt: Date }) | null,
    ) => Promise<{ result: ActivityRecord; events: NewEvent[] }>,
  ): Promise<ActivityRecord> {
    const accessory = await this.accessories.get(accessoryId);
    if (!accessory) throw notFound('accessory');
    const { result, stored } = await this.db.prisma.$transaction(async (tx) => {
      await tx.$queryRaw`SELECT 1 FROM accessories WHERE id = ${accessoryId}::uuid FOR UPDATE`;
      const newest = await tx.activity.findFirst({
        where: { accessoryId },
        orderBy: { activityId: 'desc' },
      });
      const { result, events } = await body(tx, accessory, newest);
      return { result, stored: await recordEvents(tx, events) };
    });
    this.signal.committed(stored);
    return result;
  }
}

async function requireNewest<T extends ActivityRecord>(
  tx: Tx,
  newest: T | null,
  activityId: string,
): Promise<T> {
  if (newest?.activityId === activityId) return newest;
  const exists =
    newest !== null &&
    isActivityId(activityId) &&
    (await tx.activity.count({
      where: { accessoryId: newest.accessoryId, activityId },
    })) > 0;
  if (!exists) throw notFound('activity');
  throw conflict(`only the newest activity (${newest.activityId}) can change`);
}

function finish(tx: Tx, activity: ActivityRecord, endTime: Date) {
  return tx.activity.update({
    where: {
      accessoryId_activityId: {
        accessoryId: activity.accessoryId,
        activityId: activity.activityId,
      },
    },
    data: {
      endTime,
      playbackDuration: endTime.getTime() - activity.startTime.getTime(),
      updatedAt: new Date(),
    },
  });
}

function activityEvent(
  accessory: AccessoryView,
  eventType: 'activity_created' | 'activity_updated' | 'activity_finished',
  activity: ActivityRecord,
): NewEvent {
  return {
    accountId: accessory.accountId,
    accessoryId: accessory.accessoryId,
    eventType,
    eventData: activityJson(activity, allExtraFields),
  };
}

const ZONE_ID = /^z[1-5R]$/;

/** The motionZones of ingest: zone ids z1..z5 and zR, at most six. */
export function checkMotionZones(motionZones: readonly string[]): void {
  if (motionZones.length > 6 || !motionZones.every((z) => ZONE_ID.test(z))) {
    throw invalidArgument('motionZones', 'motionZones holds zone ids z1..z5 and zR');
  }
}

function checkInput(input: ActivityInput): void {
  const { relevanceLevel, motionZones, objectLocations } = input;
  if (relevanceLevel !== undefined && (!Number.isInteger(relevanceLevel) || relevanceLevel < 0)) {
    throw invalidArgument('relevanceLevel', 'relevanceLevel must be a whole number, 0 or more');
  }
  if (motionZones) checkMotionZones(motionZones);
  if (
    objectLocations &&
    (objectLocations.length > 128 ||
      !objectLocations.every((c) => Number.isInteger(c) && c >= 0 && c <= 127))
  ) {
    throw invalidArgument('objectLocations', 'objectLocations holds grid cells 0..127');
  }
}
