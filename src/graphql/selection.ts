import { Kind, type FieldNode, type GraphQLResolveInfo, type SelectionSetNode } from 'graphql';

/** What a resolver can learn of the fields selected below its own. */
export type SelectionInfo = Pick<GraphQLResolveInfo, 'fieldNodes' | 'fragments'>;

/**
 * A test of whether a field of one of these names is selected anywhere below a resolver's field,
 * through fragments and aliases, whatever type it is on. A document's answer is the same at
 * every run of it, so it is kept per field node (a cached document's nodes are reused). Each
 * fragment is walked once, however often it is spread.
 */
export function selectsAnyOf(names: readonly string[]): (info: SelectionInfo) => boolean {
  const wanted = new Set(names);
  const decided = new WeakMap<FieldNode, boolean>();
  return (info) => {
    const key = info.fieldNodes[0]!;
    let answer = decided.get(key);
    if (answer === undefined) {
      const walked = new Set<string>();
      const walk = (set: SelectionSetNode | undefined): boolean =>
        set !== undefined &&
        set.selections.some((s) => {
          if (s.kind === Kind.FIELD) return wanted.has(s.name.value) || walk(s.selectionSet);
          if (s.kind === Kind.INLINE_FRAGMENT) return walk(s.selectionSet);
          if (walked.has(s.name.value)) return false;
          walked.add(s.name.value);
          return walk(info.fragments[s.name.value]?.selectionSet);
        });
      answer = info.fieldNodes.some((node) => walk(node.selectionSet));
      decided.set(key, answer);
    }
    return answer;
  };
}
