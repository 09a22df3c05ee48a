import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { graphql } from '../generated/index.ts';
import { backends, startApp, type TestApp } from '../helpers/app.ts';
import { rest } from '../helpers/client.ts';
import { AssociateAccessory, CreateActivity, ok, seedAccessory } from '../helpers/fixtures.ts';
import { ReportMotion, UpdateActivity } from '../notifications/helpers.ts';
import { sse, subscribe, waitFor, wsClient, type Received, type WsClient } from './live-helpers.ts';

const FilteredAccountEvents = graphql(`
  subscription FilteredAccountEvents($accountId: ID!, $filter: String) {
    accountEvents(accountId: $accountId, filter: $filter) {
      eventId
      accessoryId
      eventType
      eventData
    }
  }
`);

const FilteredAccessoryEvents = graphql(`
  subscription FilteredAccessoryEvents($accessoryId: ID!, $filter: String, $after: String) {
    accessoryEvents(accessoryId: $accessoryId, filter: $filter, after: $after) {
      eventId
      eventType
      eventData
    }
  }
`);

const pick = (d: { accountEvents: Received }) => d.accountEvents;
const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000).toISOString();
const leftHalf = [
  { x: 0, y: 0 },
  { x: 0.5, y: 0 },
  { x: 0.5, y: 1 },
  { x: 0, y: 1 },
];

describe.each(backends)('filtered live events on %s', (backend) => {
  let t: TestApp;
  const clients: WsClient[] = [];
  const connect = (token: string) => {
    const c = wsClient(t.url, `Bearer ${token}`);
    clients.push(c);
    return c;
  };

  beforeAll(async () => {
    t = await startApp(backend);
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.dispose()));
  });
  afterAll(() => t?.close());

  it('streams a filtered accountEvents subscription exactly the matching events over WebSocket', async () => {
    const subject = 'live-filter-ws';
    const { ingest, accountId, accessoryId: a } = await seedAccessory(t, subject, 'cam-a');
    const b = (await ok(t, ingest, AssociateAccessory, { accountId, deviceId: 'cam-b', name: 'B' }))
      .associateAccessory.id;
    const reader = await t.token(['activities_basic'], subject);
    const { client } = connect(reader);
    const filter = `accessoryId = "${a}" AND (relevanceLevel >= 2 OR contains(motionZones, "z2"))`;
    const filtered = subscribe(client, FilteredAccountEvents, { accountId, filter }, pick);
    const everything = subscribe(client, FilteredAccountEvents, { accountId }, pick);
    await waitFor(() => t.app.services.live.activeSubscriptions === 2, 'the subscriptions');

    const created = await ok(t, ingest, CreateActivity, {
      accessoryId: a,
      input: { relevanceLevel: 1 },
    });
    const { activityId } = created.createActivity;
    await ok(t, ingest, UpdateActivity, {
      accessoryId: a,
      activityId,
      input: { relevanceLevel: 3 },
    });
    for (const [accessoryId, zone] of [
      [a, 'z2'],
      [a, 'z1'],
      [b, 'z2'],
    ] as const) {
      await ok(t, ingest, ReportMotion, { accessoryId, state: 'started', motionZones: [zone] });
    }
    await ok(t, ingest, CreateActivity, { accessoryId: b, input: { relevanceLevel: 3 } });

    await waitFor(() => everything.items.length >= 6, 'every event');
    const matching = (e: Received) => {
      const data = e.eventData as { relevanceLevel?: number; motionZones: string[] };
      return (
        e.accessoryId === a && ((data.relevanceLevel ?? 0) >= 2 || data.motionZones.includes('z2'))
      );
    };
    const expected = everything.items.filter(matching).map((e) => e.eventId);
    expect(expected).toHaveLength(2); // the update to relevance 3, motion in z2
    await waitFor(() => filtered.items.length >= expected.length, 'the matching events');
    // A last event that matches: nothing else can still be on its way before it.
    await ok(t, ingest, ReportMotion, { accessoryId: a, state: 'started', motionZones: ['z2'] });
    await waitFor(() => filtered.items.length >= expected.length + 1, 'the last event');
    expect(filtered.items.slice(0, -1).map((e) => e.eventId)).toEqual(expected);
    expect(filtered.errors).toEqual([]);
  });

  it('keeps zone conditions current over SSE and on replay with after', async () => {
    const subject = 'live-filter-sse';
    const { ingest, accessoryId } = await seedAccessory(t, subject, 'cam-z');
    const reader = await t.token(['activities_basic'], subject);
    const first = await ok(t, ingest, CreateActivity, {
      accessoryId,
      input: { createdAt: minutesAgo(10), motionZones: [], objectLocations: [] },
    });
    const old = first.createActivity.activityId;
    const filter = 'contains(motionZones, "z1")';
    const stream = await sse(t.url, reader, FilteredAccessoryEvents, { accessoryId, filter });
    expect(stream.status).toBe(200);
    await waitFor(() => t.app.services.live.activeSubscriptions === 1, 'the SSE subscription');

    const editor = await t.token(['zones'], subject);
    const saved = await rest(t.url, editor, 'PUT', `/api/accessories/${accessoryId}/zones`, {
      zones: [{ id: 'z1', name: 'Left', color: '#ff8800', vertices: leftHalf }],
    });
    expect(saved.status).toBe(200);
    const update = (activityId: string, input: object) =>
      ok(t, ingest, UpdateActivity, { accessoryId, activityId, input });
    await update(old, { objectLocations: [0] }); // started before the save: cell 0 is in z1
    await update(old, { objectLocations: [15], motionZones: ['z1'] }); // cell 15 is not
    await ok(t, ingest, CreateActivity, { accessoryId, input: { motionZones: ['z1'] } });

    const next = () =>
      stream.events
        .filter((e) => e.event === 'next')
        .map((e) => JSON.parse(e.data).data.accessoryEvents as Received);
    await waitFor(() => next().length >= 3, 'the matching events over SSE');
    const summary = (events: Received[]) =>
      events.map((e) => [e.eventType, (e.eventData as { sequence?: number }).sequence]);
    expect(summary(next())).toEqual([
      ['zones_saved', undefined],
      ['activity_updated', 2],
      ['activity_created', 1],
    ]);
    stream.abort();

    // Replayed from the log after the first event, judged with the zones as they are now.
    const { client } = connect(reader);
    const { rows } = await t.app.services.db.pool.query<{ id: string }>(
      'SELECT min(id)::text AS id FROM events WHERE accessory_id = $1',
      [accessoryId],
    );
    const replay = subscribe(
      client,
      FilteredAccessoryEvents,
      { accessoryId, filter, after: rows[0]!.id },
      (d: { accessoryEvents: Received }) => d.accessoryEvents,
    );
    await waitFor(() => replay.items.length >= 3, 'the replay');
    expect(replay.items.map((e) => e.eventId)).toEqual(next().map((e) => e.eventId));
  });

  it('refuses a bad filter with its position', async () => {
    const subject = 'live-filter-bad';
    const { accountId } = await seedAccessory(t, subject, 'cam-x');
    const reader = await t.token(['activities_basic'], subject);
    const { client } = connect(reader);
    const bad = subscribe(
      client,
      FilteredAccountEvents,
      { accountId, filter: 'relevanceLevel >= ' },
      pick,
    );
    await bad.ended;
    expect(bad.errors).toMatchObject([
      { extensions: { code: 'INVALID_ARGUMENT', details: { field: 'filter', position: 18 } } },
    ]);
  });
});
