import type pg from 'pg';
import type { Queryable } from '../storage/database.ts';

export interface LeaseClaim {
  /** The table holding the work, e.g. `media_garbage`. */
  table: string;
  /** Its key column (or a parenthesized list of columns). */
  key: string;
  /** Which rows are due and free, with `$1`.. placeholders for `params`. */
  due: string;
  /** The order in which due rows are taken, e.g. `id`. */
  order: string;
  /**
   * The assignments that take the lease, e.g. `delete_after = now() + interval '5 minutes'`:
   * they must make the row no longer `due` until the lease runs out or the work is done.
   */
  take: string;
  /** What each claimed row returns. */
  returning: string;
  params?: unknown[];
}

/**
 * Claims up to `limit` due rows for this instance in one statement: `FOR UPDATE SKIP LOCKED`
 * picks rows no other transaction holds, and `take` moves them out of `due`, so two instances
 * never get the same row; a row whose holder died becomes due again when its lease runs out.
 */
export async function claimDue<Row extends pg.QueryResultRow>(
  db: Queryable,
  spec: LeaseClaim,
  limit: number,
): Promise<Row[]> {
  const params = [...(spec.params ?? []), limit];
  // `(a, b) IN (SELECT a, b ...)`: the subquery selects the columns, not one row value.
  const columns = spec.key.replace(/^\((.*)\)$/s, '$1');
  const { rows } = await db.query<Row>(
    `UPDATE ${spec.table} SET ${spec.take}
      WHERE ${spec.key} IN (SELECT ${columns} FROM ${spec.table} WHERE ${spec.due}
                             ORDER BY ${spec.order} LIMIT $${params.length}
                             FOR UPDATE SKIP LOCKED)
      RETURNING ${spec.returning}`,
    params,
  );
  return rows;
}
