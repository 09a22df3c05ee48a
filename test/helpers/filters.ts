import fc from 'fast-check';
import type { FilterNode } from '../../src/filter/index.ts';

/** Random filters of at most `depth` levels of AND, OR and NOT over the given conditions. */
export function combinations(
  leaf: fc.Arbitrary<FilterNode>,
  depth: number,
): fc.Arbitrary<FilterNode> {
  if (depth === 0) return leaf;
  const child = combinations(leaf, depth - 1);
  return fc.oneof(
    { weight: 2, arbitrary: leaf },
    fc.record({
      type: fc.constantFrom('and' as const, 'or' as const),
      operands: fc.array(child, { minLength: 2, maxLength: 3 }),
    }),
    fc.record({ type: fc.constant('not' as const), operand: child }),
  );
}
