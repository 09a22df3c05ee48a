import { parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { operationCost } from '../../src/graphql/limits.ts';
import { schema } from '../../src/graphql/schema.ts';
import { graphql } from '../generated/index.ts';
import { backends, startApp, type TestApp } from '../helpers/app.ts';
import { gql } from '../helpers/client.ts';
import { ok, seedAccessory, seedActivities } from '../helpers/fixtures.ts';
import {
  register,
  SendTestNotification,
  startReceiver,
  type Receiver,
} from '../notifications/helpers.ts';

const ActivityIds = graphql(`
  query ActivityNodeIds($id: ID!) {
    accessory(id: $id) {
      id
      activities(first: 10) {
        edges {
          node {
            id
            activityId
            accessoryId
          }
        }
      }
    }
  }
`);

const Nodes = graphql(`
  query Nodes($ids: [ID!]!) {
    nodes(ids: $ids) {
      __typename
      id
      ... on Accessory {
        name
      }
      ... on Activity {
        activityId
        accessoryId
      }
      ... on NotificationDelivery {
        webhookId
        kind
      }
    }
  }
`);

const NodeById = graphql(`
  query NodeById($id: ID!) {
    node(id: $id) {
      __typename
      id
    }
  }
`);

describe.each(backends)('the Node interface on %s', (backend) => {
  let t: TestApp;
  let accessoryId: string;
  let activities: { id: string; activityId: string; accessoryId: string }[];
  let deliveryId: string;
  let reader: string;
  let receiver: Receiver;

  beforeAll(async () => {
    t = await startApp(backend, {
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_ALLOW_HTTP: 'true',
    });
    const seeded = await seedAccessory(t, 'node-user');
    accessoryId = seeded.accessoryId;
    await seedActivities(t, seeded.ingest, accessoryId, 3);
    receiver = await startReceiver('node-test-key-0123456789');
    reader = await t.token(['activities_basic', 'notifications'], 'node-user');
    const data = await ok(t, reader, ActivityIds, { id: accessoryId });
    activities = data.accessory!.activities.edges.map((e) => e.node);
    await register(t, reader, {
      url: receiver.url,
      authKey: 'node-test-key-0123456789',
      eventTypes: ['activity_created'],
    });
    deliveryId = (await ok(t, reader, SendTestNotification, { accountId: seeded.accountId }))
      .sendTestNotification.id;
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  it('keeps the accessory id and the delivery id as their global ids; an activity gets an opaque one', async () => {
    expect(activities).toHaveLength(3);
    for (const a of activities) {
      expect(a.accessoryId).toBe(accessoryId);
      expect(a.id).not.toContain(a.activityId);
      expect(a.id).toMatch(/^[A-Za-z0-9+/]+=*$/);
    }
    expect(new Set(activities.map((a) => a.id)).size).toBe(3);
    expect(deliveryId).toMatch(/^\d+$/);
  });

  it('fetches each kind of node again by its id, in the order asked, with null for what it cannot give', async () => {
    const [newest] = activities;
    const ids = [newest!.id, accessoryId, deliveryId, 'no-such-id', activities[2]!.id];
    const { nodes } = await ok(t, reader, Nodes, { ids });
    expect(nodes).toEqual([
      {
        __typename: 'Activity',
        id: newest!.id,
        activityId: newest!.activityId,
        accessoryId,
      },
      { __typename: 'Accessory', id: accessoryId, name: 'Camera camera-1' },
      {
        __typename: 'NotificationDelivery',
        id: deliveryId,
        webhookId: `test_${deliveryId}`,
        kind: 'test',
      },
      null,
      {
        __typename: 'Activity',
        id: activities[2]!.id,
        activityId: activities[2]!.activityId,
        accessoryId,
      },
    ]);
    const single = await ok(t, reader, NodeById, { id: accessoryId });
    expect(single.node).toEqual({ __typename: 'Accessory', id: accessoryId });
  });

  it('loads the nodes of one type in one query', async () => {
    const query = vi.spyOn(t.app.services.db.pool, 'query');
    try {
      await ok(t, reader, Nodes, { ids: activities.map((a) => a.id) });
      const activityQueries = query.mock.calls.filter(([sql]) =>
        String(typeof sql === 'string' ? sql : (sql as { text: string }).text).includes(
          'FROM activities',
        ),
      );
      expect(activityQueries).toHaveLength(1);
    } finally {
      query.mockRestore();
    }
  });

  it("answers null for another account's nodes, another client's delivery and ids that name nothing", async () => {
    const stranger = await t.token(['activities_basic', 'notifications'], 'someone-else');
    await seedAccessory(t, 'someone-else', 'camera-2');
    const ids = [accessoryId, activities[0]!.id, deliveryId];
    expect((await ok(t, stranger, Nodes, { ids })).nodes).toEqual([null, null, null]);
    // The same account through another OAuth client sees the accessory, not the delivery.
    const otherClient = await t.token(['activities_basic', 'notifications'], 'node-user', 'c-2');
    const seen = (await ok(t, otherClient, Nodes, { ids })).nodes;
    expect(seen.map((n) => n?.__typename ?? null)).toEqual(['Accessory', 'Activity', null]);
    const unknown = [
      crypto.randomUUID(),
      '999999999',
      Buffer.from(`Activity:${accessoryId}:20000101T000000Z`).toString('base64'),
      Buffer.from('Activity:garbage').toString('base64'),
      Buffer.from(`Account:${crypto.randomUUID()}`).toString('base64'),
      '',
      '%%%',
    ];
    expect((await ok(t, reader, Nodes, { ids: unknown })).nodes).toEqual(unknown.map(() => null));
  });

  it('takes at most 100 ids at once, and prices them by their number', async () => {
    const many = Array.from({ length: 101 }, () => accessoryId);
    const refused = await gql(t.url, reader, Nodes, { ids: many });
    expect(refused.errors?.[0]?.extensions).toMatchObject({
      code: 'INVALID_ARGUMENT',
      details: { field: 'ids' },
    });
    expect((await ok(t, reader, Nodes, { ids: many.slice(1) })).nodes).toHaveLength(100);
    const query = parse('query ($ids: [ID!]!) { nodes(ids: $ids) { id } }');
    const cost = (n: number) => operationCost(schema, query, { ids: many.slice(0, n) }, undefined)!;
    expect(cost(100) - cost(1)).toBe(99 * (cost(1) - 1));
  });

  it('asks for the scopes the same objects need elsewhere', async () => {
    const notificationsOnly = await t.token(['notifications'], 'node-user');
    const denied = await gql(t.url, notificationsOnly, NodeById, { id: accessoryId });
    expect(denied.errors?.[0]?.extensions?.code).toBe('PERMISSION_DENIED');
    expect(denied.errors?.[0]?.extensions?.details).toEqual({ scope: 'service:activities_basic' });
    const delivery = await ok(t, notificationsOnly, NodeById, { id: deliveryId });
    expect(delivery.node).toEqual({ __typename: 'NotificationDelivery', id: deliveryId });
    const readerOnly = await t.token(['activities_basic'], 'node-user');
    const noNotifications = await gql(t.url, readerOnly, NodeById, { id: deliveryId });
    expect(noNotifications.errors?.[0]?.extensions?.code).toBe('PERMISSION_DENIED');
  });

  it('answers a node the token may not read with null and its own error, and the others as usual', async () => {
    const notificationsOnly = await t.token(['notifications'], 'node-user');
    const ids = [deliveryId, accessoryId, activities[0]!.id, 'no-such-id'];
    const res = await gql(t.url, notificationsOnly, Nodes, { ids });
    expect(res.data?.nodes).toEqual([
      {
        __typename: 'NotificationDelivery',
        id: deliveryId,
        webhookId: `test_${deliveryId}`,
        kind: 'test',
      },
      null,
      null,
      null,
    ]);
    expect(
      res.errors?.map((e) => ({
        path: e.path,
        code: e.extensions?.code,
        details: e.extensions?.details,
      })),
    ).toEqual(
      [1, 2, 3].map((index) => ({
        path: ['nodes', index],
        code: 'PERMISSION_DENIED',
        details: { scope: 'service:activities_basic' },
      })),
    );
  });
});
