import { print } from 'graphql';
import { createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { eventTypes, isEventType, type StoredEvent } from '../../src/events/types.ts';
import { coveredCells, rectangle } from '../../src/zones/geometry.ts';
import { backends, startApp, type TestApp } from '../helpers/app.ts';
import { gql, rest } from '../helpers/client.ts';
import { ok, seedAccessory } from '../helpers/fixtures.ts';
import { AccessoryZones, SaveZones, ZoneEvents } from './documents.ts';

const door = { id: 'z1', name: 'Door', color: '#ff8800', vertices: rectangle(0.1, 0.1, 0.4, 0.6) };
const drive = {
  id: 'z3',
  name: 'Drive way',
  color: '#00aa11',
  vertices: [
    { x: 0.5, y: 0.5 },
    { x: 0.9, y: 0.55 },
    { x: 0.7, y: 0.95 },
  ],
};

describe.each(backends)('zones on %s', (backend) => {
  let t: TestApp;
  let accessoryId: string;
  let otherAccessoryId: string;
  let reader: string;
  let editor: string;
  const path = (id: string) => `/api/accessories/${id}/zones`;

  beforeAll(async () => {
    t = await startApp(backend);
    ({ accessoryId } = await seedAccessory(t, 'user-1', 'camera-1'));
    ({ accessoryId: otherAccessoryId } = await seedAccessory(t, 'user-2', 'camera-2'));
    reader = await t.token(['activities_basic']);
    editor = await t.token(['activities_basic', 'zones']);
  });
  afterAll(() => t.close());

  /** The events the app commits while `action` runs. */
  async function committedDuring(action: () => Promise<unknown>): Promise<StoredEvent[]> {
    const events: StoredEvent[] = [];
    const stop = t.app.services.signal.subscribe((batch) => events.push(...batch));
    try {
      await action();
    } finally {
      stop();
    }
    return events;
  }

  it('has no zones and no lastModified before the first save', async () => {
    const res = await rest(t.url, reader, 'GET', path(accessoryId));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ zones: [], lastModified: null });
    const data = await ok(t, reader, AccessoryZones, { id: accessoryId });
    expect(data.accessory?.zones).toEqual({ accessoryId, zones: [], lastModified: null });
  });

  it('saves over REST, returns the zones with lastModified, and reads them back', async () => {
    const before = Date.now();
    const saved = await rest(t.url, editor, 'PUT', path(accessoryId), {
      zones: [drive, { ...door, color: '#FF8800' }],
    });
    expect(saved.status).toBe(200);
    const expected = [drive, door]; // saved order kept, color in lower case
    expect(saved.body).toEqual({ zones: expected, lastModified: expect.any(String) });
    const lastModified = Date.parse(saved.body.lastModified);
    expect(saved.body.lastModified).toBe(new Date(lastModified).toISOString());
    expect(lastModified).toBeGreaterThanOrEqual(before - 1);
    expect(lastModified).toBeLessThanOrEqual(Date.now() + 1);

    expect((await rest(t.url, reader, 'GET', path(accessoryId))).body).toEqual(saved.body);
    const data = await ok(t, reader, AccessoryZones, { id: accessoryId });
    expect(data.accessory?.zones).toEqual({ accessoryId, ...saved.body });

    // The cells each zone covers are stored with it.
    const { rows } = await t.app.services.db.pool.query<{ zone_id: string; cells: number[] }>(
      'SELECT zone_id, cells FROM zones WHERE accessory_id = $1 ORDER BY zone_id',
      [accessoryId],
    );
    expect(rows).toEqual([
      { zone_id: 'z1', cells: coveredCells(door.vertices) },
      { zone_id: 'z3', cells: coveredCells(drive.vertices) },
    ]);
    expect(rows[0]!.cells).toContain(2 * 16 + 3); // (0.2, 0.3) is in the door
  });

  it('replaces the whole set on every save, with a later lastModified each time', async () => {
    const first = await rest(t.url, editor, 'PUT', path(accessoryId), { zones: [door, drive] });
    // The body of a GET, lastModified included, can be sent back as it is.
    const get = await rest(t.url, reader, 'GET', path(accessoryId));
    const second = await rest(t.url, editor, 'PUT', path(accessoryId), {
      ...get.body,
      zones: [{ ...drive, id: 'z2' }],
    });
    expect(second.status).toBe(200);
    expect(second.body.zones).toEqual([{ ...drive, id: 'z2' }]);
    expect(Date.parse(second.body.lastModified)).toBeGreaterThan(
      Date.parse(first.body.lastModified),
    );
    const cleared = await rest(t.url, editor, 'PUT', path(accessoryId), { zones: [] });
    expect(cleared.body).toEqual({ zones: [], lastModified: expect.any(String) });
    expect(Date.parse(cleared.body.lastModified)).toBeGreaterThan(
      Date.parse(second.body.lastModified),
    );
    expect((await rest(t.url, reader, 'GET', path(accessoryId))).body).toEqual(cleared.body);
  });

  it('saves over GraphQL with saveZones', async () => {
    const data = await ok(t, editor, SaveZones, { accessoryId, zones: [door] });
    expect(data.saveZones).toEqual({
      accessoryId,
      lastModified: expect.any(String),
      zones: [door],
    });
    expect((await rest(t.url, reader, 'GET', path(accessoryId))).body).toEqual({
      zones: [door],
      lastModified: data.saveZones.lastModified,
    });
  });

  it('needs activities_basic to read and zones to save', async () => {
    const zonesOnly = await t.token(['zones']);
    const read = await rest(t.url, zonesOnly, 'GET', path(accessoryId));
    expect(read.status).toBe(403);
    expect(read.body.error.code).toBe('PERMISSION_DENIED');

    const save = await rest(t.url, reader, 'PUT', path(accessoryId), { zones: [door] });
    expect(save.status).toBe(403);
    expect(save.headers.get('www-authenticate')).toContain('scope="service:zones"');
    const viaGraphql = await gql(t.url, reader, SaveZones, { accessoryId, zones: [door] });
    expect(viaGraphql.errors?.[0]?.extensions?.code).toBe('PERMISSION_DENIED');

    // zones alone is enough to save.
    expect((await rest(t.url, zonesOnly, 'PUT', path(accessoryId), { zones: [door] })).status).toBe(
      200,
    );
  });

  it("treats another account's accessory as missing", async () => {
    const before = (await rest(t.url, editor, 'GET', path(accessoryId))).body;
    for (const id of [otherAccessoryId, crypto.randomUUID(), 'not-a-uuid']) {
      // A malformed id in a REST path is a 400 on it; a well-formed one of nobody's a 404.
      const [status, code] = id === 'not-a-uuid' ? [400, 'INVALID_ARGUMENT'] : [404, 'NOT_FOUND'];
      const read = await rest(t.url, editor, 'GET', path(id));
      expect(read.status).toBe(status);
      expect(read.body.error.code).toBe(code);
      const save = await rest(t.url, editor, 'PUT', path(id), { zones: [door] });
      expect(save.status).toBe(status);
      const viaGraphql = await gql(t.url, editor, SaveZones, { accessoryId: id, zones: [door] });
      expect(viaGraphql.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    }
    const data = await ok(t, editor, AccessoryZones, { id: otherAccessoryId });
    expect(data.accessory).toBeNull();
    // The other account's zones were not touched (it still has none) and ours neither.
    const other = await t.token(['activities_basic'], 'user-2');
    expect((await rest(t.url, other, 'GET', path(otherAccessoryId))).body).toEqual({
      zones: [],
      lastModified: null,
    });
    expect((await rest(t.url, editor, 'GET', path(accessoryId))).body).toEqual(before);
  });

  describe('validation', () => {
    const bowtie = [
      { x: 0.1, y: 0.1 },
      { x: 0.4, y: 0.4 },
      { x: 0.4, y: 0.1 },
      { x: 0.1, y: 0.4 },
    ];
    const cases: Array<[string, unknown, string]> = [
      ['no zones member', {}, 'zones'],
      ['zones not a list', { zones: { z1: door } }, 'zones'],
      ['an unknown member', { zones: [door], extra: 1 }, 'extra'],
      ['an unknown zone member', { zones: [{ ...door, shape: 'rect' }] }, 'zones.0.shape'],
      ['a missing name', { zones: [{ ...door, name: undefined }] }, 'zones.0.name'],
      [
        'a coordinate that is a string',
        { zones: [door, { ...drive, vertices: [{ x: '0.5', y: 0.5 }, ...drive.vertices] }] },
        'zones.1.vertices.0.x',
      ],
      [
        'six zones',
        { zones: ['z1', 'z2', 'z3', 'z4', 'z5', 'z1'].map((id) => ({ ...door, id })) },
        'zones',
      ],
      ['the system zone', { zones: [door, { ...drive, id: 'zR' }] }, 'zones.1.id'],
      ['an unknown id', { zones: [{ ...door, id: 'z6' }] }, 'zones.0.id'],
      ['a repeated id', { zones: [door, drive, { ...drive, id: 'z1' }] }, 'zones.2.id'],
      ['an empty name', { zones: [{ ...door, name: '' }] }, 'zones.0.name'],
      ['a long name', { zones: [{ ...door, name: 'n'.repeat(65) }] }, 'zones.0.name'],
      ['a color name', { zones: [{ ...door, color: 'orange' }] }, 'zones.0.color'],
      ['a short color', { zones: [{ ...door, color: '#f80' }] }, 'zones.0.color'],
      [
        'two vertices',
        { zones: [{ ...door, vertices: drive.vertices.slice(1) }] },
        'zones.0.vertices',
      ],
      [
        'too many vertices',
        { zones: [{ ...door, vertices: Array.from({ length: 33 }, () => ({ x: 0, y: 0 })) }] },
        'zones.0.vertices',
      ],
      [
        'a coordinate out of range',
        {
          zones: [
            door,
            drive,
            {
              ...door,
              id: 'z5',
              vertices: [{ x: 0.1, y: 0.1 }, { x: 1.5, y: 0.1 }, ...door.vertices.slice(2)],
            },
          ],
        },
        'zones.2.vertices.1.x',
      ],
      [
        'a negative coordinate',
        { zones: [{ ...door, vertices: [...door.vertices.slice(0, 3), { x: 0.1, y: -0.1 }] }] },
        'zones.0.vertices.3.y',
      ],
      [
        'a self-intersecting polygon',
        { zones: [{ ...door, vertices: bowtie }] },
        'zones.0.vertices',
      ],
      [
        'a repeated vertex',
        { zones: [{ ...door, vertices: rectangle(0.2, 0.2, 0.2, 0.8) }] },
        'zones.0.vertices.1',
      ],
      [
        'collinear vertices',
        {
          zones: [
            {
              ...door,
              vertices: [
                { x: 0.1, y: 0.1 },
                { x: 0.2, y: 0.2 },
                { x: 0.3, y: 0.3 },
              ],
            },
          ],
        },
        'zones.0.vertices',
      ],
    ];

    it.each(cases.map(([what, body, field]) => ({ what, body, field })))(
      'refuses $what (400 on $field) and keeps the saved zones',
      async ({ body, field }) => {
        const before = (await rest(t.url, reader, 'GET', path(accessoryId))).body;
        const events = await committedDuring(async () => {
          const res = await rest(t.url, editor, 'PUT', path(accessoryId), body);
          expect(res.status).toBe(400);
          expect(res.body.error).toMatchObject({ code: 'INVALID_ARGUMENT', details: { field } });
        });
        expect(events).toEqual([]);
        expect((await rest(t.url, reader, 'GET', path(accessoryId))).body).toEqual(before);
      },
    );

    it('names the same fields over GraphQL', async () => {
      const graphqlCases: Array<[unknown[], string]> = [
        [['z1', 'z2', 'z3', 'z4', 'z5', 'z1'].map((id) => ({ ...door, id })), 'zones'],
        [[door, { ...drive, id: 'zR' }], 'zones.1.id'],
        [[door, { ...drive, id: 'z1' }], 'zones.1.id'],
        [[{ ...door, name: '' }], 'zones.0.name'],
        [[{ ...door, color: '#12345' }], 'zones.0.color'],
        [[{ ...door, vertices: door.vertices.slice(0, 2) }], 'zones.0.vertices'],
        [
          [drive, { ...door, vertices: [{ x: 0.1, y: 1.01 }, ...door.vertices.slice(1)] }],
          'zones.1.vertices.0.y',
        ],
        [[{ ...door, vertices: bowtie }], 'zones.0.vertices'],
      ];
      for (const [zones, field] of graphqlCases) {
        const res = await gql(t.url, editor, SaveZones, { accessoryId, zones: zones as never });
        expect(res.errors?.[0]?.extensions).toMatchObject({
          code: 'INVALID_ARGUMENT',
          details: { field },
        });
      }
    });
  });

  it('records a zones_saved event for the accessory in the same commit, not a webhook type', async () => {
    const events = await committedDuring(() =>
      rest(t.url, editor, 'PUT', path(accessoryId), { zones: [drive] }),
    );
    const saved = (await rest(t.url, reader, 'GET', path(accessoryId))).body;
    const accountId = (await rest(t.url, reader, 'GET', '/api/accounts/self')).body.accountId;
    // (Other members, e.g. the stream links of live subscriptions, may come with it.)
    expect(events).toEqual([
      expect.objectContaining({
        eventId: expect.any(String),
        occurredAt: expect.any(Date),
        accountId,
        accessoryId,
        eventType: 'zones_saved',
        eventData: { accessoryId, ...saved },
      }),
    ]);
    const { rows } = await t.app.services.db.pool.query(
      'SELECT account_id, accessory_id, event_type, event_data FROM events WHERE id = $1',
      [events[0]!.eventId],
    );
    expect(rows).toEqual([
      {
        account_id: accountId,
        accessory_id: accessoryId,
        event_type: 'zones_saved',
        event_data: { accessoryId, ...saved },
      },
    ]);
    // Over GraphQL too.
    const viaGraphql = await committedDuring(() =>
      ok(t, editor, SaveZones, { accessoryId, zones: [] }),
    );
    expect(viaGraphql.map((e) => [e.eventType, e.eventData.zones])).toEqual([['zones_saved', []]]);
    // Receivers cannot register for it: it is not a webhook event type.
    expect(isEventType('zones_saved')).toBe(false);
  });

  it('streams zones_saved to subscribers of the accessory, replayed and live', async () => {
    // The stream resumes after an event of its own: the save before `first`.
    const [before] = await committedDuring(() =>
      rest(t.url, editor, 'PUT', path(accessoryId), { zones: [] }),
    );
    const first = await rest(t.url, editor, 'PUT', path(accessoryId), { zones: [door] });
    const client = createClient({
      url: `${t.url.replace(/^http/, 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${reader}` },
      retryAttempts: 0,
    });
    const received: Array<{ eventType: string; eventData: any }> = [];
    const errors: unknown[] = [];
    const unsubscribe = client.subscribe(
      { query: print(ZoneEvents), variables: { accessoryId, after: before!.eventId } },
      {
        next: (result) => {
          if (result.errors) errors.push(...result.errors);
          const event = (result.data as any)?.accessoryEvents;
          if (event) received.push(event);
        },
        error: (err) => errors.push(err),
        complete: () => {},
      },
    );
    const until = (check: () => boolean) =>
      vi.waitFor(
        () => {
          expect(errors).toEqual([]);
          expect(check()).toBe(true);
        },
        { timeout: 10_000, interval: 20 },
      );
    try {
      const isSave = (body: any) => (e: { eventType: string; eventData: any }) =>
        e.eventType === 'zones_saved' && e.eventData.lastModified === body.lastModified;
      // Replayed from the log.
      await until(() => received.some(isSave(first.body)));
      expect(received.find(isSave(first.body))!.eventData).toEqual({ accessoryId, ...first.body });
      // And live.
      const second = await rest(t.url, editor, 'PUT', path(accessoryId), { zones: [drive] });
      await until(() => received.some(isSave(second.body)));
      expect(received.find(isSave(second.body))!.eventData).toEqual({
        accessoryId,
        ...second.body,
      });
    } finally {
      unsubscribe();
      await client.dispose();
    }
  });
});

