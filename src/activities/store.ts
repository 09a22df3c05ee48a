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

/** A page request of the list operation, validated. */
export interface PageQuery {
  accessoryId: string;
  /** Activities with older ids are outside the retention window and never returned. */
  floor: string;
  scanDirectionNewer: boolean;
  start?: { activityId: string; operator: Operator };
  limit: number;
  filter?: FilterNode;
  /** How the filter's motionZones conditions are answered (src/zones/membership.ts). */
  zoneMembership?: CompileOptions['zoneMembership'];
}

export interface Page {
  /** Newest to oldest. */
  activities: ActivityRecord[];
  nextStartActivityId?: string;
}

/** The columns of an activity as `ActivityRecord` names them. */
export const ACTIVITY_COLUMNS = `accessory_id AS "accessoryId", activity_id AS "activityId", start_time AS "startTime",
  end_time AS "endTime", playback_duration AS "playbackDuration", relevance_level AS "relevanceLevel",
  motion_zones AS "motionZones", object_locations AS "objectLocations"`;

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
 * One keyset query on the primary key (accessory_id, activity_id), walked backward for a
 * newest-first page and forward for an oldest-first one. It fetches one row beyond the page to
 * know whether the range holds more, which is what nextStartActivityId promises.
 */
export async function queryPage(pool: pg.Pool, q: PageQuery): Promise<Page> {
  const p = new Params();
  const where = [`accessory_id = ${p.param(q.accessoryId)}`, `activity_id >= ${p.param(q.floor)}`];
  if (q.start) where.push(`activity_id ${q.start.operator} ${p.param(q.start.activityId)}`);
  if (q.filter) {
    where.push(`(${compileFilter(q.filter, p, { zoneMembership: q.zoneMembership })})`);
  }
  const order = q.scanDirectionNewer ? 'DESC' : 'ASC';
  const sql = `SELECT ${ACTIVITY_COLUMNS} FROM activities WHERE ${where.join(' AND ')}
    ORDER BY activity_id ${order} LIMIT ${p.param(q.limit + 1)}`;
  const { rows } = await pool.query<ActivityRecord>(statements.query(sql, p.values));
  const more = rows.length > q.limit;
  if (more) rows.pop();
  if (!q.scanDirectionNewer) rows.reverse();
  const edge = q.scanDirectionNewer ? rows.at(-1) : rows[0];
  return more && edge
    ? { activities: rows, nextStartActivityId: edge.activityId }
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
