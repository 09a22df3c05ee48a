import type pg from 'pg';
import {
  compileFilter,
  type CompileOptions,
  type FilterNode,
  type SqlBuilder,
} from '../filter/index.ts';
import { StatementNames } from '../storage/statements.ts';
import type { ActivityRecord, ListedActivity } from './model.ts';

/** The read statements of this module, prepared once per connection. */
const statements = new StatementNames();

export type Operator = '<' | '<=' | '>' | '>=';
export const operators: readonly Operator[] = ['<', '<=', '>', '>='];

/**
 * Whose activities a page lists: one accessory's (the per-accessory listing), or an account's
 * across its accessories (the timeline), all of them or the chosen ones (already checked to be
 * the account's).
 */
export type PageScope =
  { accessoryId: string } | { accountId: string; accessoryIds?: readonly string[] };

/**
 * A position in the listing's order (activity_id, then accessory_id). Without `accessoryId` the
 * bound is the id alone: every accessory's activity of that second compares the same.
 */
export interface PageStart {
  activityId: string;
  accessoryId?: string;
  operator: Operator;
}

/** A page request of the list operation, validated. */
export interface PageQuery {
  scope: PageScope;
  /** Activities with older ids are outside the retention window and never returned. */
  floor: string;
  scanDirectionNewer: boolean;
  start?: PageStart;
  limit: number;
  filter?: FilterNode;
  /** How the filter's motionZones conditions are answered (src/zones/membership.ts). */
  zoneMembership?: CompileOptions['zoneMembership'];
  /** Whether each activity's motionZones and objectLocations are read (ListRequest.locations). */
  locations: boolean;
}

export interface Page {
  /** Newest to oldest. */
  activities: ListedActivity[];
  /** With nextStartAccessoryId, the position to continue from: the edge activity returned. */
  nextStartActivityId?: string;
  nextStartAccessoryId?: string;
}

/** The columns of a listed activity, without its locations, as `ActivityRecord` names them. */
const LISTED_COLUMNS = `accessory_id AS "accessoryId", activity_id AS "activityId", start_time AS "startTime",
  end_time AS "endTime", playback_duration AS "playbackDuration", relevance_level AS "relevanceLevel"`;

/** The columns of an activity as `ActivityRecord` names them. */
export const ACTIVITY_COLUMNS = `${LISTED_COLUMNS},
  motion_zones AS "motionZones", object_locations AS "objectLocations"`;

/** A row of ACTIVITY_COLUMNS, or of LISTED_COLUMNS (the first six), read as an array. */
type ActivityRow = [
  accessoryId: string,
  activityId: string,
  startTime: Date,
  endTime: Date | null,
  playbackDuration: number | null,
  relevanceLevel: number,
  motionZones?: string[],
  objectLocations?: number[],
];

/** A statement that reads activities: what follows its columns (`FROM ...`), and its values. */
interface ActivitiesStatement {
  /** Whether it reads their locations too (ACTIVITY_COLUMNS, else LISTED_COLUMNS). */
  locations: boolean;
  from: string;
  values: unknown[];
}

/**
 * The activities a statement reads. Its rows come as arrays and become records of one shape
 * here: pg builds each row object key by key from a prototype-less template, which V8 cannot keep
 * to one shape, and every read of such a row pays for it. Locations left unread are neither sent
 * by PostgreSQL nor parsed here: two arrays a row, about a sixth of the service's CPU per page.
 */
function queryActivities(
  pool: pg.Pool,
  statement: ActivitiesStatement & { locations: true },
): Promise<ActivityRecord[]>;
function queryActivities(pool: pg.Pool, statement: ActivitiesStatement): Promise<ListedActivity[]>;
async function queryActivities(
  pool: pg.Pool,
  { locations, from, values }: ActivitiesStatement,
): Promise<ListedActivity[]> {
  const columns = locations ? ACTIVITY_COLUMNS : LISTED_COLUMNS;
  const { rows } = await pool.query<ActivityRow>({
    ...statements.query(`SELECT ${columns} ${from}`, values),
    rowMode: 'array',
  });
  return rows.map((r) => ({
    accessoryId: r[0],
    activityId: r[1],
    startTime: r[2],
    endTime: r[3],
    playbackDuration: r[4],
    relevanceLevel: r[5],
    motionZones: r[6],
    objectLocations: r[7],
  }));
}

/** The columns of `StoredActivity` (./plan.ts): the write path's view of a row. */
export const STORED_COLUMNS = `${ACTIVITY_COLUMNS}, created_at AS "createdAt", updated_at AS "updatedAt", sequence`;

