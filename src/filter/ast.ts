/** The attributes a filter can test. */
export type FilterAttribute =
  | 'activityId'
  | 'accessoryId'
  | 'startTime'
  | 'endTime'
  | 'playbackDuration'
  | 'relevanceLevel'
  | 'motionZones'
  | 'objectLocations';

export type ListAttribute = 'motionZones' | 'objectLocations';
export type ScalarAttribute = Exclude<FilterAttribute, ListAttribute>;

/**
 * What an attribute's values (a list attribute's elements) are, which decides the literals it
 * accepts: `activityId` (a YYYYMMDDTHHMMSSZ string), `uuid` (an accessory id), `timestamp`, `number`, `zone` (a zone-id
 * string) or `cell` (an integer 0..127).
 */
export type AttributeKind = 'activityId' | 'uuid' | 'timestamp' | 'number' | 'zone' | 'cell';

export const attributeKinds = {
  activityId: 'activityId',
  accessoryId: 'uuid',
  startTime: 'timestamp',
  endTime: 'timestamp',
  playbackDuration: 'number',
  relevanceLevel: 'number',
  motionZones: 'zone',
  objectLocations: 'cell',
} as const satisfies Record<FilterAttribute, AttributeKind>;

export const filterAttributes = Object.keys(attributeKinds) as FilterAttribute[];

export const isListAttribute = (attribute: FilterAttribute): attribute is ListAttribute =>
  attribute === 'motionZones' || attribute === 'objectLocations';

/**
 * A checked literal. Numbers are finite (never -0); timestamps are canonical UTC ISO strings with
 * milliseconds (`2026-11-01T00:00:00.000Z`); uuids are lower case; everything else is the value as written.
 */
export type Literal = string | number;

export const comparisonOperators = ['=', '<>', '<', '<=', '>', '>='] as const;
export type ComparisonOperator = (typeof comparisonOperators)[number];

/** The left-hand side of a comparison or BETWEEN. */
export type Operand =
  { type: 'attribute'; attribute: ScalarAttribute } | { type: 'size'; attribute: ListAttribute };

/**
 * A parsed, type-checked filter. `and`/`or` have at least two operands; an `and` directly inside
 * an `and` (or `or` inside `or`) only comes from explicit parentheses. Function nodes are named
 * after their function. Literals always match the kind of the attribute they are tested against.
 */
export type FilterNode =
  | { type: 'and' | 'or'; operands: FilterNode[] }
  | { type: 'not'; operand: FilterNode }
  | { type: 'compare'; left: Operand; operator: ComparisonOperator; value: Literal }
  | { type: 'between'; left: Operand; low: Literal; high: Literal }
  | { type: 'attribute_exists' | 'attribute_not_exists'; attribute: FilterAttribute }
  | { type: 'contains'; attribute: ListAttribute; value: Literal }
  | { type: 'contains_any' | 'contains_all'; attribute: ListAttribute; values: Literal[] };
