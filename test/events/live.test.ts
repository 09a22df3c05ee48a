import { print } from 'graphql';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { signDevToken } from '../../src/accounts/auth.ts';
import { recordEvents } from '../../src/events/outbox.ts';
import { purgeEventLog } from '../../src/events/log.ts';
import { backends, startApp, TEST_SECRET, type TestApp } from '../helpers/app.ts';
import { CreateActivity, ok, seedAccessory } from '../helpers/fixtures.ts';
import {
  accessoryEvent,
  AccessoryEvents,
  accountEvent,
  AccountEvents,
  createActivities,
  loggedIds,
  redisVariants,
  sse,
  subscribe,
  waitFor,
  wsClient,
  type WsClient,
} from './live-helpers.ts';

const buses = ['memory', ...redisVariants.map((v) => v.name)] as const;
const matrix = backends.flatMap((backend) => buses.map((bus) => [backend, bus] as const));

/** Subscribes a client to an accessory's events, from `after` when given. */
const watch = (client: WsClient['client'], accessoryId: string, after?: string) =>
  subscribe(client, AccessoryEvents, { accessoryId, after }, accessoryEvent);

describe.each(matrix)('live events on %s with the %s pub/sub', (backend, bus) => {
  let t: TestApp;
  const clients: WsClient[] = [];
  const connect = (authorization: string | undefined) => {
    const c = wsClient(t.url, authorization);
    clients.push(c);
    return c;
  };
  const live = () => t.app.services.live;
  let subjects = 0;
  /** A fresh account with an accessory, and a reader's token for it. */
  const seed = async (devices = 1) => {
    const subject = `live-${++subjects}`;
    const first = await seedAccessory(t, subject, 'cam-0');
    const accessoryIds = [first.accessoryId];
    for (let i = 1; i < devices; i++) {
      accessoryIds.push((await seedAccessory(t, subject, `cam-${i}`)).accessoryId);
    }
    const reader = await t.token(['activities_basic'], subject);
    return { ...first, accessoryIds, subject, reader };
  };

  beforeAll(async () => {
    t = await startApp(backend, {
      ...redisVariants.find((v) => v.name === bus)?.env,
      LIVE_BUFFER_EVENTS: '32',
      LIVE_MAX_BUFFERED_BYTES: '65536',
      LIVE_MAX_CONNECTIONS_PER_SUBJECT: '3',
    });
  });
  afterAll(() => t?.close());
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.dispose()));
    await waitFor(() => live().activeSubscriptions === 0, 'subscriptions to end');
  });

  it("delivers an accessory's events in commit order, as the log holds them", async () => {
    const s = await seed();
    const c = connect(`Bearer ${s.reader}`);
    const sub = watch(c.client, s.accessoryId);
    await waitFor(() => live().activeSubscriptions === 1, 'the subscription');

    await createActivities(t, s.ingest, s.accessoryId, 5);
    // Concurrent changes of one accessory: the row lock orders them; some may conflict (409).
    await Promise.allSettled(
      Array.from({ length: 10 }, () =>
        ok(t, s.ingest, CreateActivity, { accessoryId: s.accessoryId, input: {} }),
      ),
    );
    const logged = await loggedIds(t, s.accessoryId);
    await waitFor(() => sub.items.length >= logged.length, 'every event');
    expect(sub.errors).toEqual([]);
    expect(sub.items.map((e) => e.eventId)).toEqual(logged);
    expect(sub.items[0]).toMatchObject({
      eventType: 'activity_created',
      accessoryId: s.accessoryId,
      eventData: { accessoryId: s.accessoryId, inProgress: true },
    });
    expect(sub.items[1]!.eventType).toBe('activity_finished');
  });

  it("orders an account's events across its accessories, and filters by type", async () => {
    const s = await seed(3);
    const c = connect(`Bearer ${s.reader}`);
    const all = subscribe(c.client, AccountEvents, { accountId: 'self' }, accountEvent);
    const created = subscribe(
      c.client,
      AccountEvents,
      { accountId: s.accountId, eventTypes: ['activity_created'] },
      accountEvent,
    );
    await waitFor(() => live().activeSubscriptions === 2, 'the subscriptions');
    // Three accessories changing at once: the account's events still arrive in id order.
    await Promise.all(s.accessoryIds.map((id) => createActivities(t, s.ingest, id, 4)));
    const { rows } = await t.app.services.db.pool.query<{ id: string; type: string }>(
      'SELECT id::text AS id, event_type AS type FROM events WHERE account_id = $1 ORDER BY events.id',
      [s.accountId],
    );
    await waitFor(() => all.items.length >= rows.length, 'every event');
    expect(all.items.map((e) => e.eventId)).toEqual(rows.map((r) => r.id));
    const createdIds = rows.filter((r) => r.type === 'activity_created').map((r) => r.id);
    await waitFor(() => created.items.length >= createdIds.length, 'the created events');
    expect(created.items.map((e) => e.eventId)).toEqual(createdIds);
  });

  it('repairs a lost or overtaken message from the event log', async () => {
    const s = await seed();
    const c = connect(`Bearer ${s.reader}`);
    const sub = watch(c.client, s.accessoryId);
    await waitFor(() => live().activeSubscriptions === 1, 'the subscription');
    // Committed, but never published (as if the message were lost on the way).
    const [silent] = await t.app.services.db.prisma.$transaction((tx) =>
      recordEvents(tx, [
        {
          accountId: s.accountId,
          accessoryId: s.accessoryId,
          eventType: 'motion_started',
          eventData: {
            accessoryId: s.accessoryId,
            motionZones: [],
            timestamp: new Date().toISOString(),
          },
        },
      ]),
    );
    await createActivities(t, s.ingest, s.accessoryId, 1);
    const logged = await loggedIds(t, s.accessoryId);
    await waitFor(() => sub.items.length >= logged.length, 'both events');
    expect(sub.items.map((e) => e.eventId)).toEqual(logged);
    expect(sub.items[0]!.eventId).toBe(silent!.eventId);
    // The lost message turns up after all, late: a repeat, dropped.
    live().publish([silent!]);
    await createActivities(t, s.ingest, s.accessoryId, 1);
    const all = await loggedIds(t, s.accessoryId);
    await waitFor(() => sub.items.length >= all.length, 'the next events');
    await sleep(50);
    expect(sub.items.map((e) => e.eventId)).toEqual(all);
  });

  it('refuses a connection without a valid token (4403)', async () => {
    const none = connect(undefined);
    expect(await none.closed).toMatchObject({ code: 4403 });
    expect((await none.closed).reason).toMatch(/Authorization header is missing/);
    const bad = connect('Bearer not-a-token');
    expect(await bad.closed).toMatchObject({
      code: 4403,
      reason: expect.stringMatching(/^Forbidden/),
    });
    await waitFor(() => t.app.services.liveConnections.total === 0, 'the refused sockets to close');
  });

  it("refuses another account's accessory and account (NOT_FOUND), and a missing scope", async () => {
    const mine = await seed();
    const theirs = await seed();
    const c = connect(`Bearer ${mine.reader}`);
    const accessory = watch(c.client, theirs.accessoryId);
    const account = subscribe(
      c.client,
      AccountEvents,
      { accountId: theirs.accountId },
      accountEvent,
    );
    await Promise.all([accessory.ended, account.ended]);
    for (const sub of [accessory, account]) {
      expect(sub.items).toEqual([]);
      expect(sub.errors).toMatchObject([{ extensions: { code: 'NOT_FOUND' } }]);
    }
    const ingestOnly = connect(`Bearer ${await t.token(['ingest'], mine.subject)}`);
    const denied = watch(ingestOnly.client, mine.accessoryId);
    await denied.ended;
    expect(denied.errors).toMatchObject([{ extensions: { code: 'PERMISSION_DENIED' } }]);
    expect(live().activeSubscriptions).toBe(0);
  });

  it('resumes with after: exactly the missed events, then live ones, across a busy seam', async () => {
    const s = await seed();
    const first = connect(`Bearer ${s.reader}`);
    const before = watch(first.client, s.accessoryId);
    await waitFor(() => live().activeSubscriptions === 1, 'the subscription');
    await createActivities(t, s.ingest, s.accessoryId, 2);
    await waitFor(() => before.items.length === 3, 'the first events');
    await first.dispose();
    const after = before.items.at(-1)!.eventId;

    // Missed while away.
    await createActivities(t, s.ingest, s.accessoryId, 3);
    // And a producer that keeps committing while the client resubscribes.
    let producing = true;
    const producer = (async () => {
      while (producing) await createActivities(t, s.ingest, s.accessoryId, 1);
    })();
    const second = connect(`Bearer ${s.reader}`);
    const resumed = watch(second.client, s.accessoryId, after);
    await waitFor(() => resumed.items.length >= 12, 'replayed and live events');
    producing = false;
    await producer;
    const logged = await loggedIds(t, s.accessoryId, after);
    await waitFor(() => resumed.items.length >= logged.length, 'every event');
    await sleep(100);
    expect(resumed.errors).toEqual([]);
    expect(resumed.items.map((e) => e.eventId)).toEqual(logged);
  });

  it('refuses an after that is not in the event log (INVALID_ARGUMENT)', async () => {
    const s = await seed();
    await createActivities(t, s.ingest, s.accessoryId, 1);
    const [old] = await loggedIds(t, s.accessoryId);
    const c = connect(`Bearer ${s.reader}`);
    const garbage = watch(c.client, s.accessoryId, 'yesterday');
    await garbage.ended;
    expect(garbage.errors).toMatchObject([
      { extensions: { code: 'INVALID_ARGUMENT', details: { field: 'after' } } },
    ]);
    // The log forgets a day's events once they are all past its retention (24 h): pretend two
    // days went by.
    const later = new Date(Date.now() + 48 * 3_600_000);
    expect(await purgeEventLog(t.app.services.db, 24, later)).toBeGreaterThan(0);
    const tooOld = watch(c.client, s.accessoryId, old);
    await tooOld.ended;
    expect(tooOld.errors).toMatchObject([
      {
        message: expect.stringMatching(/retention/),
        extensions: { code: 'INVALID_ARGUMENT', details: { field: 'after' } },
      },
    ]);
  });

  it('streams over SSE to a plain HTTP client', async () => {
    const s = await seed();
    expect(
      (await sse(t.url, undefined, AccessoryEvents, { accessoryId: s.accessoryId })).status,
    ).toBe(401);
    const stream = await sse(t.url, s.reader, AccessoryEvents, { accessoryId: s.accessoryId });
    expect(stream.status).toBe(200);
    expect(stream.response.headers.get('content-type')).toMatch(/text\/event-stream/);
    await waitFor(() => live().activeSubscriptions === 1, 'the SSE subscription');
    await createActivities(t, s.ingest, s.accessoryId, 2);
    const logged = await loggedIds(t, s.accessoryId);
    const next = () => stream.events.filter((e) => e.event === 'next');
    await waitFor(() => next().length >= logged.length, 'the events over SSE');
    const received = next().map(
      (e) => (JSON.parse(e.data) as { data: { accessoryEvents: { eventId: string } } }).data,
    );
    expect(received.map((d) => d.accessoryEvents.eventId)).toEqual(logged);
    expect(t.app.services.liveConnections.total).toBe(1);
    stream.abort();
    await stream.done;
    await waitFor(() => live().activeSubscriptions === 0, 'the SSE subscription to end');
    expect(t.app.services.liveConnections.total).toBe(0);
  });

  it('frees everything on unsubscribe and on disconnect', async () => {
    const s = await seed(2);
    const c = connect(`Bearer ${s.reader}`);
    const subs = [
      watch(c.client, s.accessoryIds[0]!),
      watch(c.client, s.accessoryIds[1]!),
      subscribe(c.client, AccountEvents, { accountId: 'self' }, accountEvent),
      watch(c.client, s.accessoryIds[0]!),
    ];
    await waitFor(() => live().activeSubscriptions === 4, 'the subscriptions');
    expect(live().topicCount).toBe(3);
    for (const sub of subs.slice(0, 2)) sub.unsubscribe();
    await waitFor(() => live().activeSubscriptions === 2, 'two to end');
    await c.dispose();
    await waitFor(() => live().activeSubscriptions === 0, 'all to end');
    expect(live().topicCount).toBe(0);
    expect(live().queuedEvents()).toBe(0);
    await waitFor(() => t.app.services.liveConnections.total === 0, 'the socket to close');
    const metrics = await (await fetch(`${t.url}/metrics`)).text();
    expect(metrics).toMatch(/^clipgate_live_subscriptions 0$/m);
    expect(metrics).toMatch(/^clipgate_live_sockets 0$/m);
    expect(metrics).toMatch(/^clipgate_live_events_fanned_out_total \d+$/m);
  });

  it('limits connections per token subject and client', async () => {
    const s = await seed();
    const open = [1, 2, 3].map(() => connect(`Bearer ${s.reader}`));
    const subs = open.map((c) => watch(c.client, s.accessoryId));
    await waitFor(() => live().activeSubscriptions === 3, 'three connections');
    const fourth = connect(`Bearer ${s.reader}`);
    expect(await fourth.closed).toMatchObject({
      code: 4429,
      reason: expect.stringMatching(/subject and client/),
    });
    // Over SSE too: the streams count with the sockets. Refused before its first event, a
    // stream is an answer with the error's status instead.
    const refused = await fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${s.reader}`,
        'content-type': 'application/json',
        accept: 'text/event-stream',
      },
      body: JSON.stringify({
        query: print(AccessoryEvents),
        variables: { accessoryId: s.accessoryId },
      }),
    });
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({
      errors: [{ extensions: { code: 'RATE_LIMITED' } }],
    });
    expect(subs.every((sub) => sub.errors.length === 0)).toBe(true);

    // The same user's other app is not locked out by the first one's connections.
    const otherApp = await t.token(['activities_basic'], s.subject, 'other-app');
    const other = connect(`Bearer ${otherApp}`);
    const otherSub = watch(other.client, s.accessoryId);
    const stream = await sse(t.url, otherApp, AccessoryEvents, { accessoryId: s.accessoryId });
    expect(stream.status).toBe(200);
    await waitFor(() => live().activeSubscriptions === 5, "the other app's connections");
    await createActivities(t, s.ingest, s.accessoryId, 1);
    await waitFor(() => otherSub.items.length === 1, "the other app's event");
    await waitFor(() => stream.events.some((e) => e.event === 'next'), 'the event over SSE');
    stream.abort();
    await stream.done;
  });

  it('closes the socket when the token expires', async () => {
    const s = await seed();
    const short = await signDevToken(TEST_SECRET, {
      sub: s.subject,
      clientId: 'client-1',
      scopes: ['service:activities_basic'],
      ttlSeconds: 2,
    });
    const c = connect(`Bearer ${short}`);
    watch(c.client, s.accessoryId);
    await waitFor(() => live().activeSubscriptions === 1, 'the subscription');
    const closed = await c.closed;
    expect(closed).toMatchObject({ code: 4403, reason: expect.stringMatching(/expired/) });
    await waitFor(() => live().activeSubscriptions === 0, 'the subscription to end');

    // SSE has no close code: the stream ends with an UNAUTHENTICATED error.
    const shortToo = await signDevToken(TEST_SECRET, {
      sub: s.subject,
      clientId: 'client-1',
      scopes: ['service:activities_basic'],
      ttlSeconds: 2,
    });
    const stream = await sse(t.url, shortToo, AccessoryEvents, { accessoryId: s.accessoryId });
    await stream.done;
    const last = stream.events.filter((e) => e.event === 'next').at(-1)!;
    expect(JSON.parse(last.data)).toMatchObject({
      errors: [{ extensions: { code: 'UNAUTHENTICATED' } }],
    });
    expect(stream.events.at(-1)!.event).toBe('complete');
  });

  it('cuts a slow consumer (4008) and keeps its memory bounded', async () => {
    const s = await seed();
    // A raw graphql-transport-ws client that stops reading once subscribed.
    const ws = new WebSocket(`${t.url.replace('http', 'ws')}/graphql`, 'graphql-transport-ws');
    const closed = new Promise<{ code: number; reason: string }>((resolve) =>
      ws.once('close', (code, reason) => resolve({ code, reason: String(reason) })),
    );
    await new Promise((resolve) => ws.once('open', resolve));
    ws.send(
      JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${s.reader}` } }),
    );
    await new Promise((resolve) => ws.once('message', resolve));
    ws.send(
      JSON.stringify({
        id: '1',
        type: 'subscribe',
        payload: {
          query: `subscription($a: ID!) { accessoryEvents(accessoryId: $a) { eventId eventData } }`,
          variables: { a: s.accessoryId },
        },
      }),
    );
    await waitFor(() => live().activeSubscriptions === 1, 'the subscription');
    (ws as unknown as { _socket: { pause(): void; resume(): void } })._socket.pause();

    // 200 events of 256 KiB: far more than the socket buffers and the 32-event queue hold.
    const blob = 'x'.repeat(256 * 1024);
    let maxQueued = 0;
    const heapBefore = process.memoryUsage().heapUsed;
    for (let i = 0; i < 200 && live().activeSubscriptions > 0; i++) {
      const stored = await t.app.services.db.prisma.$transaction((tx) =>
        recordEvents(tx, [
          {
            accountId: s.accountId,
            accessoryId: s.accessoryId,
            eventType: 'motion_started',
            eventData: { accessoryId: s.accessoryId, blob, i },
          },
        ]),
      );
      t.app.services.signal.committed(stored);
      maxQueued = Math.max(maxQueued, live().queuedEvents());
    }
    await waitFor(() => live().activeSubscriptions === 0, 'the slow consumer to be cut');
    expect(maxQueued).toBeLessThanOrEqual(32);
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(64 * 1024 * 1024);
    const metrics = await (await fetch(`${t.url}/metrics`)).text();
    expect(metrics).toMatch(/^clipgate_live_slow_consumers_dropped_total [1-9]/m);

    (ws as unknown as { _socket: { resume(): void } })._socket.resume();
    expect(await closed).toMatchObject({
      code: 4008,
      reason: expect.stringMatching(/resume with after/),
    });
  });
});

