import type { AccessoryService } from '../accessories/service.ts';
import type { AccountView } from '../accounts/service.ts';
import { invalidArgument, notFound } from '../errors.ts';
import { isUuid } from '../ids.ts';
import type { EventSignal } from '../events/outbox.ts';
import type { Database } from '../storage/database.ts';
import { testsZones, zoneMembershipSql } from '../zones/membership.ts';
import { isZoneId } from '../zones/validation.ts';
import { MAX_COUNT_BUCKETS, MAX_COUNT_RANGE_DAYS } from './count-cost.ts';
import { countRange, queryCountsInWindows } from './count-windows.ts';
import type { FilterNode } from '../filter/index.ts';
import { activityIdFromDate, isActivityId, retentionFloor } from '../activity-ids.ts';
import type { ActivityRecord } from './model.ts';
import type { ActivityChange, ActivityInput } from './plan.ts';
import {
  queryCounts,
  queryMany,
  queryOne,
  queryPage,
  type CountBucket,
  type CountGroup,
  type CountQuery,
  type Operator,
  type Page,
  type PageScope,
} from './store.ts';
import { ActivityWriter, type SettledClips } from './writes.ts';

export type { ActivityInput } from './plan.ts';

/** A list request as both APIs hand it over, already type-checked. */
export interface ListRequest {
  scanDirectionNewer: boolean;
  startActivityId?: string;
  /** The timeline's tie-break: with startActivityId, a position between accessories. */
  startAccessoryId?: string;
  operator?: Operator;
  limit: number;
  filter?: FilterNode;
  /**
   * Whether the answer shows motionZones or objectLocations: only then are they read (REST's
   * extraFields, the fields a GraphQL page selects).
   */
  locations: boolean;
}

/** A count request as both APIs hand it over, already type-checked. */
export interface CountRequest {
  from: Date;
  to: Date;
  bucket: 'HOUR' | 'DAY';
  groupBy: readonly CountGroup[];
  timeZone: string;
  filter?: FilterNode;
  accessoryIds?: readonly string[];
}

/** The last second an activity id can name (9999-12-31T23:59:59Z). */
const LAST_ACTIVITY_MS = Date.UTC(9999, 11, 31, 23, 59, 59);

export { MAX_COUNT_RANGE_DAYS } from './count-cost.ts';

/** A count's buckets, and the database time they took (what settles the count's cost). */
export interface CountResult {
  buckets: CountBucket[];
  databaseMs: number;
}

/** What names one activity: its accessory and its id there. */
export interface ActivityKey {
  accessoryId: string;
  activityId: string;
}

export const MAX_LIMIT = 100;
export const DEFAULT_LIMIT = 20;
/** The most accessories a timeline or a count may name. */
export const MAX_TIMELINE_ACCESSORIES = 500;

/** `accessoryIds` of a timeline or a count: 1..500 accessory ids (a 400 naming the field). */
export function checkAccessoryIds(accessoryIds: readonly string[]): string[] {
  if (
    accessoryIds.length < 1 ||
    accessoryIds.length > MAX_TIMELINE_ACCESSORIES ||
    !accessoryIds.every(isUuid)
  ) {
    throw invalidArgument(
      'accessoryIds',
      `accessoryIds holds 1..${MAX_TIMELINE_ACCESSORIES} accessory ids (lower-case UUID v4)`,
    );
  }
  return [...new Set(accessoryIds)];
}

export class ActivityService {
  /** Every ingest change goes through it: single ones, batches and motion reports. */
  readonly writer: ActivityWriter;

  constructor(
    private readonly db: Database,
    private readonly accessories: AccessoryService,
    signal: EventSignal,
    /** Finishing an activity whose clip is settled makes it ready (activity_media_ready). */
    readiness: SettledClips,
  ) {
    this.writer = new ActivityWriter(db, accessories, signal, readiness);
  }

  /** The one query path behind the REST listing and GraphQL `Accessory.activities`. */
  async list(account: AccountView, accessoryId: string, req: ListRequest): Promise<Page> {
    await this.accessories.owned(account.accountId, accessoryId);
    return this.page(account, { accessoryId }, req);
  }

