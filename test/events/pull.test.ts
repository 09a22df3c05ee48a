import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends, startApp, type TestApp } from '../helpers/app.ts';
import { checkReceived, liveEventProblems } from '../helpers/catalog.ts';
import { rest } from '../helpers/client.ts';
import { seedAccessory } from '../helpers/fixtures.ts';
import { register, startReceiver, type Receiver } from '../notifications/helpers.ts';
import {
  accountEvent,
  AccountEvents,
  createActivities,
  redisUrl,
  subscribe,
  waitFor,
  wsClient,
} from './live-helpers.ts';

interface Page {
  events: { eventId: string; eventType: string; eventData: any; occurredAt: string }[];
  next: string | null;
  hasMore: boolean;
}

/** One pull; its events are checked against the event catalog. */
async function pull(
  t: TestApp,
  token: string,
  query: string,
  accountId = 'self',
): Promise<{ status: number; body: any }> {
  const res = await rest(t.url, token, 'GET', `/api/accounts/${accountId}/events${query}`);
  for (const event of (res.body as Partial<Page>)?.events ?? []) {
    checkReceived('pulled event', event, liveEventProblems);
  }
  return res;
}

/** Every event after `after`, page by page of `limit`. */
async function pullAll(t: TestApp, token: string, limit: number, after?: string) {
  const events: Page['events'] = [];
  let next = after;
  for (;;) {
    const { status, body } = await pull(
      t,
      token,
      `?limit=${limit}${next === undefined ? '' : `&after=${next}`}`,
    );
    expect(status).toBe(200);
    const page = body as Page;
    expect(page.events.length).toBeLessThanOrEqual(limit);
    events.push(...page.events);
    if (page.next !== null) next = page.next;
    if (!page.hasMore) return { events, next };
    expect(page.events).toHaveLength(limit);
  }
}

/** The account's logged event ids, in id order. */
async function loggedAccountIds(t: TestApp, accountId: string): Promise<string[]> {
  const { rows } = await t.app.services.db.pool.query<{ id: string }>(
    'SELECT id::text AS id FROM events WHERE account_id = $1 ORDER BY events.id',
    [accountId],
  );
  return rows.map((r) => r.id);
}

