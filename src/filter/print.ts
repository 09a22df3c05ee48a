import type { FilterNode, Literal, Operand } from './ast.ts';

const printLiteral = (value: Literal) =>
  typeof value === 'number' ? String(value) : `"${value.replace(/["\\]/g, '\\$&')}"`;

const printOperand = (operand: Operand) =>
  operand.type === 'size' ? `size(${operand.attribute})` : operand.attribute;

/** OR binds loosest, then AND; NOT and atoms bind tightest. */
const precedence = (node: FilterNode) => (node.type === 'or' ? 1 : node.type === 'and' ? 2 : 3);

/** Prints `node`, parenthesized unless it binds at least as tightly as `min`. */
const operand = (node: FilterNode, min: number) =>
  precedence(node) >= min ? printFilter(node) : `(${printFilter(node)})`;

/** Filter text that parses back to `node`. */
export function printFilter(node: FilterNode): string {
  switch (node.type) {
    case 'and':
    case 'or':
      // A nested AND in an AND (OR in an OR) keeps its parentheses, so the tree shape survives.
      return node.operands
        .map((child) => operand(child, precedence(node) + 1))
        .join(` ${node.type.toUpperCase()} `);
    case 'not':
      return `NOT ${operand(node.operand, 3)}`;
    case 'compare':
      return `${printOperand(node.left)} ${node.operator} ${printLiteral(node.value)}`;
    case 'between':
      return `${printOperand(node.left)} BETWEEN ${printLiteral(node.low)} AND ${printLiteral(node.high)}`;
    case 'attribute_exists':
    case 'attribute_not_exists':
      return `${node.type}(${node.attribute})`;
    case 'contains':
      return `contains(${node.attribute}, ${printLiteral(node.value)})`;
    case 'contains_any':
    case 'contains_all':
      return `${node.type}(${node.attribute}, [${node.values.map(printLiteral).join(', ')}])`;
  }
}
