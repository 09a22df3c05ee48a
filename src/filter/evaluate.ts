import { attributeKinds } from './ast.ts';
import type { ComparisonOperator, FilterNode, ListAttribute, Literal, Operand } from './ast.ts';

/**
 * What a filter can be evaluated against: an activity (FilterRow), or an event that only has
 * some of an activity's attributes (a motion event: no activity, so null scalars and no object
 * locations). A null attribute is absent: comparisons with it are false.
 */
export interface FilterSubject {
  activityId: string | null;
  accessoryId: string;
  startTime: Date | null;
  endTime: Date | null;
  playbackDuration: number | null;
  relevanceLevel: number | null;
  motionZones: string[];
  objectLocations: number[];
}

/** An activity as the filter sees it. */
export interface FilterRow extends FilterSubject {
  activityId: string;
  startTime: Date;
  relevanceLevel: number;
}

export interface EvaluateOptions {
  /** Decides zone membership for contains* on motionZones, mirroring CompileOptions.zoneMembership. */
  inZone?: (row: FilterSubject, zoneId: string) => boolean;
}

const compare = (a: Literal, operator: ComparisonOperator, b: Literal): boolean => {
  switch (operator) {
    case '=':
      return a === b;
    case '<>':
      return a !== b;
    case '<':
      return a < b;
    case '<=':
      return a <= b;
    case '>':
      return a > b;
    case '>=':
      return a >= b;
  }
};

/** The reference semantics of a filter (see index.ts), which compileFilter reproduces in SQL. */
export function evaluateFilter(
  node: FilterNode,
  row: FilterSubject,
  options: EvaluateOptions = {},
): boolean {
  /** The operand's value, timestamps as epoch milliseconds; null for a null attribute. */
  const operandValue = (operand: Operand): Literal | null => {
    if (operand.type === 'size') return row[operand.attribute].length;
    const attribute = row[operand.attribute];
    return attribute instanceof Date ? attribute.getTime() : attribute;
  };
  /** The literal in the form of operandValue(operand). */
  const literalValue = (operand: Operand, literal: Literal): Literal =>
    operand.type === 'attribute' && attributeKinds[operand.attribute] === 'timestamp'
      ? Date.parse(String(literal))
      : literal;
  const member = (attribute: ListAttribute, element: Literal) =>
    attribute === 'motionZones' && options.inZone
      ? options.inZone(row, String(element))
      : row[attribute].some((value) => value === element);

  const evaluate = (node: FilterNode): boolean => {
    switch (node.type) {
      case 'and':
        return node.operands.every(evaluate);
      case 'or':
        return node.operands.some(evaluate);
      case 'not':
        return !evaluate(node.operand);
      case 'compare': {
        const left = operandValue(node.left);
        return left !== null && compare(left, node.operator, literalValue(node.left, node.value));
      }
      case 'between': {
        const left = operandValue(node.left);
        return (
          left !== null &&
          compare(left, '>=', literalValue(node.left, node.low)) &&
          compare(left, '<=', literalValue(node.left, node.high))
        );
      }
      case 'attribute_exists':
      case 'attribute_not_exists': {
        const attribute = row[node.attribute];
        const exists = Array.isArray(attribute) ? attribute.length > 0 : attribute !== null;
        return exists === (node.type === 'attribute_exists');
      }
      case 'contains':
        return member(node.attribute, node.value);
      case 'contains_any':
        return node.values.some((element) => member(node.attribute, element));
      case 'contains_all':
        return node.values.every((element) => member(node.attribute, element));
    }
  };
  return evaluate(node);
}
