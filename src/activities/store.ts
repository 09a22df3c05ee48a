import type pg from 'pg';
import {
  compileFilter,
  type CompileOptions,
  type FilterNode,
  type SqlBuilder,
} from './filter/index.ts';
import { StatementNames } from '../storage/statements.ts';
import type { ActivityRecord } from './model.ts';

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
}

export interface Page {
  /** Newest to oldest. */
  activities: ActivityRecord[];
  /** With nextStartAccessoryId, the position to continue from: the edge activity returned. */
  nextStartActivityId?: string;
  nextStartAccessoryId?: string;
}

/** The columns of an activity as `ActivityRecord` names them. */
export const ACTIVITY_COLUMNS = `accessory_id AS "accessoryId", activity_id AS "activityId", start_time AS "startTime",
  end_time AS "endTime", playback_duration AS "playbackDuration", relevance_level AS "relevanceLevel",
  motion_zones AS "motionZones", object_locations AS "objectLocations"`;

/** The columns of `StoredActivity` (./plan.ts): the write path's view of a row. */
export const STORED_COLUMNS = `${ACTIVITY_COLUMNS}, created_at AS "createdAt", updated_at AS "updatedAt", sequence`;

export class Params implements SqlBuilder {
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
  const sql = `SELECT ${ACTIVITY_COLUMNS} FROM activities WHERE ${where.join(' AND ')}
    ORDER BY activity_id ${order}, accessory_id ${order} LIMIT ${p.param(q.limit + 1)}`;
  const { rows } = await pool.query<ActivityRecord>(statements.query(sql, p.values));
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

export async function queryOne(
  pool: pg.Pool,
  accessoryId: string,
  activityId: string,
  floor: string,
): Promise<ActivityRecord | undefined> {
  const { rows } = await pool.query<ActivityRecord>(
    statements.query(
      `SELECT ${ACTIVITY_COLUMNS} FROM activities WHERE accessory_id = $1 AND activity_id = $2 AND activity_id >= $3`,
      [accessoryId, activityId, floor],
    ),
  );
  return rows[0];
}

/** The activities of these keys that exist inside the retention window, in one query. */
export async function queryMany(
  pool: pg.Pool,
  keys: readonly { accessoryId: string; activityId: string }[],
  floor: string,
): Promise<ActivityRecord[]> {
  if (keys.length === 0) return [];
  const { rows } = await pool.query<ActivityRecord>(
    statements.query(
      `SELECT ${ACTIVITY_COLUMNS} FROM activities
        WHERE (accessory_id, activity_id) IN (SELECT * FROM unnest($1::uuid[], $2::text[]))
          AND activity_id >= $3`,
      [keys.map((k) => k.accessoryId), keys.map((k) => k.activityId), floor],
    ),
  );
  return rows;
}
