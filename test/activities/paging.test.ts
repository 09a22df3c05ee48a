import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graphql } from '../generated/index.ts';
import { backends, startApp, type TestApp } from '../helpers/app.ts';
import { gql, rest } from '../helpers/client.ts';
import { seedAccessory, seedActivities } from '../helpers/fixtures.ts';

const Page = graphql(`
  query ActivityPage(
    $id: ID!
    $first: Int
    $after: String
    $last: Int
    $before: String
    $since: String
    $filter: String
  ) {
    accessory(id: $id) {
      activities(
        first: $first
        after: $after
        last: $last
        before: $before
        since: $since
        filter: $filter
      ) {
        edges {
          cursor
          node {
            activityId
          }
        }
        pageInfo {
          hasNextPage
          hasPreviousPage
          startCursor
          endCursor
        }
        nextStartActivityId
      }
    }
  }
`);

type Op = '<' | '<=' | '>' | '>=';
const compare: Record<Op, (a: string, b: string) => boolean> = {
  '<': (a, b) => a < b,
  '<=': (a, b) => a <= b,
  '>': (a, b) => a > b,
  '>=': (a, b) => a >= b,
};

/** The listing's paging rules, computed from the full list of ids. */
function expectedPage(ids: string[], newer: boolean, limit: number, start?: [string, Op]) {
  const range = ids
    .filter((id) => !start || compare[start[1]](id, start[0]))
    .sort()
    .reverse();
  const page = newer ? range.slice(0, limit) : range.slice(-limit);
  const more = range.length > page.length;
  return {
    activities: page,
    next: more ? (newer ? page.at(-1) : page[0]) : undefined,
  };
}

