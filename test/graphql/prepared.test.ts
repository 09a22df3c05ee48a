import { createHash } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { PreparedOperations } from '../../src/graphql/prepared.ts';
import { backends, startApp, type TestApp } from '../helpers/app.ts';
import { seedAccessory, seedActivities } from '../helpers/fixtures.ts';

// A plain JSON POST of a document Yoga has run before is answered without Yoga's pipeline
// (graphql/prepared.ts): each answer must be what Yoga whole answers, with the rate limits and
// the cost budget on. Yoga whole answers a request that accepts more than JSON alone.

const PAGE = `query Page($id: ID!) { accessory(id: $id) { activities(first: 2) {
  edges { cursor node { activityId startTime } } pageInfo { hasNextPage endCursor } } } }`;
/** Its cost depends on `n`: small, it runs; large, it costs more than GRAPHQL_MAX_COST. */
const NESTED = `query Nested($n: Int) { accessories(first: $n) { edges { node {
  activities(first: $n) { edges { node { activityId } } } } } } }`;
const WHOLE = 'application/json, */*';
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe.each(backends)('plain POSTs of documents run before, on %s', (backend) => {
  let t: TestApp;
  let reader: string;
  let accessoryId: string;

  beforeAll(async () => {
    t = await startApp(backend, { RATE_LIMIT_RPS: '50', RATE_LIMIT_COST: '2500' });
    let ingest: string;
    ({ ingest, accessoryId } = await seedAccessory(t));
    await seedActivities(t, ingest, accessoryId, 3);
    reader = await t.token(['activities_basic']);
  });
  afterEach(() => vi.restoreAllMocks());
  afterAll(() => t.close());

  const post = async (body: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${reader}`,
        'content-type': 'application/json',
        ...headers,
      },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    const answer = JSON.parse(text) as { extensions?: { cost?: { throttleStatus?: object } } };
    // What is left of the budget moves with every request; the rest of the cost must not.
    delete (answer.extensions?.cost?.throttleStatus as { currentlyAvailable?: number } | undefined)
      ?.currentlyAvailable;
    return {
      status: res.status,
      type: res.headers.get('content-type'),
      rateLimit: res.headers.get('ratelimit-policy'),
      answer,
    };
  };

  it('answers each as Yoga whole does, without Yoga', async () => {
    const run = vi.spyOn(PreparedOperations.prototype, 'run');
    // Run once through Yoga whole, then prepared (the hash's registration too).
    await post({ query: PAGE, variables: { id: accessoryId } });
    await post({ query: NESTED, variables: { n: 1 } });
    expect(run).not.toHaveBeenCalled();
    const persistedQuery = { version: 1, sha256Hash: sha256(PAGE) };
    await post({ query: PAGE, variables: { id: accessoryId }, extensions: { persistedQuery } });

    const bodies = [
      { query: PAGE, variables: { id: accessoryId } },
      { variables: { id: accessoryId }, extensions: { persistedQuery } },
      { query: PAGE, variables: { id: '00000000-0000-4000-8000-000000000000' } },
      { query: PAGE, variables: { id: 42, extra: true } },
      { query: PAGE },
      // A string PostgreSQL cannot store, refused before the operation runs.
      { query: PAGE, variables: { id: 'a\u0000b' } },
      { query: NESTED, variables: { n: 2 } },
      // More than GRAPHQL_MAX_COST, refused before it runs.
      { query: NESTED, variables: { n: 100 } },
    ];
    for (const body of bodies) {
      const prepared = await post(body);
      const whole = await post(body, { accept: WHOLE });
      expect(prepared, JSON.stringify(body)).toEqual(whole);
    }
    expect(run).toHaveBeenCalledTimes(1 + bodies.length);
    const cost = (await post(bodies[0]!)).answer.extensions?.cost;
    expect(cost).toMatchObject({ requestedQueryCost: expect.any(Number) });
  });

  it('goes through Yoga whole for a document it has not run, and for another operation name', async () => {
    const run = vi.spyOn(PreparedOperations.prototype, 'run');
    const query = `query Other($id: ID!) { accessory(id: $id) { id name } }`;
    await post({ query, variables: { id: accessoryId }, operationName: 'Other' });
    expect(run).not.toHaveBeenCalled();
    await post({ query, variables: { id: accessoryId } });
    expect(run).not.toHaveBeenCalled();
    await post({ query, variables: { id: accessoryId }, operationName: 'Other' });
    expect(run).toHaveBeenCalledTimes(1);
  });
});
