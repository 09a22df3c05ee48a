/**
 * The activity filter language: a boolean expression over an activity's attributes, parsed and
 * type-checked into a FilterNode, which compiles to a parameterized SQL condition (compileFilter)
 * and has an in-memory reference semantics (evaluateFilter) that the SQL reproduces exactly.
 *
 * Syntax: comparisons `=` `<>` `<` `<=` `>` `>=` and `x BETWEEN low AND high` (inclusive), where
 * the left side is a scalar attribute or `size(list)` and the right side literals; the functions
 * attribute_exists(a), attribute_not_exists(a), contains(list, v), contains_any(list, [v, ...]),
 * contains_all(list, [v, ...]); AND, OR, NOT (precedence NOT > AND > OR) and parentheses.
 * Literals: numbers (`-12`, `1.5`, `2e3`), double-quoted strings with the escapes \" and \\ only
 * (no NUL characters or unpaired surrogates), and lists `[...]` of those (contains_any/all only).
 * Keywords and function names are case-insensitive, attribute names case-sensitive. A filter has
 * at most 4096 UTF-16 code units, nests parentheses and NOT at most 64 deep and lists hold at most
 * 128 items. Errors are INVALID_ARGUMENT AppErrors with field "filter" and details.position, the
 * 0-based UTF-16 offset of the offending token.
 *
 * Attributes and the literals they accept:
 * - activityId: a string `YYYYMMDDTHHMMSSZ` naming a real UTC second; ordered as strings.
 * - accessoryId: a UUID v4 string, any case (compared lower case, ordered as the database orders
 *   uuids, which is the order of their lower-case text).
 * - startTime, endTime: ISO 8601 strings with seconds, a zone (`Z` or `±HH:MM`) and at most
 *   millisecond precision, in years 1..9999 UTC; compared as instants. endTime is null while the
 *   activity is in progress.
 * - playbackDuration (integer ms, null while in progress), relevanceLevel (integer >= 0): numbers.
 * - motionZones: a list of zone-id strings; objectLocations: a list of cells 0..127 of a 16x8
 *   grid. Lists cannot be compared, only used with contains* (literals of the element type: strings,
 *   or integers 0..127), size (a number) and attribute_exists. size, contains* on a scalar is an
 *   error.
 *
 * Semantics (two-valued): a comparison or BETWEEN with a null attribute is false, so
 * `NOT endTime < "..."` holds for an activity in progress. attribute_exists means not null for a
 * scalar and non-empty for a list; attribute_not_exists is its negation. contains_any with an
 * empty list is false, contains_all with an empty list true. BETWEEN with low > high is false.
 */
export type {
  ComparisonOperator,
  FilterAttribute,
  FilterNode,
  ListAttribute,
  Literal,
  Operand,
  ScalarAttribute,
} from './ast.ts';
export { evaluateFilter } from './evaluate.ts';
export type { EvaluateOptions, FilterRow, FilterSubject } from './evaluate.ts';
export { MAX_DEPTH, MAX_FILTER_LENGTH, MAX_LIST_ITEMS, parseFilter } from './parser.ts';
export { printFilter } from './print.ts';
export { compileFilter } from './sql.ts';
export type { CompileOptions, SqlBuilder } from './sql.ts';
