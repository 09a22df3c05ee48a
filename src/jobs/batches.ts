import type { Queryable } from '../storage/database.ts';

export interface BatchedDelete {
  /** The table, e.g. `events`. */
  table: string;
  /** Its key column. */
  key: string;
  /** Which rows go, with `$1`.. placeholders for `params`. */
  where: string;
  params?: unknown[];
  /** The order in which rows go, e.g. to walk an index; default: any. */
  order?: string;
  /** Rows per statement (default 5000): no statement holds many locks or runs long. */
  batch?: number;
}

/**
 * Deletes the rows matching `where`, a batch per statement, until none is left; resolves with
 * how many went. Idempotent, so several instances may run it at once.
 */
export async function deleteInBatches(db: Queryable, spec: BatchedDelete): Promise<number> {
  const params = spec.params ?? [];
  const batch = spec.batch ?? 5000;
  const sql = `DELETE FROM ${spec.table} WHERE ${spec.key} IN (
      SELECT ${spec.key} FROM ${spec.table} WHERE ${spec.where}
       ${spec.order ? `ORDER BY ${spec.order}` : ''} LIMIT ${batch})`;
  let total = 0;
  for (;;) {
    const { rowCount } = await db.query(sql, params);
    total += rowCount ?? 0;
    if ((rowCount ?? 0) < batch) return total;
  }
}