  /**
   * The account timeline: the activities of the account's accessories (or of the chosen ones,
   * each of which must be the account's: another's is a 404, as in the per-accessory listing),
   * newest first, by the listing's rules. Ties within a second go by accessory id.
   */
  async timeline(
    account: AccountView,
    req: ListRequest & { accessoryIds?: readonly string[] },
  ): Promise<Page> {
    await this.checkChosen(account, req.accessoryIds);
    return this.page(
      account,
      { accountId: account.accountId, accessoryIds: req.accessoryIds },
      req,
    );
  }

  /** 404 unless every chosen accessory is the account's, as the listing answers another's. */
  private async checkChosen(account: AccountView, accessoryIds?: readonly string[]) {
    if (!accessoryIds) return;
    const found = await this.accessories.getMany(accessoryIds);
    if (accessoryIds.some((id) => found.get(id)?.accountId !== account.accountId)) {
      throw notFound('accessory');
    }
  }

  private page(account: AccountView, scope: PageScope, req: ListRequest): Promise<Page> {
    const floor = retentionFloor(account.retentionDays);
    if (req.startActivityId !== undefined && req.startActivityId < floor) {
      throw invalidArgument(
        'startActivityId',
        `startActivityId is older than the account's retention window (${account.retentionDays} days)`,
      );
    }
    return queryPage(this.db.readPoolFor(account.accountId), {
      scope,
      floor,
      scanDirectionNewer: req.scanDirectionNewer,
      start:
        req.startActivityId !== undefined && req.operator !== undefined
          ? {
              activityId: req.startActivityId,
              accessoryId: req.startAccessoryId,
              operator: req.operator,
            }
          : undefined,
      limit: req.limit,
      filter: req.filter,
      locations: req.locations,
      // A motionZones condition follows each accessory's zones (the zones-and-time rule).
      zoneMembership:
        req.filter && testsZones(req.filter)
          ? zoneMembershipSql('accessoryId' in scope ? scope.accessoryId : undefined)
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
   * The activities of the account (or of the chosen accessories) created in [from, to), counted
   * by hour or day of `timeZone` and the groups asked for, from the rows the timeline lists.
   * At most MAX_COUNT_BUCKETS buckets (else a 400 on `bucket`). On the embedded database, whose
   * statements run on the event loop, in windows of short statements (./count-windows.ts).
   */
  async counts(account: AccountView, req: CountRequest): Promise<CountResult> {
    const { from, to } = req;
    if (!(from.getTime() < to.getTime())) throw invalidArgument('to', 'to must be after from');
    if (to.getTime() - from.getTime() > MAX_COUNT_RANGE_DAYS * 86_400_000) {
      throw invalidArgument('to', `from..to spans at most ${MAX_COUNT_RANGE_DAYS} days`);
    }
    if (from.getTime() < 0) throw invalidArgument('from', 'from must not be before 1970');
    if (to.getTime() > LAST_ACTIVITY_MS) throw invalidArgument('to', 'to must be before 10000');
    if (!(await this.timeZones()).has(req.timeZone)) {
      throw invalidArgument(
        'timeZone',
        'timeZone must be an IANA time zone name, e.g. Europe/Berlin',
      );
    }
    await this.checkChosen(account, req.accessoryIds);
    const pool = this.db.readPoolFor(account.accountId);
    const q = countQuery(account, req);
    const started = performance.now();
    const buckets =
      this.db.kind === 'embedded'
        ? await queryCountsInWindows(pool, q, MAX_COUNT_BUCKETS)
        : await queryCounts(pool, q, MAX_COUNT_BUCKETS + 1);
    const databaseMs = performance.now() - started;
    if (buckets.length > MAX_COUNT_BUCKETS) {
      throw invalidArgument(
        'bucket',
        `a count answers at most ${MAX_COUNT_BUCKETS} buckets (hours or days times groups); ask for DAY buckets, a shorter range or fewer groups`,
      );
    }
    return { buckets, databaseMs };
  }

  /** The time zone names the database knows, read once. */
  private timeZones(): Promise<Set<string>> {
    this.#timeZones ??= this.db.pool
      .query<{ name: string }>('SELECT name FROM pg_timezone_names')
      .then(({ rows }) => new Set(rows.map((r) => r.name)));
    return this.#timeZones;
  }

  #timeZones: Promise<Set<string>> | undefined;

  /** Creates the accessory's newest activity (the rules: `planChange` in ./plan.ts). */
  create(
    accessoryId: string,
    input: ActivityInput & { createdAt?: Date },
  ): Promise<ActivityRecord> {
    checkInput(input);
    return this.change(accessoryId, {
      kind: 'create',
      input: { ...input, createdAt: input.createdAt ?? new Date() },
    });
  }

  /** Changes the newest activity's metadata; any older one is fixed (409). */
  update(accessoryId: string, activityId: string, input: ActivityInput): Promise<ActivityRecord> {
    checkInput(input);
    return this.change(accessoryId, { kind: 'update', activityId, input });
  }

  finish(accessoryId: string, activityId: string, endTime: Date): Promise<ActivityRecord> {
    return this.change(accessoryId, { kind: 'finish', activityId, endTime });
  }

  /**
   * Runs one ingest change through the write path (./writes.ts): one round trip, shared with the
   * changes other requests send meanwhile.
   */
  async change(accessoryId: string, change: ActivityChange): Promise<ActivityRecord> {
    const outcome = await this.writer.applyOne({ accessoryId, ...change });
    if (!outcome.ok) throw outcome.error;
    return outcome.activity!;
  }
}

/** A checked count request as the query that answers it for the account. */
export function countQuery(
  account: Pick<AccountView, 'accountId' | 'retentionDays'>,
  req: CountRequest,
): CountQuery {
  // An activity counts when the second of its id is in [from, to): ids from the next whole second.
  const id = (t: Date) => activityIdFromDate(new Date(Math.ceil(t.getTime() / 1000) * 1000));
  const floor = retentionFloor(account.retentionDays);
  const lo = id(req.from) > floor ? id(req.from) : floor;
  const hi = id(req.to);
  // The whole quarter hours inside [lo, hi) come from the account's rollup, unless a filter
  // must be tested on every activity or the accessories matter.
  const rollup = !req.filter && !req.accessoryIds && !req.groupBy.includes('ACCESSORY');
  const query: CountQuery = {
    scope: { accountId: account.accountId, accessoryIds: req.accessoryIds },
    floor,
    from: lo,
    to: hi,
    bucket: req.bucket === 'DAY' ? 'day' : 'hour',
    timeZone: req.timeZone,
    groupBy: [...new Set(req.groupBy)],
    filter: req.filter,
    zoneMembership: req.filter && testsZones(req.filter) ? zoneMembershipSql() : undefined,
  };
  return countRange(query, lo, hi, rollup);
}

/** The motionZones of ingest: zone ids z1..z5 and zR, at most six. */
export function checkMotionZones(motionZones: readonly string[]): void {
  if (motionZones.length > 6 || !motionZones.every(isZoneId)) {
    throw invalidArgument('motionZones', 'motionZones holds zone ids z1..z5 and zR');
  }
}

/** The largest relevanceLevel: the column (and GraphQL's Int) hold 32-bit integers. */
const MAX_INT = 2_147_483_647;

/** The checks of an activity's metadata, each a 400 naming its field. */
export function checkInput(input: ActivityInput): void {
  const { relevanceLevel, motionZones, objectLocations } = input;
  if (
    relevanceLevel !== undefined &&
    (!Number.isInteger(relevanceLevel) || relevanceLevel < 0 || relevanceLevel > MAX_INT)
  ) {
    throw invalidArgument(
      'relevanceLevel',
      `relevanceLevel must be a whole number, 0 to ${MAX_INT}`,
    );
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
