import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rectangle } from '../../src/zones/geometry.ts';
import { graphql } from '../generated/index.ts';
import { backends, startApp, type TestApp } from '../helpers/app.ts';
import { gql, rest } from '../helpers/client.ts';
import { seedAccessories, seedAccessory } from '../helpers/fixtures.ts';

const Timeline = graphql(`
  query Timeline(
    $first: Int
    $after: String
    $last: Int
    $before: String
    $filter: String
    $where: ActivityWhere
    $accessoryIds: [ID!]
  ) {
    viewer {
      activities(
        first: $first
        after: $after
        last: $last
        before: $before
        filter: $filter
        where: $where
        accessoryIds: $accessoryIds
      ) {
        edges {
          cursor
          node {
            accessoryId
            activityId
          }
        }
        pageInfo {
          hasNextPage
          hasPreviousPage
          startCursor
          endCursor
        }
      }
    }
  }
`);

const Locations = graphql(`
  query TimelineLocations($first: Int, $id: ID!) {
    viewer {
      activities(first: $first) {
        edges {
          node {
            accessoryId
            activityId
            ...Where
          }
        }
      }
    }
    accessory(id: $id) {
      activities(first: $first) {
        edges {
          node {
            activityId
            ...Cells
          }
        }
      }
    }
  }
  fragment Where on Activity {
    ... on Activity {
      zones: motionZones
    }
    ...Cells
  }
  fragment Cells on Activity {
    objectLocations
  }
`);

interface Row {
  accessoryId: string;
  activityId: string;
}

/** The timeline's order: newest id first, then the greater accessory id. */
const newestFirst = (a: Row, b: Row) =>
  a.activityId === b.activityId
    ? b.accessoryId.localeCompare(a.accessoryId)
    : b.activityId.localeCompare(a.activityId);

const key = (a: Row) => `${a.activityId}:${a.accessoryId}`;
const keys = (rows: Row[]) => rows.map(key);