class Params implements SqlBuilder {
  readonly values: unknown[] = [];
  param(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/**
 * The conditions every read of a page's or a count's activities shares: its scope, the
 * retention floor and the filter. An accessory's activities are a range of the primary key
 * (accessory_id, activity_id); an account's a range of (account_id, activity_id, accessory_id).
 */
export function scopeConditions(
  p: SqlBuilder,
  q: Pick<PageQuery, 'scope' | 'floor' | 'filter' | 'zoneMembership'>,
): string[] {
  const where =
    'accessoryId' in q.scope
      ? [`accessory_id = ${p.param(q.scope.accessoryId)}::uuid`]
      : [`account_id = ${p.param(q.scope.accountId)}::uuid`];
  if ('accountId' in q.scope && q.scope.accessoryIds) {
    where.push(`accessory_id = ANY(${p.param(q.scope.accessoryIds)}::uuid[])`);
  }
  where.push(`activity_id >= ${p.param(q.floor)}`);
  if (q.filter) {
    where.push(`(${compileFilter(q.filter, p, { zoneMembership: q.zoneMembership })})`);
  }
  return where;
}

/**
 * One keyset query, walked backward for a newest-first page and forward for an oldest-first one,
 * in the order (activity_id, accessory_id): on the primary key for an accessory, on the account
 * index for a timeline, where the accessory id breaks ties between accessories within a second.
 * It fetches one row beyond the page to know whether the range holds more, which is what
 * nextStartActivityId promises.
 */
export async function queryPage(pool: pg.Pool, q: PageQuery): Promise<Page> {
  const p = new Params();
  const where = scopeConditions(p, q);
  if (q.start?.accessoryId !== undefined) {
    where.push(
      `(activity_id, accessory_id) ${q.start.operator} (${p.param(q.start.activityId)}, ${p.param(q.start.accessoryId)}::uuid)`,
    );
  } else if (q.start) {
    where.push(`activity_id ${q.start.operator} ${p.param(q.start.activityId)}`);
  }
  const order = q.scanDirectionNewer ? 'DESC' : 'ASC';
  const rows = await queryActivities(pool, {
    locations: q.locations,
    from: `FROM activities WHERE ${where.join(' AND ')}
    ORDER BY activity_id ${order}, accessory_id ${order} LIMIT ${p.param(q.limit + 1)}`,
    values: p.values,
  });
  const more = rows.length > q.limit;
  if (more) rows.pop();
  if (!q.scanDirectionNewer) rows.reverse();
  const edge = q.scanDirectionNewer ? rows.at(-1) : rows[0];
  return more && edge
    ? {
        activities: rows,
        nextStartActivityId: edge.activityId,
        nextStartAccessoryId: edge.accessoryId,
      }
    : { activities: rows };
}

/** What a count groups by, besides its bucket. */
export type CountGroup = 'ACCESSORY' | 'RELEVANCE' | 'ZONE';
export const countGroups: readonly CountGroup[] = ['ACCESSORY', 'RELEVANCE', 'ZONE'];

/** A count request, validated: the activities of a page's scope whose id is in [from, to). */
export interface CountQuery extends Pick<PageQuery, 'floor' | 'filter' | 'zoneMembership'> {
  scope: Extract<PageScope, { accountId: string }>;
  from: string;
  to: string;
  bucket: 'hour' | 'day';
  /** An IANA name PostgreSQL knows. */
  timeZone: string;
  groupBy: readonly CountGroup[];
  /**
   * The quarter hours (slots, `YYYYMMDDTHHMM`) from `from` up to `to` inside the range that
   * activity_rollup answers; only the activities outside them are read. Only for all the
   * account's accessories, without a filter and not by ACCESSORY (the rollup has neither).
   */
  rollup?: { from: string; to: string };
}

export interface CountBucket {
  start: Date;
  count: number;
  accessoryId: string | null;
  relevanceLevel: number | null;
  zoneId: string | null;
}

const groupColumns: Record<CountGroup, string> = {
  ACCESSORY: 'accessory_id',
  RELEVANCE: 'relevance_level',
  ZONE: 'zone_id',
};

/**
 * The activities of a scope counted by calendar hour or day of a time zone, from the same rows
 * and conditions a page reads (so a count and a listing of the same range and filter agree).
 * Rows are first counted per UTC minute of their id (every time zone's hours and days begin on
 * a whole minute since 1972), then each minute is put in its bucket by PostgreSQL's
 * `date_trunc(unit, minute, zone)`, which knows DST days of 23 and 25 hours and the zones of
 * half and quarter hours. ZONE counts an activity once in each zone of its motionZones, and
 * once under null when it has none. At most `limit` buckets, the first ones.
 */
export async function queryCounts(
  pool: pg.Pool,
  q: CountQuery,
  limit: number,
): Promise<CountBucket[]> {
  const p = new Params();
  const where = scopeConditions(p, q);
  const keys = q.groupBy.map((g) => `, ${groupColumns[g]}`).join('');
  const zones = q.groupBy.includes('ZONE');
  const from = p.param(q.from);
  const to = p.param(q.to);
  const parts: string[] = [];
  if (q.rollup) {
    const [a, b] = [p.param(q.rollup.from), p.param(q.rollup.to)];
    const [aId, bId] = [p.param(`${q.rollup.from}00Z`), p.param(`${q.rollup.to}00Z`)];
    where.push(
      `((activity_id >= ${from} AND activity_id < ${aId}) OR (activity_id >= ${bId} AND activity_id < ${to}))`,
    );
    const rollupWhere = [
      `account_id = ${p.param(q.scope.accountId)}::uuid`,
      `slot >= ${a}`,
      `slot < ${b}`,
    ];
    const rollupRows = zones
      ? `activity_rollup LEFT JOIN LATERAL unnest(string_to_array(zones, ',')) AS z(zone_id) ON true`
      : 'activity_rollup';
    parts.push(`SELECT slot AS minute${keys}, sum(count) AS n FROM ${rollupRows}
           WHERE ${rollupWhere.join(' AND ')} GROUP BY minute${keys}`);
  } else {
    where.push(`activity_id >= ${from}`, `activity_id < ${to}`);
  }
  const rows = zones
    ? 'activities LEFT JOIN LATERAL unnest(motion_zones) AS z(zone_id) ON true'
    : 'activities';
  parts.unshift(`SELECT left(activity_id, 13) AS minute${keys}, count(*) AS n FROM ${rows}
           WHERE ${where.join(' AND ')} GROUP BY minute${keys}`);
  const minute = `make_timestamptz(substr(minute, 1, 4)::int, substr(minute, 5, 2)::int,
    substr(minute, 7, 2)::int, substr(minute, 10, 2)::int, substr(minute, 12, 2)::int, 0, 'UTC')`;
  const sql = `SELECT date_trunc(${p.param(q.bucket)}::text, ${minute}, ${p.param(q.timeZone)}::text) AS start,
      sum(n)::int AS count${keys}
    FROM (${parts.join(' UNION ALL ')}) AS m
    GROUP BY 1${keys} HAVING sum(n) > 0 ORDER BY 1${keys} LIMIT ${p.param(limit)}`;
  const { rows: found } = await pool.query<Record<string, unknown>>(
    statements.query(sql, p.values),
  );
  return found.map((r) => ({
    start: r.start as Date,
    count: r.count as number,
    accessoryId: (r.accessory_id as string | undefined) ?? null,
    relevanceLevel: (r.relevance_level as number | undefined) ?? null,
    zoneId: (r.zone_id as string | undefined) ?? null,
  }));
}

/** The start of the bucket of a count's `bucket` and time zone that holds `at`. */
export async function queryBucketStart(
  pool: pg.Pool,
  q: Pick<CountQuery, 'bucket' | 'timeZone'>,
  at: Date,
): Promise<Date> {
  const { rows } = await pool.query<{ start: Date }>(
    statements.query(`SELECT date_trunc($1::text, $2::timestamptz, $3::text) AS start`, [
      q.bucket,
      at,
      q.timeZone,
    ]),
  );
  return rows[0]!.start;
}

export async function queryOne(
  pool: pg.Pool,
  accessoryId: string,
  activityId: string,
  floor: string,
): Promise<ActivityRecord | undefined> {
  const rows = await queryActivities(pool, {
    locations: true,
    from: 'FROM activities WHERE accessory_id = $1 AND activity_id = $2 AND activity_id >= $3',
    values: [accessoryId, activityId, floor],
  });
  return rows[0];
}

/** The activities of these keys that exist inside the retention window, in one query. */
export async function queryMany(
  pool: pg.Pool,
  keys: readonly { accessoryId: string; activityId: string }[],
  floor: string,
): Promise<ActivityRecord[]> {
  if (keys.length === 0) return [];
  return queryActivities(pool, {
    locations: true,
    from: `FROM activities
        WHERE (accessory_id, activity_id) IN (SELECT * FROM unnest($1::uuid[], $2::text[]))
          AND activity_id >= $3`,
    values: [keys.map((k) => k.accessoryId), keys.map((k) => k.activityId), floor],
  });
}
