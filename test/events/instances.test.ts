import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { backends, startApp, type TestApp } from '../helpers/app.ts';
import { seedAccessory } from '../helpers/fixtures.ts';
import {
  accessorySubscriber,
  accessoryEvent,
  AccessoryEvents,
  accountEvent,
  AccountEvents,
  createActivities,
  loggedIds,
  redisVariants,
  subscribe,
  type RedisVariant,
  waitFor,
  wsClient,
  type WsClient,
} from './live-helpers.ts';

// Two instances of the service on one PostgreSQL database and one Redis (a server, a cluster):
// CI sets them all.
const shared = backends.includes('postgres') ? redisVariants : [];
if (shared.length === 0) {
  console.warn('live events across instances need TEST_DATABASE_URL and TEST_REDIS_URL');
}

// Without them the suite is there, skipped (a file without any suite fails).
describe
  .skipIf(shared.length === 0)
  .each<Pick<RedisVariant, 'name' | 'env'>>(
    shared.length > 0 ? shared : [{ name: 'redis', env: {} }],
  )('live events across two instances (PostgreSQL + $name)', ({ env }) => {
  let a: TestApp;
  let b: TestApp;
  const clients: WsClient[] = [];

  beforeAll(async () => {
    a = await startApp('postgres', env);
    b = await startApp('postgres', { ...env, DATABASE_URL: a.config.databaseUrl! });
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.dispose()));
    for (const t of [a, b]) {
      await waitFor(() => t.app.services.live.activeSubscriptions === 0, 'subscriptions to end');
    }
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('a subscriber on B receives what A commits, in commit order', async () => {
    const s = await seedAccessory(a, 'multi-1', 'cam');
    const reader = await a.token(['activities_basic'], 'multi-1');
    const { ws: c, sub } = accessorySubscriber(b.url, reader, s.accessoryId);
    clients.push(c);
    await waitFor(() => b.app.services.live.activeSubscriptions === 1, 'the subscription on B');

    await createActivities(a, s.ingest, s.accessoryId, 5);
    const logged = await loggedIds(a, s.accessoryId);
    await waitFor(() => sub.items.length >= logged.length, 'the events on B');
    expect(sub.errors).toEqual([]);
    expect(sub.items.map((e) => e.eventId)).toEqual(logged);
    expect(a.app.services.live.activeSubscriptions).toBe(0);
  });

  it("keeps an account's stream in id order while both instances commit", async () => {
    const one = await seedAccessory(a, 'multi-2', 'cam-a');
    const two = await seedAccessory(b, 'multi-2', 'cam-b');
    const reader = await a.token(['activities_basic'], 'multi-2');
    const onA = wsClient(a.url, `Bearer ${reader}`);
    const onB = wsClient(b.url, `Bearer ${reader}`);
    clients.push(onA, onB);
    const subA = subscribe(onA.client, AccountEvents, { accountId: 'self' }, accountEvent);
    const subB = subscribe(onB.client, AccountEvents, { accountId: one.accountId }, accountEvent);
    await waitFor(() => a.app.services.live.activeSubscriptions === 1, 'the subscription on A');
    await waitFor(() => b.app.services.live.activeSubscriptions === 1, 'the subscription on B');

    // A commits on one accessory while B commits on the other, at the same time.
    await Promise.all([
      createActivities(a, one.ingest, one.accessoryId, 8),
      createActivities(b, two.ingest, two.accessoryId, 8),
    ]);
    const { rows } = await a.app.services.db.pool.query<{ id: string }>(
      'SELECT id::text AS id FROM events WHERE account_id = $1 ORDER BY events.id',
      [one.accountId],
    );
    expect(rows.length).toBe(30); // 8 created + 7 finished, twice
    for (const sub of [subA, subB]) {
      await waitFor(() => sub.items.length >= rows.length, 'every event');
      expect(sub.errors).toEqual([]);
      expect(sub.items.map((e) => e.eventId)).toEqual(rows.map((r) => r.id));
    }
  });

  it('resumes on B after what A committed meanwhile', async () => {
    const s = await seedAccessory(a, 'multi-3', 'cam');
    const reader = await a.token(['activities_basic'], 'multi-3');
    await createActivities(a, s.ingest, s.accessoryId, 2);
    const [first] = await loggedIds(a, s.accessoryId);
    const c = wsClient(b.url, `Bearer ${reader}`);
    clients.push(c);
    const sub = subscribe(
      c.client,
      AccessoryEvents,
      { accessoryId: s.accessoryId, after: first! },
      accessoryEvent,
    );
    await waitFor(() => b.app.services.live.activeSubscriptions >= 1, 'the subscription on B');
    await createActivities(a, s.ingest, s.accessoryId, 2);
    const logged = await loggedIds(a, s.accessoryId, first);
    await waitFor(() => sub.items.length >= logged.length, 'replayed and live events');
    expect(sub.items.map((e) => e.eventId)).toEqual(logged);
  });
});