describe.each(backends)('account timeline on %s', (backend) => {
  let t: TestApp;
  let ingest: string;
  let reader: string;
  let otherReader: string;
  let accessories: string[];
  let otherAccessory: string;
  /** Every activity of the account (user-1), as ingested. */
  const rows: Row[] = [];
  /** Ingest's clock: every batch is newer than the one before. */
  let clock = Date.now() - 2 * 86_400_000;

  /** One activity on each of these accessories, all in the same second; returns them. */
  async function createAt(on: string[], extra: (i: number) => object = () => ({})) {
    clock += 1000 * (1 + (clock % 7));
    const createdAt = new Date(clock).toISOString();
    const res = await rest(
      t.url,
      ingest,
      'POST',
      '/api/ingest',
      on.map((accessoryId, i) => ({
        op: 'createActivity',
        accessoryId,
        input: { createdAt, ...extra(i) },
      })),
    );
    expect(res.status).toBe(200);
    const created: Row[] = res.body.results.map((r: Row & { ok: boolean }) => {
      expect(r.ok).toBe(true);
      return { accessoryId: r.accessoryId, activityId: r.activityId };
    });
    return created;
  }

  beforeAll(async () => {
    t = await startApp(backend);
    const seeded = await seedAccessories(t, 'user-1', ['camera-1', 'camera-2', 'camera-3']);
    ingest = seeded.ingest;
    accessories = seeded.accessoryIds;
    otherAccessory = (await seedAccessory(t, 'user-2', 'camera-9')).accessoryId;
    // 30 seconds, most of them shared by two or three accessories; the other account's
    // accessory has activities in the same seconds.
    for (let i = 0; i < 30; i++) {
      const on = accessories.filter((_, k) => (i + k) % 4 !== 0);
      rows.push(
        ...(
          await createAt([...on, otherAccessory], (k) => ({
            relevanceLevel: (i + k) % 4,
            motionZones: [['z1'], ['z2'], []][(i + k) % 3],
            objectLocations: [(i * 5 + k) % 128, (i * 11) % 128],
          }))
        ).slice(0, on.length),
      );
    }
    reader = await t.token(['activities_basic']);
    otherReader = await t.token(['activities_basic'], 'user-2');
  });
  afterAll(() => t.close());

  const timeline = (body: object, token = reader) =>
    rest(t.url, token, 'POST', '/api/activities', body);

  /** Pages through the timeline over REST with `body`, from newest or from oldest. */
  async function pageThrough(body: object, limit: number, newer: boolean, between?: () => unknown) {
    const pages: Row[][] = [];
    let next: { startActivityId: string; startAccessoryId: string } | undefined;
    for (;;) {
      const res = await timeline({
        ...body,
        limit,
        scanDirectionNewer: newer,
        ...(next && { ...next, operator: newer ? '<' : '>' }),
      });
      expect(res.status).toBe(200);
      pages.push(res.body.activities);
      if (!res.body.nextStartActivityId) break;
      next = {
        startActivityId: res.body.nextStartActivityId,
        startAccessoryId: res.body.nextStartAccessoryId,
      };
      await between?.();
    }
    return (newer ? pages : pages.reverse()).flat();
  }

  it('lists all the accessories of the account, newest first, ties by accessory id', async () => {
    const res = await timeline({ limit: 100 });
    expect(res.status).toBe(200);
    expect(keys(res.body.activities)).toEqual(keys([...rows].sort(newestFirst)));
    expect(res.body.nextStartActivityId).toBeUndefined();
    expect(res.body.activities.some((a: Row) => a.accessoryId === otherAccessory)).toBe(false);
    // The same, a page at a time, from either end.
    expect(keys(await pageThrough({}, 7, true))).toEqual(keys([...rows].sort(newestFirst)));
    expect(keys(await pageThrough({}, 7, false))).toEqual(keys([...rows].sort(newestFirst)));
  });

  it('never skips or repeats an activity while newer ones arrive between pages', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 12 }),
        fc.boolean(),
        fc.array(fc.subarray([0, 1, 2], { minLength: 1 }), { minLength: 1, maxLength: 6 }),
        async (limit, newer, arrivals) => {
          const before = [...rows].sort(newestFirst);
          let n = 0;
          const got = await pageThrough({}, limit, newer, async () => {
            const on = arrivals[n++];
            if (on) rows.push(...(await createAt(on.map((k) => accessories[k]!))));
          });
          // Newest first, a page never reaches the newer ones; oldest first, it reaches every one.
          expect(keys(got)).toEqual(keys(newer ? before : [...rows].sort(newestFirst)));
        },
      ),
      { numRuns: 12 },
    );
  });

  it('chooses accessories and filters as the per-accessory listing does, zones included', async () => {
    const zones = await t.token(['zones']);
    const saved = await rest(t.url, zones, 'PUT', `/api/accessories/${accessories[1]}/zones`, {
      zones: [{ id: 'z1', name: 'Left', color: '#ff8800', vertices: rectangle(0, 0, 0.25, 1) }],
    });
    expect(saved.status).toBe(200);
    // After the save: its activities are in z1 by their motionZones again.
    rows.push(...(await createAt(accessories, () => ({ motionZones: ['z1'] }))));
    const filters = [
      'relevanceLevel >= 2',
      'contains_any(motionZones, ["z1"])',
      'NOT contains(motionZones, "z2") AND size(objectLocations) > 0',
    ];
    for (const filter of filters) {
      for (const chosen of [accessories, [accessories[1]!, accessories[2]!]]) {
        const merged: Row[] = [];
        for (const accessoryId of chosen) {
          const res = await rest(
            t.url,
            reader,
            'POST',
            `/api/accessories/${accessoryId}/activities`,
            { filter, limit: 100 },
          );
          expect(res.status).toBe(200);
          merged.push(...res.body.activities);
        }
        const body = chosen === accessories ? { filter } : { filter, accessoryIds: chosen };
        const got = await pageThrough(body, 9, true);
        expect({ filter, got: keys(got) }).toEqual({ filter, got: keys(merged.sort(newestFirst)) });
      }
    }
  });

  it('pages the same over GraphQL, through last/before too', async () => {
    const all = keys([...rows].sort(newestFirst));
    const forward: string[] = [];
    let after: string | undefined;
    for (;;) {
      const res = await gql(t.url, reader, Timeline, { first: 8, after });
      const conn = res.data!.viewer.activities;
      forward.push(...conn.edges.map((e) => e.cursor));
      expect(conn.edges.map((e) => key(e.node))).toEqual(conn.edges.map((e) => e.cursor));
      if (!conn.pageInfo.hasNextPage) break;
      after = conn.pageInfo.endCursor!;
    }
    expect(forward).toEqual(all);

    const backward: string[][] = [];
    let before: string | undefined;
    const first = await gql(t.url, reader, Timeline, { last: 8 });
    let conn = first.data!.viewer.activities;
    for (;;) {
      backward.push(conn.edges.map((e) => e.cursor));
      if (!conn.pageInfo.hasPreviousPage) break;
      before = conn.pageInfo.startCursor!;
      conn = (await gql(t.url, reader, Timeline, { last: 8, before })).data!.viewer.activities;
    }
    // last: the oldest 8 first, then each page the 8 after the newest cursor of the one before.
    expect(backward.reverse().flat()).toEqual(all);

    const chosen = await gql(t.url, reader, Timeline, {
      first: 100,
      accessoryIds: [accessories[0]!],
      where: { relevanceLevel: { gte: 1 } },
    });
    const viaRest = await timeline({
      accessoryIds: [accessories[0]],
      filter: 'relevanceLevel >= 1',
      limit: 100,
    });
    expect(viaRest.body.activities.length).toBeGreaterThan(0);
    expect(chosen.data!.viewer.activities.edges.map((e) => key(e.node))).toEqual(
      keys(viaRest.body.activities),
    );
  });

  it('answers the locations a page shows, asked for by extraFields or through fragments', async () => {
    const asRead = async (a: Row) => {
      const res = await rest(
        t.url,
        reader,
        'GET',
        `/api/accessories/${a.accessoryId}/activities/${a.activityId}`,
      );
      const { motionZones, objectLocations } = res.body as Record<string, unknown>;
      return { key: key(a), motionZones, objectLocations };
    };
    const both = await timeline({ limit: 12, extraFields: ['motionZones', 'objectLocations'] });
    const expected = await Promise.all(both.body.activities.map(asRead));
    expect(expected.some((a) => (a.motionZones as string[]).length > 0)).toBe(true);
    const shown = (page: { body: { activities: (Row & Record<string, unknown>)[] } }) =>
      page.body.activities.map((a) => ({
        key: key(a),
        motionZones: a.motionZones,
        objectLocations: a.objectLocations,
      }));
    expect(shown(both)).toEqual(expected);
    // One asked for: the other is left out.
    const cells = await timeline({ limit: 12, extraFields: ['objectLocations'] });
    expect(shown(cells)).toEqual(expected.map((a) => ({ ...a, motionZones: undefined })));

    const run = () => gql(t.url, reader, Locations, { first: 12, id: accessories[1]! });
    const res = await run();
    expect(res.errors).toBeUndefined();
    // Run again, as an operation seen before (prepared, compiled): the same answer.
    await run();
    expect(await run()).toEqual(res);
    expect(
      res.data!.viewer.activities.edges.map(({ node }) => ({
        key: key(node),
        motionZones: node.zones,
        objectLocations: node.objectLocations,
      })),
    ).toEqual(expected);
    const own = res.data!.accessory!.activities.edges.map(({ node }) => node);
    expect(own.length).toBeGreaterThan(0);
    for (const node of own) {
      const read = await asRead({ accessoryId: accessories[1]!, activityId: node.activityId });
      expect(node.objectLocations).toEqual(read.objectLocations);
    }
  });

  it("refuses another account's accessories and names bad fields", async () => {
    const foreign = await timeline({ accessoryIds: [accessories[0], otherAccessory] });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('NOT_FOUND');
    const theirs = await timeline({ limit: 100 }, otherReader);
    expect(new Set(theirs.body.activities.map((a: Row) => a.accessoryId))).toEqual(
      new Set([otherAccessory]),
    );
    const gqlForeign = await gql(t.url, reader, Timeline, { accessoryIds: [otherAccessory] });
    expect(gqlForeign.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');

    const bad: [object, string][] = [
      [{ accessoryIds: [] }, 'accessoryIds'],
      [{ accessoryIds: ['camera-1'] }, 'accessoryIds'],
      [
        { startActivityId: rows[0]!.activityId, startAccessoryId: 'x', operator: '<' },
        'startAccessoryId',
      ],
      [{ startAccessoryId: accessories[0] }, 'startActivityId'],
      [{ startActivityId: rows[0]!.activityId }, 'operator'],
      [{ accessoryId: accessories[0] }, 'accessoryId'],
    ];
    for (const [body, field] of bad) {
      const res = await timeline(body);
      expect({ body, status: res.status, field: res.body.error.details.field }).toEqual({
        body,
        status: 400,
        field,
      });
    }
    const badCursor = await gql(t.url, reader, Timeline, { first: 2, after: rows[0]!.activityId });
    expect(badCursor.errors?.[0]?.extensions).toMatchObject({
      code: 'INVALID_ARGUMENT',
      details: { field: 'after' },
    });
  });
});
