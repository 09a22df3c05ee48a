import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { backends, startApp, type TestApp } from '../helpers/app.ts';
import { gql, rest } from '../helpers/client.ts';
import { CreateActivity, ok, seedAccessory } from '../helpers/fixtures.ts';
import {
  AccountEvents,
  accountEvent,
  subscribe,
  waitFor,
  wsClient,
} from '../events/live-helpers.ts';
import {
  accept,
  DeleteAccount,
  NotificationDeliveries,
  register,
  SendTestNotification,
  sleep,
  startReceiver,
  type Receiver,
} from './helpers.ts';

const webhookEnv = {
  WEBHOOK_ALLOW_HTTP: 'true',
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
  WEBHOOK_RETRY_DELAYS_MS: '10',
};

const operational = ['receiver_disabled', 'receiver_enabled', 'delivery_exhausted'];

const failing = (_r: unknown, res: { writeHead(status: number): { end(): void } }) =>
  res.writeHead(500).end();

describe.each(backends)('operational events on %s', (backend) => {
  let t: TestApp;
  const receivers: Receiver[] = [];
  let subjects = 0;

  beforeAll(async () => {
    t = await startApp(backend, webhookEnv);
  });
  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.close()));
    await t?.close();
  });

  /**
   * An account with a `backend` client whose receiver answers 500 to everything, listing
   * `backendTypes`, a `monitor` client whose receiver lists the operational events (and has a
   * filter, which they pass whatever it says), and a live subscriber of the operational events.
   */
  async function setup(backendTypes: string[], monitorRespond = accept) {
    const subject = `ops-${++subjects}`;
    const seeded = await seedAccessory(t, subject, `cam-${subjects}`);
    const failingRx = await startReceiver(`failing-key-${subject}-0123`, failing);
    const monitorRx = await startReceiver(`monitor-key-${subject}-0123`, monitorRespond);
    receivers.push(failingRx, monitorRx);
    const backendToken = await t.token(['notifications'], subject, 'backend');
    const monitorToken = await t.token(['notifications'], subject, 'monitor');
    await register(t, backendToken, {
      url: failingRx.url,
      authKey: `failing-key-${subject}-0123`,
      eventTypes: backendTypes,
    });
    const monitor = await register(t, monitorToken, {
      url: monitorRx.url,
      authKey: `monitor-key-${subject}-0123`,
      eventTypes: operational,
      filter: 'relevanceLevel >= 2',
    });
    expect(monitor.eventTypes).toEqual(operational);
    const reader = await t.token(['activities_basic'], subject);
    const ws = wsClient(t.url, `Bearer ${reader}`);
    const subscribed = t.app.services.live.activeSubscriptions;
    const live = subscribe(
      ws.client,
      AccountEvents,
      { accountId: seeded.accountId, eventTypes: operational as never },
      accountEvent,
    );
    await waitFor(
      () => t.app.services.live.activeSubscriptions > subscribed,
      'the subscription to start',
    );
    return { ...seeded, failingRx, monitorRx, backendToken, monitorToken, ws, live };
  }

  /** The states of the deliveries of an event. */
  async function states(eventId: string): Promise<string[]> {
    const { rows } = await t.app.services.db.pool.query<{ state: string }>(
      'SELECT state FROM deliveries WHERE event_id = $1 ORDER BY id',
      [eventId],
    );
    return rows.map((r) => r.state);
  }

  /** The account's recorded events of a type. */
  async function recorded(accountId: string, eventType: string) {
    const { rows } = await t.app.services.db.pool.query<{ id: string; event_data: any }>(
      'SELECT id::text AS id, event_data FROM events WHERE account_id = $1 AND event_type = $2 ORDER BY id',
      [accountId, eventType],
    );
    return rows;
  }

  it('records delivery_exhausted with the discard: subscribers and a receiver listing it get it', async () => {
    const s = await setup(['activity_created']);
    const { createActivity } = await ok(t, s.ingest, CreateActivity, {
      accessoryId: s.accessoryId,
      input: { relevanceLevel: 0 },
    });
    await waitFor(() => s.live.items.length === 1, 'delivery_exhausted live');
    const [created] = await recorded(s.accountId, 'activity_created');
    expect(created!.event_data.activityId).toBe(createActivity.activityId);
    const deliveries = await gql(t.url, s.backendToken, NotificationDeliveries, {
      accountId: s.accountId,
    });
    const discarded = deliveries.data!.notificationDeliveries!.edges[0]!.node;
    expect(discarded).toMatchObject({ status: 'discarded', attemptCount: 2 });
    const event = s.live.items[0]!;
    expect(event).toMatchObject({
      eventType: 'delivery_exhausted',
      accessoryId: null,
      eventData: {
        deliveryId: discarded.id,
        webhookId: created!.id,
        eventId: created!.id,
        eventType: 'activity_created',
        clientId: 'backend',
        url: s.failingRx.url,
        attempts: 2,
        lastStatus: 500,
        lastError: null,
      },
    });
    // The monitor's filter judges activities only: the operational events pass it.
    await s.monitorRx.waitFor(() => s.monitorRx.receipts.length === 1, 'the monitor notified');
    const receipt = s.monitorRx.receipts[0]!;
    expect(receipt.webhookId).toBe(event.eventId);
    expect(receipt.body).toEqual({
      accountId: s.accountId,
      eventType: 'delivery_exhausted',
      eventData: event.eventData,
    });

    // A test notification exhausted too: its webhook-id, no event id.
    const test = await gql(t.url, s.backendToken, SendTestNotification, {
      accountId: s.accountId,
    });
    await waitFor(() => s.live.items.length === 2, 'the test notification exhausted');
    expect(s.live.items[1]!.eventData).toMatchObject({
      deliveryId: test.data!.sendTestNotification.id,
      webhookId: `test_${test.data!.sendTestNotification.id}`,
      eventId: null,
      eventType: 'test_notification',
    });
    await s.ws.dispose();
  });

  it('records no delivery_exhausted for an exhausted delivery_exhausted notification', async () => {
    // Both receivers fail everything and list delivery_exhausted: each exhausted notification
    // of a delivery_exhausted event would otherwise queue two more, forever.
    const s = await setup(['activity_created', 'delivery_exhausted'], failing);
    await ok(t, s.ingest, CreateActivity, { accessoryId: s.accessoryId, input: {} });
    await waitFor(() => s.live.items.length === 1, 'delivery_exhausted live');
    const exhaustedId = s.live.items[0]!.eventId;
    // The event's two notifications fail twice each, and are discarded.
    await s.failingRx.waitFor(
      () => s.failingRx.byId(exhaustedId).length === 2,
      "the backend's attempts",
    );
    await s.monitorRx.waitFor(
      () => s.monitorRx.byId(exhaustedId).length === 2,
      "the monitor's attempts",
    );
    await vi.waitFor(
      async () => expect(await states(exhaustedId)).toEqual(['discarded', 'discarded']),
      {
        timeout: 15_000,
        interval: 20,
      },
    );
    await sleep(500);
    expect(s.live.items).toHaveLength(1);
    expect(await recorded(s.accountId, 'delivery_exhausted')).toHaveLength(1);
    await s.ws.dispose();
  });

  it('records no delivery_exhausted for a deleted account', async () => {
    const s = await setup(['activity_created']);
    const admin = await t.token(['admin'], 'an-admin');
    await ok(t, admin, DeleteAccount, { accountId: s.accountId });
    const [deleted] = await recorded(s.accountId, 'account_deleted');
    // Sent to every receiver: the failing one discards it.
    await vi.waitFor(
      async () => expect((await states(deleted!.id)).sort()).toEqual(['delivered', 'discarded']),
      { timeout: 15_000, interval: 20 },
    );
    await sleep(300);
    expect(await recorded(s.accountId, 'delivery_exhausted')).toEqual([]);
    await s.ws.dispose();
  });

  it('records receiver_enabled when a disabled receiver is registered again', async () => {
    const s = await setup(['activity_created']);
    // Disabled as receiver health disables (test/notifications/health.test.ts lets the hours pass).
    await t.app.services.db.pool.query(
      `UPDATE notification_registrations SET disabled_at = now(), disabled_reason = 'test'
        WHERE account_id = $1 AND client_id = 'backend'`,
      [s.accountId],
    );
    const [{ disabled_at: disabledAt }] = (
      await t.app.services.db.pool.query<{ disabled_at: Date }>(
        `SELECT disabled_at FROM notification_registrations WHERE account_id = $1 AND client_id = 'backend'`,
        [s.accountId],
      )
    ).rows as [{ disabled_at: Date }];
    const again = await register(t, s.backendToken, {
      url: s.failingRx.url,
      authKey: `failing-key-ops-${subjects}-0123`,
      eventTypes: ['activity_created'],
    });
    expect(again.state).toBe('active');
    await waitFor(() => s.live.items.length === 1, 'receiver_enabled live');
    expect(s.live.items[0]).toMatchObject({
      eventType: 'receiver_enabled',
      accessoryId: null,
      eventData: {
        clientId: 'backend',
        url: s.failingRx.url,
        disabledAt: disabledAt.toISOString(),
        cause: 'register',
      },
    });
    await s.monitorRx.waitFor(
      () => s.monitorRx.receipts.some((r) => r.body?.eventType === 'receiver_enabled'),
      'the monitor notified',
    );
    // Registering an active one again tells nobody.
    await register(t, s.backendToken, {
      url: s.failingRx.url,
      authKey: `failing-key-ops-${subjects}-0123`,
      eventTypes: ['activity_created'],
    });
    await sleep(300);
    expect(s.live.items).toHaveLength(1);
    await s.ws.dispose();
  });

  it('lets any client with the notifications scope register for the operational events', async () => {
    const seeded = await seedAccessory(t, `ops-${++subjects}`, 'cam-x');
    const token = await t.token(['notifications'], `ops-${subjects}`);
    const res = await rest(t.url, token, 'PUT', '/api/accounts/self/notifications', {
      url: 'http://127.0.0.1:9/',
      authKey: 'a-long-enough-key-0123',
      eventTypes: ['receiver_disabled'],
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      accountId: seeded.accountId,
      eventTypes: ['receiver_disabled'],
    });
  });
});
