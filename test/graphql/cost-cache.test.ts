import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { costCache, operationCost } from '../../src/graphql/limits.ts';
import { schema } from '../../src/graphql/schema.ts';

const page = parse(`query Page($id: ID!, $first: Int = 5, $after: String, $full: Boolean!) {
  accessory(id: $id) {
    activities(first: $first, after: $after) {
      edges { node { activityId motionZones @include(if: $full) objectLocations @include(if: $full) } }
    }
  }
}`);
const nodes = parse('query Nodes($ids: [ID!]!) { nodes(ids: $ids) { id } }');
const id = '6f1c2a3b-0000-4000-8000-00000000000a';

describe('the cost cache', () => {
  it('prices every request as operationCost does, and refuses the same ones', () => {
    const max = 100;
    const cost = costCache(max);
    const valid: [typeof page, Record<string, unknown>][] = [
      [page, { id, full: true }],
      [page, { id, full: false }],
      [page, { id, first: 50, full: true }],
      [page, { id, first: null, full: true }],
      [page, { id: 'another', after: '20260105T080000Z', full: true }],
      [page, { id, first: 50, full: false }],
      [nodes, { ids: [id] }],
      [nodes, { ids: [id, id, id] }],
    ];
    const invalid: [typeof page, Record<string, unknown>][] = [
      [page, { id, full: 'not a boolean' }],
      [page, { full: true }],
      [page, { id, after: 7, first: 50, full: true }],
    ];
    const refused = (c: number | undefined) => c !== undefined && c > max;
    // Twice over: the second round is answered from the cache where it can be.
    for (const [document, variables] of [...valid, ...invalid, ...valid, ...invalid]) {
      const expected = operationCost(schema, document, variables, undefined);
      const got = cost(schema, document, variables, undefined);
      if (expected !== undefined) expect(got).toBe(expected);
      expect(refused(got)).toBe(refused(expected));
    }
    // The default of an absent $first (5) and the field's default for a null one (20) differ.
    expect(cost(schema, page, { id, full: true }, undefined)).not.toBe(
      cost(schema, page, { id, first: null, full: true }, undefined),
    );
  });

  it('prices a page once whatever its ids and cursors', () => {
    const cost = costCache(10_000);
    const first = cost(schema, page, { id, full: true }, undefined);
    // Invalid variables the cost does not depend on: the cached price, refused or not as before
    // (the price is within the limit, so execution reports the variable).
    expect(cost(schema, page, { id: 42, after: 7, full: true }, undefined)).toBe(first);
    expect(operationCost(schema, page, { id: 42, after: 7, full: true }, undefined)).toBe(
      undefined,
    );
  });

  it('keeps no price over the limit: those are computed for each request', () => {
    const max = operationCost(schema, page, { id, first: 50, full: true }, undefined)! - 1;
    const cost = costCache(max);
    expect(cost(schema, page, { id, first: 50, full: true }, undefined)).toBe(max + 1);
    // With an invalid cursor the operation cannot be priced: it is not refused for its cost.
    expect(cost(schema, page, { id, after: 7, first: 50, full: true }, undefined)).toBe(undefined);
  });
});
