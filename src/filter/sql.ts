import { attributeKinds, isListAttribute } from './ast.ts';
import type { AttributeKind, FilterAttribute, FilterNode, Operand } from './ast.ts';

export interface SqlBuilder {
  /** Appends a bound parameter and returns its placeholder, e.g. "$4". */
  param(value: unknown): string;
}

export interface CompileOptions {
  /** SQL expression of each attribute's column; defaults below. */
  columns?: Partial<Record<FilterAttribute, string>>;
  /**
   * When set, contains/contains_any/contains_all on motionZones are compiled as one call per zone id
   * (OR for contains_any, AND for contains_all) of this hook, which returns a SQL boolean expression
   * meaning "the activity is in zone <zoneId>"; it must never be NULL. Without it, membership is
   * `<param> = ANY(<motionZones column>)`.
   */
  zoneMembership?: (zoneId: string, sql: SqlBuilder) => string;
}

/** The columns of the `activities` table; overrides must have the same types. */
const defaultColumns: Record<FilterAttribute, string> = {
  activityId: 'activity_id',
  accessoryId: 'accessory_id',
  startTime: 'start_time',
  endTime: 'end_time',
  playbackDuration: 'playback_duration',
  relevanceLevel: 'relevance_level',
  motionZones: 'motion_zones',
  objectLocations: 'object_locations',
};

/** The SQL type literals are bound as (list attributes: their element type). */
const sqlTypes: Record<AttributeKind, string> = {
  activityId: 'text',
  uuid: 'uuid',
  timestamp: 'timestamptz',
  number: 'numeric',
  zone: 'text',
  cell: 'smallint',
};

const nullable: ReadonlySet<FilterAttribute> = new Set(['endTime', 'playbackDuration']);

/**
 * The filter as a SQL boolean expression with the semantics of evaluateFilter. Every literal is
 * bound through `sql.param` with an explicit cast; only column expressions, operators and
 * placeholders appear in the text.
 */
export function compileFilter(
  node: FilterNode,
  sql: SqlBuilder,
  options: CompileOptions = {},
): string {
  const columns = { ...defaultColumns, ...options.columns };
  const { zoneMembership } = options;

  const operand = (left: Operand) =>
    left.type === 'size' ? `cardinality(${columns[left.attribute]})` : columns[left.attribute];
  const param = (left: Operand, value: unknown) =>
    `${sql.param(value)}::${left.type === 'size' ? 'numeric' : sqlTypes[attributeKinds[left.attribute]]}`;
  /** Two-valued logic: a comparison with a NULL column is false, not NULL. */
  const nullIsFalse = (left: Operand, condition: string) =>
    left.type === 'attribute' && nullable.has(left.attribute)
      ? `(${columns[left.attribute]} IS NOT NULL AND ${condition})`
      : condition;

  const compile = (node: FilterNode): string => {
    switch (node.type) {
      case 'and':
      case 'or':
        return `(${node.operands.map(compile).join(` ${node.type.toUpperCase()} `)})`;
      case 'not':
        return `NOT ${compile(node.operand)}`;
      case 'compare':
        return nullIsFalse(
          node.left,
          `${operand(node.left)} ${node.operator} ${param(node.left, node.value)}`,
        );
      case 'between':
        return nullIsFalse(
          node.left,
          `${operand(node.left)} BETWEEN ${param(node.left, node.low)} AND ${param(node.left, node.high)}`,
        );
      case 'attribute_exists':
      case 'attribute_not_exists': {
        const column = columns[node.attribute];
        const exists = node.type === 'attribute_exists';
        return isListAttribute(node.attribute)
          ? `cardinality(${column}) ${exists ? '>' : '='} 0`
          : `${column} IS ${exists ? 'NOT NULL' : 'NULL'}`;
      }
      case 'contains':
      case 'contains_any':
      case 'contains_all': {
        const values = node.type === 'contains' ? [node.value] : node.values;
        if (node.attribute === 'motionZones' && zoneMembership) {
          if (values.length === 0) return node.type === 'contains_all' ? 'true' : 'false';
          const zones = values.map((zoneId) => `(${zoneMembership(String(zoneId), sql)})`);
          return `(${zones.join(node.type === 'contains_all' ? ' AND ' : ' OR ')})`;
        }
        const column = columns[node.attribute];
        const type = sqlTypes[attributeKinds[node.attribute]];
        if (node.type === 'contains') return `${sql.param(node.value)}::${type} = ANY(${column})`;
        const operator = node.type === 'contains_any' ? '&&' : '@>';
        return `${column} ${operator} ${sql.param(node.values)}::${type}[]`;
      }
    }
  };
  return compile(node);
}