describe.each(backends)('zones and webhooks on %s', (backend) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp(backend, {
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    });
  });
  afterAll(() => t.close());

  it('cannot register for zones_saved, and a save queues no delivery', async () => {
    const { accessoryId } = await seedAccessory(t);
    const owner = await t.token(['activities_basic', 'zones', 'notifications_motion']);
    const registration = {
      url: 'http://127.0.0.1:9/hook',
      authKey: 'k'.repeat(32),
    };
    const refused = await rest(t.url, owner, 'PUT', '/api/accounts/self/notifications', {
      ...registration,
      eventTypes: ['activity_created', 'zones_saved'],
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.details.field).toMatch(/^eventTypes/);

    const everything = [...eventTypes];
    const registered = await rest(t.url, owner, 'PUT', '/api/accounts/self/notifications', {
      ...registration,
      eventTypes: everything,
    });
    expect(registered.status).toBe(200);
    const saved = await rest(t.url, owner, 'PUT', `/api/accessories/${accessoryId}/zones`, {
      zones: [door],
    });
    expect(saved.status).toBe(200);
    const { rows } = await t.app.services.db.pool.query<{ event_type: string; n: string }>(
      `SELECT e.event_type, count(d.*) AS n FROM events e LEFT JOIN deliveries d ON d.event_id = e.id
        WHERE e.accessory_id = $1 GROUP BY e.event_type`,
      [accessoryId],
    );
    expect(rows).toEqual([{ event_type: 'zones_saved', n: '0' }]);
  });
});