describe.each(backends)('live events and shutdown on %s', (backend) => {
  it('closes sockets and SSE streams when the app closes, and caps connections per instance', async () => {
    const t = await startApp(backend, { LIVE_MAX_CONNECTIONS: '2' });
    try {
      const s = await seedAccessory(t, 'closing', 'cam');
      const reader = await t.token(['activities_basic'], 'closing');
      const c = wsClient(t.url, `Bearer ${reader}`);
      const sub = watch(c.client, s.accessoryId);
      const stream = await sse(t.url, reader, AccessoryEvents, { accessoryId: s.accessoryId });
      await waitFor(() => t.app.services.live.activeSubscriptions === 2, 'the subscriptions');

      // The instance is full: a third connection is turned away at the upgrade.
      const third = new WebSocket(`${t.url.replace('http', 'ws')}/graphql`, 'graphql-transport-ws');
      const status = await new Promise<number>((resolve) =>
        third.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0)),
      );
      expect(status).toBe(503);

      const started = Date.now();
      await t.app.close();
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(await c.closed).toMatchObject({ code: 1001 });
      await stream.done;
      expect(stream.events.at(-1)!.event).toBe('complete');
      await sub.ended;
      expect(t.app.services.live.activeSubscriptions).toBe(0);
      await c.dispose();
    } finally {
      await t.close();
    }
  });
});

describe('live events keep-alive', () => {
  it('pings sockets and drops one that stops answering', async () => {
    const t = await startApp('pglite', { LIVE_KEEPALIVE_MS: '150' });
    try {
      const reader = await t.token(['activities_basic'], 'pinged');
      const url = `${t.url.replace('http', 'ws')}/graphql`;
      const open = async (autoPong: boolean) => {
        const ws = new WebSocket(url, 'graphql-transport-ws', { autoPong });
        let pings = 0;
        ws.on('ping', () => pings++);
        const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
        await new Promise((resolve) => ws.once('open', resolve));
        ws.send(
          JSON.stringify({
            type: 'connection_init',
            payload: { authorization: `Bearer ${reader}` },
          }),
        );
        return { ws, closed, pings: () => pings };
      };
      const alive = await open(true);
      const silent = await open(false);
      // Dropped without a close frame after a missed pong.
      expect(await silent.closed).toBe(1006);
      await sleep(500);
      expect(alive.pings()).toBeGreaterThan(2);
      expect(alive.ws.readyState).toBe(WebSocket.OPEN);
      alive.ws.close();
      await alive.closed;
    } finally {
      await t.close();
    }
  });
});
