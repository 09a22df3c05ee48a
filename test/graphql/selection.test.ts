import { Kind, parse, type FragmentDefinitionNode, type OperationDefinitionNode } from 'graphql';
import { describe, expect, it } from 'vitest';
import { selectsAnyOf, type SelectionInfo } from '../../src/graphql/selection.ts';

/** The resolve info of the first field of a document's operation. */
function infoOf(document: string): SelectionInfo {
  const doc = parse(document);
  const operation = doc.definitions.find(
    (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
  )!;
  const fragments = Object.fromEntries(
    doc.definitions
      .filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION)
      .map((d) => [d.name.value, d]),
  );
  const field = operation.selectionSet.selections[0]!;
  if (field.kind !== Kind.FIELD) throw new Error('the first selection is not a field');
  return { fieldNodes: [field], fragments };
}

describe('selectsAnyOf', () => {
  const selectsZones = selectsAnyOf(['motionZones', 'objectLocations']);

  it('finds a field below, aliased, in inline and named fragments', () => {
    expect(selectsZones(infoOf('{ a { edges { node { motionZones } } } }'))).toBe(true);
    expect(selectsZones(infoOf('{ a { edges { node { z: objectLocations } } } }'))).toBe(true);
    expect(selectsZones(infoOf('{ a { edges { node { ... on T { motionZones } } } } }'))).toBe(
      true,
    );
    expect(
      selectsZones(
        infoOf(
          '{ a { ...F } } fragment F on C { edges { node { ...G } } } fragment G on T { objectLocations }',
        ),
      ),
    ).toBe(true);
  });

  it('says no where no such field is selected, by name not by alias', () => {
    expect(selectsZones(infoOf('{ a { edges { node { activityId } } } }'))).toBe(false);
    expect(selectsZones(infoOf('{ a { edges { motionZones: cursor } } }'))).toBe(false);
    expect(selectsZones(infoOf('{ motionZones { b } }'))).toBe(false);
  });

  it('walks each fragment once, however often it is spread', () => {
    // 40 fragments, each spreading the next twice: 2^40 walks without the rule.
    const fragments = Array.from(
      { length: 40 },
      (_, i) => `fragment F${i} on T { x ${i < 39 ? `...F${i + 1} y: x ...F${i + 1}` : ''} }`,
    );
    const info = infoOf(`{ a { ...F0 } } ${fragments.join(' ')}`);
    let lookups = 0;
    const counted = new Proxy(info.fragments, {
      get(target, name, receiver) {
        if (++lookups > 40) throw new Error(`fragment ${String(name)} walked again`);
        return Reflect.get(target, name, receiver) as unknown;
      },
    });
    expect(selectsZones({ fieldNodes: info.fieldNodes, fragments: counted })).toBe(false);
    expect(lookups).toBe(40);
  });

  it('decides once per field node', () => {
    const info = infoOf('{ a { ...F } } fragment F on T { motionZones }');
    expect(selectsZones(info)).toBe(true);
    // The same node is answered from what was decided, not walked again.
    expect(selectsZones({ fieldNodes: info.fieldNodes, fragments: {} })).toBe(true);
  });
});
