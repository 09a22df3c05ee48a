import type pg from 'pg';
import type {
  CompileOptions,
  EvaluateOptions,
  FilterNode,
  SqlBuilder,
} from '../activities/filter/index.ts';
import { SYSTEM_ZONE_ID } from './validation.ts';

/**
 * What a zone condition needs to know about an accessory's zones: when they were last saved,
 * and the grid cells each currently defined zone covers.
 */
export interface ZoneIndex {
  lastModified: Date;
  cells: ReadonlyMap<string, readonly number[]>;
}

/**
 * The accessory's zone index in one statement (one snapshot), or null before its first save.
 * A zone set saved with no zones has a lastModified and no cells.
 */
export async function loadZoneIndex(pool: pg.Pool, accessoryId: string): Promise<ZoneIndex | null> {
  const { rows } = await pool.query<{
    lastModified: Date;
    zoneId: string | null;
    cells: number[] | null;
  }>(
    `SELECT s.last_modified AS "lastModified", z.zone_id AS "zoneId", z.cells
       FROM zone_sets s LEFT JOIN zones z ON z.accessory_id = s.accessory_id
      WHERE s.accessory_id = $1`,
    [accessoryId],
  );
  const first = rows[0];
  if (!first) return null;
  const cells = new Map<string, number[]>();
  for (const row of rows) if (row.zoneId !== null) cells.set(row.zoneId, row.cells ?? []);
  return { lastModified: first.lastModified, cells };
}

/** Whether the filter tests zone membership (contains* on motionZones), which needs the index. */
export function testsZones(node: FilterNode): boolean {
  switch (node.type) {
    case 'and':
    case 'or':
      return node.operands.some(testsZones);
    case 'not':
      return testsZones(node.operand);
    case 'contains':
    case 'contains_any':
    case 'contains_all':
      return node.attribute === 'motionZones';
    default:
      return false;
  }
}

/**
 * Zone membership by the contract's "zones and time" rule, for compileFilter's
 * `zoneMembership` hook. For zone id Z:
 * - before the first save (no index), and for the system zone zR: exact, Z in motionZones;
 * - an activity that started after lastModified: exact, Z in motionZones;
 * - one that started at or before lastModified: one of its objectLocations lies in a cell that
 *   Z's current polygon covers. A zone id not currently defined covers no cells: false.
 * All of it is one SQL boolean expression per zone id, never NULL, with the zone id, the
 * timestamp and the cells as bound parameters (the cells as smallint[]); the database decides
 * row by row while it walks the paging index.
 *
 * The returned hook binds lastModified and each zone's cells once per query: make one per query.
 */
export function zoneMembershipSql(index: ZoneIndex | null): CompileOptions['zoneMembership'] {
  let lastModified: string | undefined;
  const cells = new Map<string, string>();
  return (zoneId: string, sql: SqlBuilder) => {
    const exact = `${sql.param(zoneId)}::text = ANY(motion_zones)`;
    if (!index || zoneId === SYSTEM_ZONE_ID) return exact;
    lastModified ??= `${sql.param(index.lastModified.toISOString())}::timestamptz`;
    let cellsParam = cells.get(zoneId);
    if (cellsParam === undefined) {
      cellsParam = `${sql.param(index.cells.get(zoneId) ?? [])}::smallint[]`;
      cells.set(zoneId, cellsParam);
    }
    return `CASE WHEN start_time > ${lastModified} THEN ${exact} ELSE object_locations && ${cellsParam} END`;
  };
}

/** The same rule for evaluateFilter: the reference the SQL is tested against. */
export function zoneMembershipEvaluate(index: ZoneIndex | null): EvaluateOptions['inZone'] {
  const cellSets = new Map([...(index?.cells ?? [])].map(([id, cells]) => [id, new Set(cells)]));
  return (row, zoneId) => {
    if (!index || zoneId === SYSTEM_ZONE_ID || row.startTime > index.lastModified) {
      return row.motionZones.includes(zoneId);
    }
    const cells = cellSets.get(zoneId);
    return cells !== undefined && row.objectLocations.some((cell) => cells.has(cell));
  };
}