describe.each(backends)('pulling events on %s', (backend) => {
  let t: TestApp;
  const receivers: Receiver[] = [];
  let subjects = 0;

  beforeAll(async () => {
    t = await startApp(backend, {
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      // Admission on (the suite turns rate limits off): one request of a caller at a time.
      RATE_LIMIT_RPS: '1000',
      RATE_LIMIT_BURST: '1000',
      RATE_LIMIT_CONCURRENCY: '1',
      LIVE_MAX_CONNECTIONS_PER_SUBJECT: '2',
    });
  });
  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.close()));
    await t?.close();
  });

  async function setup() {
    const subject = `puller-${++subjects}`;
    const seeded = await seedAccessory(t, subject, `cam-${subjects}`);
    const token = await t.token(['activities_basic'], subject);
    return { ...seeded, subject, token };
  }

  it('pages through every event once, in order, with the ids webhooks and live events carry', async () => {
    const s = await setup();
    const authKey = `pull-key-${s.subject}-0123`;
    const rx = await startReceiver(authKey);
    receivers.push(rx);
    const registrar = await t.token(['notifications'], s.subject);
    await register(t, registrar, {
      url: rx.url,
      authKey,
      eventTypes: ['activity_created', 'activity_finished'],
    });
    const ws = wsClient(t.url, `Bearer ${s.token}`);
    const live = subscribe(ws.client, AccountEvents, { accountId: s.accountId }, accountEvent);
    await waitFor(() => t.app.services.live.activeSubscriptions === 1, 'the subscription');

    await createActivities(t, s.ingest, s.accessoryId, 7);
    const logged = await loggedAccountIds(t, s.accountId);
    expect(logged).toHaveLength(13); // 7 created, 6 finished by the next one

    const { events, next } = await pullAll(t, s.token, 3);
    expect(events.map((e) => e.eventId)).toEqual(logged);
    expect(next).toBe(logged.at(-1));
    expect(events[0]).toMatchObject({
      eventType: 'activity_created',
      accountId: s.accountId,
      accessoryId: s.accessoryId,
      eventData: { accessoryId: s.accessoryId, sequence: 1 },
    });
    // The same ids as the live events and the webhooks' webhook-ids.
    await waitFor(() => live.items.length === logged.length, 'the live events');
    expect(live.items.map((e) => e.eventId)).toEqual(logged);
    await rx.waitFor(() => rx.receipts.length === logged.length, 'the notifications');
    expect(rx.receipts.map((r) => r.webhookId).sort()).toEqual([...logged].sort());
    for (const receipt of rx.receipts) {
      const pulled = events.find((e) => e.eventId === receipt.webhookId)!;
      expect(receipt.body.eventData).toEqual(pulled.eventData);
    }

    // From the middle; at the end, an empty page that keeps the cursor.
    const rest4 = await pullAll(t, s.token, 100, logged[8]);
    expect(rest4.events.map((e) => e.eventId)).toEqual(logged.slice(9));
    const end = await pull(t, s.token, `?after=${logged.at(-1)}`);
    expect(end.body).toEqual({ events: [], next: logged.at(-1), hasMore: false });
    await ws.dispose();
  });

  it('answers an account without events with no events and no cursor', async () => {
    const s = await setup();
    const res = await pull(t, s.token, '');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ events: [], next: null, hasMore: false });
  });

  it('refuses every parameter out of its range with a 400 naming it', async () => {
    const s = await setup();
    await createActivities(t, s.ingest, s.accessoryId, 1);
    const [own] = await loggedAccountIds(t, s.accountId);
    const other = await setup();
    await createActivities(t, other.ingest, other.accessoryId, 1);
    const [foreign] = await loggedAccountIds(t, other.accountId);
    const cases: [string, string][] = [
      ['?after=abc', 'after'],
      ['?after=0', 'after'],
      ['?after=007', 'after'],
      ['?after=99999999999999999999', 'after'],
      [`?after=${BigInt(own!) + 1000n}`, 'after'],
      [`?after=${foreign}`, 'after'],
      ['?limit=0', 'limit'],
      ['?limit=1001', 'limit'],
      ['?limit=1.5', 'limit'],
      ['?limit=', 'limit'],
      ['?limit=ten', 'limit'],
      ['?wait=-1', 'wait'],
      ['?wait=31', 'wait'],
      ['?wait=0.5', 'wait'],
      ['?wait=1e1', 'wait'],
      ['?limit=5&limit=6', 'limit'],
      ['?cursor=1', 'cursor'],
    ];
    for (const [query, field] of cases) {
      const res = await pull(t, s.token, query);
      expect(res.status, query).toBe(400);
      expect(res.body.error, query).toMatchObject({
        code: 'INVALID_ARGUMENT',
        details: { field },
      });
    }
    expect((await pull(t, s.token, `?after=${own}&limit=1000&wait=0`)).status).toBe(200);
    expect((await pull(t, s.token, '', other.accountId)).status).toBe(404);
    expect((await pull(t, s.token, '', 'not-an-id')).status).toBe(400);
    const notifications = await t.token(['notifications'], s.subject);
    const denied = await pull(t, notifications, '');
    expect(denied.status).toBe(403);
    expect((await pull(t, '', '')).status).toBe(401);
  });

  it('waits for the next event, without holding the caller back meanwhile', async () => {
    const s = await setup();
    await createActivities(t, s.ingest, s.accessoryId, 1);
    const [first] = await loggedAccountIds(t, s.accountId);
    const order: string[] = [];
    const polling = pull(t, s.token, `?after=${first}&wait=20`).then((res) => {
      order.push('poll');
      return res;
    });
    await waitFor(() => t.app.services.live.activeSubscriptions === 1, 'the long poll waiting');
    // RATE_LIMIT_CONCURRENCY=1: the poll holds no share while it waits.
    const account = await rest(t.url, s.token, 'GET', '/api/accounts/self');
    expect(account.status).toBe(200);
    order.push('other request');
    await createActivities(t, s.ingest, s.accessoryId, 1);
    const res = await polling;
    expect(order).toEqual(['other request', 'poll']);
    // The new activity finished the first one: both events, committed together.
    const [, finished, created] = await loggedAccountIds(t, s.accountId);
    expect(res.body).toEqual({
      events: [
        expect.objectContaining({ eventId: finished, eventType: 'activity_finished' }),
        expect.objectContaining({ eventId: created, eventType: 'activity_created' }),
      ],
      next: created,
      hasMore: false,
    });
    expect(t.app.services.live.activeSubscriptions).toBe(0);
  });

  it('counts a waiting pull as a live connection, and ends its wait when the client goes away', async () => {
    const s = await setup();
    const path = `${t.url}/api/accounts/self/events?wait=20`;
    const headers = { authorization: `Bearer ${s.token}` };
    const aborts = [new AbortController(), new AbortController()];
    const waiting = aborts.map((a) =>
      fetch(path, { headers, signal: a.signal }).catch((err: Error) => err.name),
    );
    await waitFor(() => t.app.services.live.activeSubscriptions === 2, 'two pulls waiting');
    expect(t.app.services.liveConnections.total).toBe(2);
    // LIVE_MAX_CONNECTIONS_PER_SUBJECT=2: a third waiting pull of the same subject and client.
    const third = await pull(t, s.token, '?wait=20');
    expect(third.status).toBe(429);
    expect(third.body.error).toMatchObject({
      code: 'RATE_LIMITED',
      details: { limit: 'LIVE_MAX_CONNECTIONS_PER_SUBJECT' },
    });
    // Without waiting it is answered.
    expect((await pull(t, s.token, '')).status).toBe(200);
    for (const a of aborts) a.abort();
    expect(await Promise.all(waiting)).toEqual(['AbortError', 'AbortError']);
    await waitFor(() => t.app.services.live.activeSubscriptions === 0, 'the waits to end');
    expect(t.app.services.liveConnections.total).toBe(0);
  });

  it('answers an empty page once the wait is over', async () => {
    const s = await setup();
    await createActivities(t, s.ingest, s.accessoryId, 1);
    const [first] = await loggedAccountIds(t, s.accountId);
    const started = performance.now();
    const res = await pull(t, s.token, `?after=${first}&wait=1`);
    expect(performance.now() - started).toBeGreaterThanOrEqual(950);
    expect(res.body).toEqual({ events: [], next: first, hasMore: false });
    expect(t.app.services.live.activeSubscriptions).toBe(0);
  });
});