describe.each(backends)('activity paging on %s', (backend) => {
  let t: TestApp;
  let reader: string;
  let accessoryId: string;
  let ids: string[];

  beforeAll(async () => {
    t = await startApp(backend);
    const seeded = await seedAccessory(t);
    accessoryId = seeded.accessoryId;
    ids = await seedActivities(t, seeded.ingest, accessoryId, 23);
    reader = await t.token(['activities_basic']);
  });
  afterAll(() => t.close());

  const list = (body: object) =>
    rest(t.url, reader, 'POST', `/api/accessories/${accessoryId}/activities`, body);

  it('returns the newest page by default, newest to oldest', async () => {
    const res = await list({});
    expect(res.status).toBe(200);
    const expected = expectedPage(ids, true, 20);
    expect(res.body.activities.map((a: { activityId: string }) => a.activityId)).toEqual(
      expected.activities,
    );
    expect(res.body.nextStartActivityId).toBe(expected.next);
    expect(res.body.activities[0]).toMatchObject({
      accessoryId,
      inProgress: false,
      playbackDuration: 20_000,
    });
    expect(res.body.activities[0]).not.toHaveProperty('motionZones');
  });

  it('follows the paging rules for every operator, direction, bound and limit', async () => {
    const bounds = [
      ids[0]!,
      ids[5]!,
      ids[11]!,
      ids.at(-1)!,
      '20200101T000000Z'.replace('2020', String(new Date().getUTCFullYear() + 1)),
    ];
    for (const op of ['<', '<=', '>', '>='] as Op[]) {
      for (const newer of [true, false]) {
        for (const bound of bounds) {
          for (const limit of [1, 4, 23, 100]) {
            const res = await list({
              scanDirectionNewer: newer,
              startActivityId: bound,
              operator: op,
              limit,
            });
            const expected = expectedPage(ids, newer, limit, [bound, op]);
            const got = res.body.activities.map((a: { activityId: string }) => a.activityId);
            expect({ op, newer, bound, limit, got, next: res.body.nextStartActivityId }).toEqual({
              op,
              newer,
              bound,
              limit,
              got: expected.activities,
              next: expected.next,
            });
          }
        }
      }
    }
  });

  it('pages through everything over REST and GraphQL, through the same ids', async () => {
    const restIds: string[] = [];
    let next: string | undefined;
    do {
      const res = await list(
        next ? { startActivityId: next, operator: '<', limit: 5 } : { limit: 5 },
      );
      restIds.push(...res.body.activities.map((a: { activityId: string }) => a.activityId));
      next = res.body.nextStartActivityId;
    } while (next);
    expect(restIds).toEqual([...ids].reverse());

    const gqlIds: string[] = [];
    let after: string | undefined;
    for (;;) {
      const res = await gql(t.url, reader, Page, { id: accessoryId, first: 5, after });
      const conn = res.data!.accessory!.activities;
      gqlIds.push(...conn.edges.map((e) => e.cursor));
      expect(conn.edges.map((e) => e.node.activityId)).toEqual(conn.edges.map((e) => e.cursor));
      if (!conn.pageInfo.hasNextPage) break;
      expect(conn.nextStartActivityId).toBe(conn.pageInfo.endCursor);
      after = conn.pageInfo.endCursor!;
    }
    expect(gqlIds).toEqual(restIds);

    // Oldest-first, backward through last/before: the same ids again.
    const backIds: string[][] = [];
    const firstPage = await list({
      scanDirectionNewer: false,
      limit: 5,
      startActivityId: ids[0],
      operator: '>=',
    });
    backIds.push(firstPage.body.activities.map((a: { activityId: string }) => a.activityId));
    let before: string | undefined = firstPage.body.nextStartActivityId;
    while (before) {
      const res = await gql(t.url, reader, Page, { id: accessoryId, last: 5, before });
      const conn = res.data!.accessory!.activities;
      backIds.push(conn.edges.map((e) => e.cursor));
      expect(conn.pageInfo.hasPreviousPage).toBe(conn.nextStartActivityId !== null);
      before = conn.nextStartActivityId ?? undefined;
    }
    expect(backIds.reverse().flat()).toEqual([...ids].reverse());
  });

  it('maps the connection arguments onto the REST request exactly', async () => {
    const cases: [object, object][] = [
      [{ first: 3 }, { scanDirectionNewer: true, limit: 3 }],
      [
        { first: 3, after: ids[10] },
        { limit: 3, startActivityId: ids[10], operator: '<' },
      ],
      [
        { last: 3, before: ids[10] },
        { scanDirectionNewer: false, limit: 3, startActivityId: ids[10], operator: '>' },
      ],
      [
        { first: 30, since: ids[20] },
        { limit: 30, startActivityId: ids[20], operator: '>=' },
      ],
      [{ last: 2 }, { scanDirectionNewer: false, limit: 2 }],
      [
        { first: 4, after: ids[20], filter: 'relevanceLevel >= 2' },
        { limit: 4, startActivityId: ids[20], operator: '<', filter: 'relevanceLevel >= 2' },
      ],
      [
        { last: 3, before: ids[2], filter: 'NOT relevanceLevel = 1' },
        {
          scanDirectionNewer: false,
          limit: 3,
          startActivityId: ids[2],
          operator: '>',
          filter: 'NOT relevanceLevel = 1',
        },
      ],
    ];
    for (const [args, body] of cases) {
      const g = await gql(t.url, reader, Page, { id: accessoryId, ...args });
      const r = await list(body);
      const conn = g.data!.accessory!.activities;
      expect(conn.edges.map((e) => e.cursor)).toEqual(
        r.body.activities.map((a: { activityId: string }) => a.activityId),
      );
      expect(conn.nextStartActivityId ?? undefined).toBe(r.body.nextStartActivityId);
    }
  });

  it('polling with >= returns the known newest activity again', async () => {
    const res = await list({ startActivityId: ids.at(-1), operator: '>=' });
    expect(res.body.activities.map((a: { activityId: string }) => a.activityId)).toEqual([
      ids.at(-1),
    ]);
    expect(res.body).not.toHaveProperty('nextStartActivityId');
  });

  it('rejects bad requests with 400 naming the field', async () => {
    const cases: [object, string][] = [
      [{ limit: 0 }, 'limit'],
      [{ limit: 101 }, 'limit'],
      [{ limit: 2.5 }, 'limit'],
      [{ operator: '=', startActivityId: ids[0] }, 'operator'],
      [{ startActivityId: ids[0] }, 'operator'],
      [{ operator: '<' }, 'startActivityId'],
      [{ startActivityId: '2026-11-01', operator: '<' }, 'startActivityId'],
      [{ startActivityId: '20261301T000000Z', operator: '<' }, 'startActivityId'],
      [{ scanDirectionNewer: 'yes' }, 'scanDirectionNewer'],
      [{ extraFields: ['thumbnail'] }, 'extraFields.0'],
      [{ filter: 'relevanceLevel >' }, 'filter'],
      [{ bogus: 1 }, 'bogus'],
      [{ startActivityId: '20000101T000000Z', operator: '<' }, 'startActivityId'],
    ];
    for (const [body, field] of cases) {
      const res = await list(body);
      expect({
        body,
        status: res.status,
        code: res.body.error.code,
        field: res.body.error.details.field,
      }).toEqual({
        body,
        status: 400,
        code: 'INVALID_ARGUMENT',
        field,
      });
    }
    const g = await gql(t.url, reader, Page, { id: accessoryId, first: 0 });
    expect(g.errors?.[0]?.extensions).toMatchObject({
      code: 'INVALID_ARGUMENT',
      details: { field: 'first' },
    });
    const g2 = await gql(t.url, reader, Page, { id: accessoryId, after: 'yesterday' });
    expect(g2.errors?.[0]?.extensions).toMatchObject({
      code: 'INVALID_ARGUMENT',
      details: { field: 'after' },
    });
  });
});
