import type { CompileOptions, EvaluateOptions, FilterNode, SqlBuilder } from '../filter/index.ts';
import type { RowQuery } from '../storage/database.ts';
import { coveredCells, type Vertex } from './geometry.ts';
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
 * The zone indexes of some accessories, or of every accessory of an account, by accessory id,
 * in one statement; an accessory whose zones were never saved has none.
 */
export async function loadZoneIndexes(
  query: RowQuery,
  of: { accessoryIds: readonly string[] } | { accountId: string },
): Promise<Map<string, ZoneIndex>> {
  const rows = await query<{
    accessoryId: string;
    lastModified: Date;
    zoneId: string | null;
    cells: number[] | null;
  }>(
    `SELECT s.accessory_id::text AS "accessoryId", s.last_modified AS "lastModified",
            z.zone_id AS "zoneId", z.cells
       FROM zone_sets s LEFT JOIN zones z ON z.accessory_id = s.accessory_id
      WHERE s.accessory_id = ANY ($1::uuid[])
         OR s.accessory_id IN (SELECT id FROM accessories WHERE account_id = $2::uuid)`,
    'accountId' in of ? [[], of.accountId] : [of.accessoryIds, null],
  );
  const indexes = new Map<string, { lastModified: Date; cells: Map<string, number[]> }>();
  for (const row of rows) {
    let index = indexes.get(row.accessoryId);
    if (!index) {
      index = { lastModified: row.lastModified, cells: new Map() };
      indexes.set(row.accessoryId, index);
    }
    if (row.zoneId !== null) index.cells.set(row.zoneId, row.cells ?? []);
  }
  return indexes;
}

/** The index a `zones_saved` event's data describes (the zones it saved, as saved). */
export function savedZoneIndex(data: {
  zones: readonly { id: string; vertices: readonly Vertex[] }[];
  lastModified: string;
}): ZoneIndex {
  return {
    lastModified: new Date(data.lastModified),
    cells: new Map(data.zones.map((zone) => [zone.id, coveredCells(zone.vertices)])),
  };
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
 * `zoneMembership` hook, reading accessory `accessoryId`'s zones inside the statement itself
 * (in its snapshot, with no round trip before it). For zone id Z:
 * - before the first save (no zone set), and for the system zone zR: exact, Z in motionZones;
 * - an activity that started after the set's lastModified: exact, Z in motionZones;
 * - one that started at or before lastModified: one of its objectLocations lies in a cell that
 *   Z's current polygon covers. A zone id not currently defined covers no cells: false.
 * All of it is one SQL boolean expression per zone id, never NULL, with the zone id and the
 * accessory id as bound parameters; lastModified and each zone's cells are uncorrelated
 * sub-selects, which PostgreSQL evaluates once per statement (init plans) before it walks the
 * paging index row by row.
 *
 * The returned hook binds the accessory id once per query: make one per query. Without an
 * accessory id (an account's timeline) each row reads its own accessory's zones: the same rule,
 * with sub-selects correlated to the row's accessory_id (primary key lookups per row).
 */
export function zoneMembershipSql(accessoryId?: string): CompileOptions['zoneMembership'] {
  let accessory: string | undefined;
  return (zoneId: string, sql: SqlBuilder) => {
    const zone = `${sql.param(zoneId)}::text`;
    const exact = `${zone} = ANY(motion_zones)`;
    if (zoneId === SYSTEM_ZONE_ID) return exact;
    accessory ??=
      accessoryId === undefined ? 'activities.accessory_id' : `${sql.param(accessoryId)}::uuid`;
    const lastModified = `(SELECT last_modified FROM zone_sets WHERE accessory_id = ${accessory})`;
    const cells = `(SELECT cells FROM zones WHERE accessory_id = ${accessory} AND zone_id = ${zone})`;
    return `CASE WHEN start_time > COALESCE(${lastModified}, '-infinity') THEN ${exact} ELSE COALESCE(object_locations && ${cells}, false) END`;
  };
}

/** The same rule for evaluateFilter: the reference the SQL is tested against. */
export function zoneMembershipEvaluate(index: ZoneIndex | null): EvaluateOptions['inZone'] {
  const cellSets = new Map([...(index?.cells ?? [])].map(([id, cells]) => [id, new Set(cells)]));
  return (row, zoneId) => {
    // A subject without a start (a motion event) is live: its motionZones are exact.
    const exact = !index || zoneId === SYSTEM_ZONE_ID || row.startTime === null;
    if (exact || row.startTime! > index.lastModified) {
      return row.motionZones.includes(zoneId);
    }
    const cells = cellSets.get(zoneId);
    return cells !== undefined && row.objectLocations.some((cell) => cells.has(cell));
  };
}