describe.each(backends)('a long poll while the service stops on %s', (backend) => {
  it('answers what it has at once', async () => {
    const t = await startApp(backend);
    const s = await seedAccessory(t, 'stopping', 'cam');
    const token = await t.token(['activities_basic'], 'stopping');
    const polling = pull(t, token, '?wait=30');
    await waitFor(() => t.app.services.live.activeSubscriptions === 1, 'the long poll waiting');
    const closed = t.close().then(() => 'closed');
    // Well before the 30 seconds of the poll (vitest's budget for a test is 30 s).
    const res = await polling;
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ events: [], next: null, hasMore: false });
    expect(await closed).toBe('closed');
    expect(s.accountId).toBeTruthy();
  });
});

// Two instances on one PostgreSQL database and one Redis: CI sets both.
const shared = backends.includes('postgres') && redisUrl !== undefined;

describe.runIf(shared)('a long poll across two instances (PostgreSQL + Redis)', () => {
  let a: TestApp;
  let b: TestApp;

  beforeAll(async () => {
    a = await startApp('postgres', { REDIS_URL: redisUrl! });
    // B would find the event within a second without Redis too (the live core's check of the
    // log); a long check interval leaves the wake-up to Redis.
    b = await startApp('postgres', {
      REDIS_URL: redisUrl!,
      DATABASE_URL: a.config.databaseUrl!,
      LIVE_CHECK_MS: '60000',
    });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('an event committed on A wakes a long poll on B', async () => {
    const s = await seedAccessory(a, 'across', 'cam');
    const token = await a.token(['activities_basic'], 'across');
    const polling = pull(b, token, '?wait=25');
    await waitFor(() => b.app.services.live.activeSubscriptions === 1, 'the long poll on B');
    const started = performance.now();
    await createActivities(a, s.ingest, s.accessoryId, 1);
    const res = await polling;
    const [created] = await loggedAccountIds(a, s.accountId);
    expect(res.body).toEqual({
      events: [expect.objectContaining({ eventId: created, eventType: 'activity_created' })],
      next: created,
      hasMore: false,
    });
    // Woken, not timed out.
    expect(performance.now() - started).toBeLessThan(20_000);
  });
});
