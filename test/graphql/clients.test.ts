import { ApolloClient, HttpLink, InMemoryCache } from '@apollo/client';
import { relayStylePagination } from '@apollo/client/utilities';
import { print } from 'graphql';
import { createClient } from 'graphql-sse';
import { filter, firstValueFrom } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccessoryEvents } from '../events/live-helpers.ts';
import { graphql } from '../generated/index.ts';
import { backends, startApp, type TestApp } from '../helpers/app.ts';
import { CreateActivity, ok, seedAccessory, seedActivities } from '../helpers/fixtures.ts';
import { ReportMotion, UpdateActivity } from '../notifications/helpers.ts';

// What client libraries expect of the schema, tried with the libraries themselves.

const Timeline = graphql(`
  query ClientTimeline($id: ID!, $first: Int, $after: String) {
    accessory(id: $id) {
      id
      name
      activities(first: $first, after: $after) {
        edges {
          cursor
          node {
            id
            activityId
            relevanceLevel
          }
        }
        pageInfo {
          hasNextPage
          endCursor
        }
      }
    }
  }
`);

const ActivityNode = graphql(`
  query ClientActivityNode($id: ID!) {
    node(id: $id) {
      id
      ... on Activity {
        activityId
        relevanceLevel
      }
    }
  }
`);

describe.each(backends)('client libraries on %s', (backend) => {
  let t: TestApp;
  let ingest: string;
  let accessoryId: string;
  let reader: string;
  let seeded: string[];

  beforeAll(async () => {
    t = await startApp(backend);
    ({ ingest, accessoryId } = await seedAccessory(t, 'client-user'));
    seeded = await seedActivities(t, ingest, accessoryId, 11);
    reader = await t.token(['activities_basic'], 'client-user');
  });
  afterAll(() => t.close());

  it('Apollo Client pages an accessory to its end with relayStylePagination and refetches a node by id', async () => {
    let requests = 0;
    const client = new ApolloClient({
      link: new HttpLink({
        uri: `${t.url}/graphql`,
        headers: { authorization: `Bearer ${reader}` },
        fetch: (input, init) => {
          requests++;
          return fetch(input, init);
        },
      }),
      cache: new InMemoryCache({
        typePolicies: {
          Accessory: { fields: { activities: relayStylePagination(['filter', 'where']) } },
        },
      }),
    });
    const variables = { id: accessoryId, first: 4 };
    const timeline = client.watchQuery({ query: Timeline, variables });
    const subscription = timeline.subscribe(() => {});
    try {
      let { data } = await firstValueFrom(timeline.pipe(filter((r) => r.dataState === 'complete')));
      // fetchMore merges each page into the cached connection (relayStylePagination), which
      // the cache then gives back as one list.
      while (data.accessory!.activities.pageInfo.hasNextPage) {
        await timeline.fetchMore({
          variables: { after: data.accessory!.activities.pageInfo.endCursor },
        });
        data = client.readQuery({ query: Timeline, variables })!;
      }
      expect(requests).toBe(3);
      const merged = data.accessory!.activities.edges.map((e) => e.node.activityId);
      expect(merged).toEqual([...seeded].reverse());
      expect(data.accessory!.activities.edges.map((e) => e.cursor)).toEqual(merged);

      // The newest activity changes; refetching it as a node updates the normalized cache, so
      // the paged list shows the change without being paged again.
      const newest = data.accessory!.activities.edges[0]!.node;
      await ok(t, ingest, UpdateActivity, {
        accessoryId,
        activityId: newest.activityId,
        input: { relevanceLevel: 7 },
      });
      const refetched = await client.query({
        query: ActivityNode,
        variables: { id: newest.id },
        fetchPolicy: 'network-only',
      });
      expect(refetched.data?.node).toMatchObject({
        id: newest.id,
        activityId: newest.activityId,
        relevanceLevel: 7,
      });
      const after = client.readQuery({ query: Timeline, variables })!;
      expect(after.accessory!.activities.edges[0]!.node.relevanceLevel).toBe(7);
      expect(after.accessory!.activities.edges).toHaveLength(11);
      expect(requests).toBe(4);
    } finally {
      subscription.unsubscribe();
      client.stop();
    }
  });

  it('graphql-sse (distinct connections mode) receives live events, resuming after an eventId', async () => {
    // An event to resume after: with `after`, nothing committed once it is given can be missed,
    // however long the stream takes to open.
    const { reportMotion } = await ok(t, ingest, ReportMotion, { accessoryId, state: 'started' });
    const client = createClient({
      url: `${t.url}/graphql`,
      headers: { authorization: `Bearer ${reader}` },
      retryAttempts: 0,
    });
    const stream = client.iterate({
      query: print(AccessoryEvents),
      variables: { accessoryId, after: reportMotion.eventId },
    });
    try {
      await ok(t, ingest, CreateActivity, { accessoryId, input: { relevanceLevel: 3 } });
      const { value, done } = await stream.next();
      expect(done).toBe(false);
      const event = (value as { data: { accessoryEvents: Record<string, unknown> } }).data
        .accessoryEvents;
      expect(event).toMatchObject({
        accessoryId,
        eventType: 'activity_created',
        eventData: { accessoryId, relevanceLevel: 3, inProgress: true },
      });
      expect(BigInt(event.eventId as string)).toBeGreaterThan(BigInt(reportMotion.eventId));
    } finally {
      await stream.return?.();
      client.dispose();
    }
  });
});
