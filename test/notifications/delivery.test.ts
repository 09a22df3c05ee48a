import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { queuedOrigins } from '../../src/events/outbox.ts';
import type { StoredEvent } from '../../src/events/types.ts';
import { purgeDeliveryLog } from '../../src/notifications/delivery/queue/purge.ts';
import { createSecretBox, secretContext } from '../../src/notifications/secrets.ts';
import { backends, startApp, type TestApp } from '../helpers/app.ts';
import { gql, rest } from '../helpers/client.ts';
import {
  AssociateAccessory,
  CreateActivity,
  FinishActivity,
  ok,
  seedAccessory,
} from '../helpers/fixtures.ts';
import {
  DeleteAccount,
  NotificationDeliveries,
  RedeliverNotification,
  register,
  queuedDeliveries,
  ReportMotion,
  SendTestNotification,
  sleep,
  startReceiver,
  UpdateActivity,
  type Receiver,
  type Responder,
} from './helpers.ts';

const BUDGET_MS = 1000;

describe.each(backends)('notification delivery on %s', (backend) => {
  let t: TestApp;
  let receivers: Receiver[] = [];
  let subjects = 0;

  beforeAll(async () => {
    t = await startApp(backend, {
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_TIMEOUT_MS: String(BUDGET_MS),
      WEBHOOK_RETRY_DELAYS_MS: '50,100',
    });
  });
  afterEach(async () => {
    await Promise.all(receivers.map((r) => r.close()));
    receivers = [];
  });
  afterAll(() => t?.close());

  async function receiver(authKey: string, respond?: Responder) {
    const r = await startReceiver(authKey, respond);
    receivers.push(r);
    return r;
  }

  /** A fresh account with an accessory, and a client registered to a fresh receiver. */
  async function setup(options: {
    eventTypes: string[];
    userData?: unknown;
    respond?: Responder;
    scopes?: string[];
    clientId?: string;
  }) {
    const subject = `delivery-${++subjects}`;
    const seeded = await seedAccessory(t, subject, `cam-${subjects}`);
    const authKey = `key-of-${subject}-0123456789`;
    const rx = await receiver(authKey, options.respond);
    const clientId = options.clientId ?? 'backend';
    const token = await t.token(options.scopes ?? ['notifications'], subject, clientId);
    const registration = await register(t, token, {
      url: rx.url,
      authKey,
      eventTypes: options.eventTypes,
      ...(options.userData !== undefined && { userData: options.userData }),
    });
    return { ...seeded, subject, authKey, rx, token, registration };
  }

  /** Another client of the subject's account, registered to a receiver of its own. */
  async function secondClient(subject: string, clientId: string, eventTypes: string[]) {
    const authKey = `${clientId}-key-0123456789`;
    const rx = await receiver(authKey);
    const token = await t.token(['notifications'], subject, clientId);
    await register(t, token, { url: rx.url, authKey, eventTypes });
    return rx;
  }

  const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000).toISOString();

  async function deliveryLog(token: string, accountId: string, first = 20, after?: string) {
    const res = await gql(t.url, token, NotificationDeliveries, { accountId, first, after });
    expect(res.errors).toBeUndefined();
    return res.data!.notificationDeliveries!;
  }

  it('delivers activity events signed in both schemes, with the contract body and headers', async () => {
    const s = await setup({
      eventTypes: ['activity_created', 'activity_updated', 'activity_finished'],
      userData: { customer: 'c-17', tags: ['a'] },
    });
    const before = Math.floor(Date.now() / 1000);
    const { createActivity } = await ok(t, s.ingest, CreateActivity, {
      accessoryId: s.accessoryId,
      input: { createdAt: minutesAgo(2), relevanceLevel: 1, motionZones: ['z1'] },
    });
    const { activityId } = createActivity;
    await ok(t, s.ingest, UpdateActivity, {
      accessoryId: s.accessoryId,
      activityId,
      input: { relevanceLevel: 3 },
    });
    await ok(t, s.ingest, FinishActivity, {
      accessoryId: s.accessoryId,
      activityId,
      endTime: minutesAgo(1),
    });
    await s.rx.waitFor(() => s.rx.receipts.length >= 3, 'three notifications');

    const { rows: events } = await t.app.services.db.pool.query<{ id: string; event_type: string }>(
      'SELECT id::text AS id, event_type FROM events WHERE account_id = $1 ORDER BY id',
      [s.accountId],
    );
    expect(events.map((e) => e.event_type)).toEqual([
      'activity_created',
      'activity_updated',
      'activity_finished',
    ]);
    const reader = await t.token(['activities_basic'], s.subject);
    // The activity as GET by id returns it, without the per-caller media URLs.
    const finished = (
      await rest(t.url, reader, 'GET', `/api/accessories/${s.accessoryId}/activities/${activityId}`)
    ).body;
    delete finished.media;

    for (const event of events) {
      const [receipt, ...more] = s.rx.byId(event.id);
      expect(more).toEqual([]);
      expect(receipt, event.event_type).toBeDefined();
      expect(receipt!.standard).toBe(true);
      expect(receipt!.vendor).toBe(true);
      expect(receipt!.headers).toMatchObject({
        'content-type': 'application/json',
        'content-length': String(receipt!.raw.length),
        'user-agent': expect.stringMatching(/clipgate/),
        'x-vendor-verify': expect.any(String),
        'webhook-signature': expect.stringMatching(/^v1,/),
      });
      const timestamp = Number(receipt!.headers['webhook-timestamp']);
      expect(timestamp).toBeGreaterThanOrEqual(before - 1);
      expect(timestamp).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + 1);
      expect(Object.keys(receipt!.body)).toEqual([
        'accountId',
        'eventType',
        'eventData',
        'userData',
      ]);
      expect(receipt!.body).toMatchObject({
        accountId: s.accountId,
        eventType: event.event_type,
        userData: { customer: 'c-17', tags: ['a'] },
      });
    }
    const finishedReceipt = s.rx.byId(events[2]!.id)[0]!;
    // Plus the order of the activity's changes: sequence from 1, and when each was written.
    expect(finishedReceipt.body.eventData).toEqual({
      ...finished,
      sequence: 3,
      occurredAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    const payloads = events.map((e) => s.rx.byId(e.id)[0]!.body.eventData);
    expect(payloads.map((data) => data.sequence)).toEqual([1, 2, 3]);
    const times = payloads.map((data) => Date.parse(String(data.occurredAt)));
    expect(times).toEqual([...times].sort((x, y) => x - y));
    expect(s.rx.byId(events[1]!.id)[0]!.body.eventData).toMatchObject({
      activityId,
      accessoryId: s.accessoryId,
      relevanceLevel: 3,
      inProgress: true,
      endTime: null,
      motionZones: ['z1'],
    });
    // A tampered body fails verification, so the checks above can fail.
    const { verifyNotification } = await import('../../src/notifications/receiver.ts');
    const tampered = Buffer.from(finishedReceipt.raw.toString().replace('c-17', 'c-18'));
    expect(verifyNotification(tampered, finishedReceipt.headers, s.authKey).ok).toBe(false);
  });

  it('sends only the registered types, and leaves userData out when none was registered', async () => {
    const s = await setup({ eventTypes: ['activity_created'] });
    for (const m of [5, 3]) {
      await ok(t, s.ingest, CreateActivity, {
        accessoryId: s.accessoryId,
        input: { createdAt: minutesAgo(m) },
      });
    }
    // The second activity finished the first: three events, two of them registered. Their
    // deliveries were queued in the transactions that committed them.
    const { rows } = await t.app.services.db.pool.query(
      'SELECT event_type FROM events WHERE account_id = $1 ORDER BY id',
      [s.accountId],
    );
    expect(rows.map((r) => r.event_type)).toEqual([
      'activity_created',
      'activity_finished',
      'activity_created',
    ]);
    expect((await queuedDeliveries(t, s.accountId)).map((d) => d.event_type)).toEqual([
      'activity_created',
      'activity_created',
    ]);
    await s.rx.waitFor(() => s.rx.receipts.length >= 2, 'two notifications');
    await sleep(300);
    expect(s.rx.receipts.map((r) => r.body.eventType)).toEqual([
      'activity_created',
      'activity_created',
    ]);
    for (const r of s.rx.receipts) expect(Object.keys(r.body)).not.toContain('userData');
  });

  it('reports motion: motion_started / motion_ended with {accessoryId, motionZones, timestamp}', async () => {
    const s = await setup({
      eventTypes: ['motion_started', 'motion_ended'],
      scopes: ['notifications_motion'],
    });
    const at = '2026-11-21T10:00:00.250Z';
    const started = await ok(t, s.ingest, ReportMotion, {
      accessoryId: s.accessoryId,
      state: 'started',
      at,
      motionZones: ['z1', 'zR'],
    });
    expect(started.reportMotion).toMatchObject({
      eventType: 'motion_started',
      accessoryId: s.accessoryId,
      motionZones: ['z1', 'zR'],
      timestamp: at,
    });
    await ok(t, s.ingest, ReportMotion, { accessoryId: s.accessoryId, state: 'ended' });
    await s.rx.waitFor(() => s.rx.receipts.length >= 2, 'two motion notifications');
    const [first] = s.rx.byId(started.reportMotion.eventId);
    expect(first!.body).toEqual({
      accountId: s.accountId,
      eventType: 'motion_started',
      eventData: { accessoryId: s.accessoryId, motionZones: ['z1', 'zR'], timestamp: at },
    });
    const ended = s.rx.receipts.find((r) => r.body.eventType === 'motion_ended')!;
    expect(ended.body.eventData).toMatchObject({ accessoryId: s.accessoryId, motionZones: [] });
    expect(Date.now() - Date.parse(ended.body.eventData.timestamp)).toBeLessThan(60_000);
    // Motion touches no activity.
    const { rows } = await t.app.services.db.pool.query(
      'SELECT count(*)::int AS n FROM activities WHERE accessory_id = $1',
      [s.accessoryId],
    );
    expect(rows[0].n).toBe(0);

    const badZone = await gql(t.url, s.ingest, ReportMotion, {
      accessoryId: s.accessoryId,
      state: 'started',
      motionZones: ['z9'],
    });
    expect(badZone.errors?.[0]?.extensions).toMatchObject({
      code: 'INVALID_ARGUMENT',
      details: { field: 'motionZones' },
    });
    const unknown = await gql(t.url, s.ingest, ReportMotion, {
      accessoryId: crypto.randomUUID(),
      state: 'ended',
    });
    expect(unknown.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    const notIngest = await gql(t.url, s.token, ReportMotion, {
      accessoryId: s.accessoryId,
      state: 'ended',
    });
    expect(notIngest.errors?.[0]?.extensions?.code).toBe('PERMISSION_DENIED');
  });

  it('retries a 500 exactly twice with the same webhook-id, discards it, and redelivers by hand', async () => {
    let answer = 500;
    const s = await setup({
      eventTypes: ['activity_created'],
      respond: (_r, res) => {
        res.writeHead(answer, { 'content-type': 'text/plain' }).end(`answer ${answer}`);
      },
    });
    await ok(t, s.ingest, CreateActivity, { accessoryId: s.accessoryId, input: {} });
    await s.rx.waitFor(() => s.rx.receipts.length >= 3, 'three attempts');
    await sleep(400); // well past the last retry delay: no fourth attempt comes
    expect(s.rx.receipts).toHaveLength(3);
    const ids = new Set(s.rx.receipts.map((r) => r.webhookId));
    expect(ids.size).toBe(1);
    expect(s.rx.receipts.every((r) => r.standard && r.vendor)).toBe(true);

    let log = await deliveryLog(s.token, s.accountId);
    expect(log.edges).toHaveLength(1);
    const delivery = log.edges[0]!.node;
    expect(delivery).toMatchObject({
      kind: 'event',
      eventType: 'activity_created',
      webhookId: [...ids][0],
      eventId: [...ids][0],
      status: 'discarded',
      url: s.rx.url,
      attemptCount: 3,
      nextAttemptAt: null,
    });
    expect(delivery.attempts.map((a) => [a.attempt, a.status, a.outcome, a.response])).toEqual([
      [1, 500, 'failed', 'answer 500'],
      [2, 500, 'failed', 'answer 500'],
      [3, 500, 'failed', 'answer 500'],
    ]);
    const starts = delivery.attempts.map((a) => Date.parse(a.startedAt));
    expect(starts[1]! - starts[0]!).toBeGreaterThanOrEqual(45);
    expect(starts[2]! - starts[1]!).toBeGreaterThanOrEqual(95);

    answer = 200;
    const redelivered = await gql(t.url, s.token, RedeliverNotification, {
      deliveryId: delivery.id,
    });
    expect(redelivered.data?.redeliverNotification).toMatchObject({ status: 'pending' });
    await s.rx.waitFor(() => s.rx.receipts.length >= 4, 'the redelivery');
    let node = delivery;
    for (let i = 0; i < 100 && node.status !== 'delivered'; i++) {
      await sleep(20);
      log = await deliveryLog(s.token, s.accountId);
      node = log.edges[0]!.node;
    }
    expect(node.status).toBe('delivered');
    expect(node.attempts.map((a) => a.status)).toEqual([500, 500, 500, 200]);
    expect(s.rx.receipts[3]!.webhookId).toBe(delivery.webhookId);

    const again = await gql(t.url, s.token, RedeliverNotification, { deliveryId: delivery.id });
    expect(again.errors?.[0]?.extensions?.code).toBe('CONFLICT');
    const otherClient = await t.token(['notifications'], s.subject, 'another-client');
    const foreign = await gql(t.url, otherClient, RedeliverNotification, {
      deliveryId: delivery.id,
    });
    expect(foreign.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');

    const metrics = await (await fetch(`${t.url}/metrics`)).text();
    expect(metrics).toMatch(/clipgate_webhook_deliveries_total\{outcome="discarded"\} [1-9]/);
    expect(metrics).toMatch(/clipgate_webhook_deliveries_total\{outcome="delivered"\} [1-9]/);
    expect(metrics).toMatch(
      /clipgate_webhook_attempt_duration_seconds_count\{result="5xx"\} [3-9]/,
    );
    expect(metrics).toMatch(/clipgate_webhook_queue_depth \d+/);
    expect(metrics).toMatch(/clipgate_webhook_oldest_pending_age_seconds [\d.e+-]+/);
  });

  it('never follows a redirect: a 302 is a failed attempt', async () => {
    const target = await receiver('unused-key-0123456789');
    const s = await setup({
      eventTypes: ['activity_created'],
      respond: (_r, res) => {
        res.writeHead(302, { location: target.url }).end();
      },
    });
    await ok(t, s.ingest, CreateActivity, { accessoryId: s.accessoryId, input: {} });
    await s.rx.waitFor(() => s.rx.receipts.length >= 3, 'three attempts');
    await sleep(300);
    expect(s.rx.receipts).toHaveLength(3);
    expect(target.receipts).toHaveLength(0);
    let node = (await deliveryLog(s.token, s.accountId)).edges[0]!.node;
    for (let i = 0; i < 50 && node.status !== 'discarded'; i++) {
      await sleep(20);
      node = (await deliveryLog(s.token, s.accountId)).edges[0]!.node;
    }
    expect(node.status).toBe('discarded');
    expect(node.attempts.map((a) => a.status)).toEqual([302, 302, 302]);
  });

  it('caps each receiver at 16 attempts in flight; a 410 removes the registration and drops what is queued', async () => {
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    const s = await setup({
      eventTypes: ['activity_created'],
      respond: async (_r, res) => {
        await released;
        res.writeHead(410).end('unsubscribed');
      },
    });
    // 20 events committed at once, one per accessory.
    const accessories = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        ok(t, s.ingest, AssociateAccessory, {
          accountId: s.accountId,
          deviceId: `gone-${i}`,
          name: `gone ${i}`,
        }),
      ),
    );
    await Promise.all(
      accessories.map(({ associateAccessory }) =>
        ok(t, s.ingest, CreateActivity, { accessoryId: associateAccessory.id, input: {} }),
      ),
    );
    expect(await queuedDeliveries(t, s.accountId)).toHaveLength(20);
    await s.rx.waitFor(() => s.rx.open >= 16, '16 attempts in flight');
    await sleep(100);
    expect(s.rx.maxOpen).toBe(16); // the other 4 wait for a free slot of this receiver
    release();

    for (let i = 0; i < 200; i++) {
      if ((await rest(t.url, s.token, 'GET', '/api/accounts/self/notifications')).status === 404) {
        break;
      }
      await sleep(20);
    }
    expect((await rest(t.url, s.token, 'GET', '/api/accounts/self/notifications')).status).toBe(
      404,
    );
    await sleep(300);
    const states = (await queuedDeliveries(t, s.accountId)).map((d) => d.state);
    expect(states).not.toContain('pending');
    expect(states).toContain('gone');
    expect(states.filter((x) => x === 'gone' || x === 'dropped')).toHaveLength(20);
    expect(s.rx.receipts).toHaveLength(16); // nothing queued was sent after the 410, no retries

    // Nothing more is sent to it: new events queue nothing.
    await ok(t, s.ingest, CreateActivity, { accessoryId: s.accessoryId, input: {} });
    expect(await queuedDeliveries(t, s.accountId)).toHaveLength(20);
  });

  it('sends to a receiver registered again right after its 410', async () => {
    const s = await setup({
      eventTypes: ['activity_created'],
      respond: (_r, res, count) => void res.writeHead(count === 1 ? 410 : 204).end(),
    });
    await ok(t, s.ingest, CreateActivity, { accessoryId: s.accessoryId, input: {} });
    await expect
      .poll(
        async () => (await rest(t.url, s.token, 'GET', '/api/accounts/self/notifications')).status,
      )
      .toBe(404);

    await register(t, s.token, {
      url: s.rx.url,
      authKey: s.authKey,
      eventTypes: ['activity_created'],
    });
    await ok(t, s.ingest, CreateActivity, { accessoryId: s.accessoryId, input: {} });
    // Well within the minute the instance remembers the 410 for.
    await s.rx.waitFor(() => s.rx.receipts.length === 2, 'the delivery to the new registration');
    expect(s.rx.receipts.map((r) => r.standard)).toEqual([true, true]);
    expect(s.rx.receipts[0]!.webhookId).not.toBe(s.rx.receipts[1]!.webhookId);
  });

  it('cuts a receiver that never answers at the budget, while another receiver stays fast', async () => {
    const hung = await setup({ eventTypes: ['activity_created'], respond: () => undefined });
    const fast = await setup({ eventTypes: ['activity_created'] });
    await ok(t, hung.ingest, CreateActivity, { accessoryId: hung.accessoryId, input: {} });
    await hung.rx.waitFor(() => hung.rx.open >= 1, 'the hung attempt');

    const latencies: number[] = [];
    for (let i = 0; i < 3; i++) {
      const sent = Date.now();
      await ok(t, fast.ingest, CreateActivity, {
        accessoryId: fast.accessoryId,
        input: { createdAt: new Date(Date.now() - (3 - i) * 1000).toISOString() },
      });
      await fast.rx.waitFor(() => fast.rx.receipts.length > i, `fast notification ${i}`);
      latencies.push(fast.rx.receipts[i]!.at - sent);
    }
    // Waiting behind the hung receiver would take at least its budget.
    for (const latency of latencies) expect(latency).toBeLessThan(BUDGET_MS);

    let attempt: { startedAt: string; durationMs: number; error?: string | null } | undefined;
    for (let i = 0; i < 200 && !attempt; i++) {
      await sleep(20);
      attempt = (await deliveryLog(hung.token, hung.accountId)).edges[0]?.node.attempts[0];
    }
    expect(attempt).toMatchObject({ error: 'timeout' });
    expect(attempt!.durationMs).toBeGreaterThanOrEqual(BUDGET_MS - 20);
    expect(attempt!.durationMs).toBeLessThan(BUDGET_MS + 1500);
    // The first fast notification arrived while the hung attempt was still waiting.
    expect(fast.rx.receipts[0]!.at).toBeLessThan(
      Date.parse(attempt!.startedAt) + attempt!.durationMs,
    );
    await rest(t.url, hung.token, 'DELETE', '/api/accounts/self/notifications');
    console.log(`fast receiver latencies beside a hung one: ${latencies.join(', ')} ms`);
  });

  it('sends account_deleted to every registration of the account, whether it asked or not', async () => {
    const s = await setup({ eventTypes: ['activity_created'], userData: { k: 'v' } });
    const other = await secondClient(s.subject, 'second-client', [
      'activity_finished',
      'account_deleted',
    ]);
    const admin = await t.token(['admin'], 'an-admin');
    expect((await gql(t.url, admin, DeleteAccount, { accountId: s.accountId })).errors).toBe(
      undefined,
    );
    await s.rx.waitFor(() => s.rx.receipts.length >= 1, 'account_deleted (first client)');
    await other.waitFor(() => other.receipts.length >= 1, 'account_deleted (second client)');
    expect(s.rx.receipts[0]!.body).toEqual({
      accountId: s.accountId,
      eventType: 'account_deleted',
      eventData: {},
      userData: { k: 'v' },
    });
    expect(other.receipts[0]!.body).toEqual({
      accountId: s.accountId,
      eventType: 'account_deleted',
      eventData: {},
    });
    expect(s.rx.receipts[0]!.webhookId).toBe(other.receipts[0]!.webhookId);
    expect(s.rx.receipts[0]!.standard && other.receipts[0]!.vendor).toBe(true);
    // The account and its registrations are gone; the deliveries were delivered.
    const { rows } = await t.app.services.db.pool.query(
      'SELECT count(*)::int AS n FROM notification_registrations WHERE account_id = $1',
      [s.accountId],
    );
    expect(rows[0].n).toBe(0);
    await sleep(100);
    expect((await queuedDeliveries(t, s.accountId)).map((d) => d.state)).toEqual([
      'delivered',
      'delivered',
    ]);
  });

  it('names with each commit the receiver origins it queued deliveries for (the dispatcher wakes for those)', async () => {
    const s = await setup({ eventTypes: ['activity_created'] });
    const other = await secondClient(s.subject, 'origins-client', [
      'activity_created',
      'activity_finished',
    ]);
    const committed: StoredEvent[] = [];
    const unsubscribe = t.app.services.signal.subscribe((events) => committed.push(...events));
    try {
      // Through the ingest function, then through the outbox statement (account_deleted).
      await ok(t, s.ingest, CreateActivity, { accessoryId: s.accessoryId, input: {} });
      await ok(t, s.ingest, ReportMotion, { accessoryId: s.accessoryId, state: 'started' });
      const admin = await t.token(['admin'], 'an-admin');
      expect((await gql(t.url, admin, DeleteAccount, { accountId: s.accountId })).errors).toBe(
        undefined,
      );
    } finally {
      unsubscribe();
    }
    const origins = (type: string) =>
      [...queuedOrigins(committed.find((e) => e.eventType === type)!)].sort();
    const both = [new URL(s.rx.url).origin, new URL(other.url).origin].sort();
    expect(both[0]).not.toBe(both[1]);
    expect(origins('activity_created')).toEqual(both);
    expect(origins('motion_started')).toEqual([]);
    expect(origins('account_deleted')).toEqual(both);
  });

  it('re-registering overwrites: later events go to the new url, signed with the new key', async () => {
    const s = await setup({ eventTypes: ['activity_created'] });
    await ok(t, s.ingest, CreateActivity, {
      accessoryId: s.accessoryId,
      input: { createdAt: minutesAgo(2) },
    });
    await s.rx.waitFor(() => s.rx.receipts.length >= 1, 'the first notification');
    const newKey = 'the-rotated-receiver-key-42';
    const next = await receiver(newKey);
    await register(t, s.token, {
      url: next.url,
      authKey: newKey,
      eventTypes: ['activity_created', 'activity_finished'],
    });
    await ok(t, s.ingest, CreateActivity, {
      accessoryId: s.accessoryId,
      input: { createdAt: minutesAgo(1) },
    });
    await next.waitFor(() => next.receipts.length >= 2, 'created and finished at the new url');
    expect(next.receipts.every((r) => r.standard && r.vendor)).toBe(true);
    expect(next.receipts.map((r) => r.body.eventType).sort()).toEqual([
      'activity_created',
      'activity_finished',
    ]);
    await sleep(100);
    expect(s.rx.receipts).toHaveLength(1);
  });

  it('pages the delivery log and sends test notifications like any other', async () => {
    const s = await setup({ eventTypes: ['activity_created'], userData: { x: 1 } });
    for (const m of [3, 2, 1]) {
      await ok(t, s.ingest, CreateActivity, {
        accessoryId: s.accessoryId,
        input: { createdAt: minutesAgo(m) },
      });
    }
    const test = await gql(t.url, s.token, SendTestNotification, { accountId: s.accountId });
    expect(test.errors).toBeUndefined();
    const queued = test.data!.sendTestNotification;
    expect(queued).toMatchObject({
      kind: 'test',
      eventType: 'test_notification',
      webhookId: `test_${queued.id}`,
    });
    await s.rx.waitFor(() => s.rx.receipts.length >= 4, 'three events and the test');
    const received = s.rx.byId(queued.webhookId)[0]!;
    expect(received.body).toEqual({
      accountId: s.accountId,
      eventType: 'test_notification',
      eventData: {},
      userData: { x: 1 },
    });
    expect(received.standard && received.vendor).toBe(true);
    await sleep(100);

    const page1 = await deliveryLog(s.token, s.accountId, 2);
    expect(page1.edges.map((e) => e.node.kind)).toEqual(['test', 'event']);
    expect(page1.pageInfo.hasNextPage).toBe(true);
    const page2 = await deliveryLog(s.token, s.accountId, 2, page1.pageInfo.endCursor!);
    expect(page2.edges).toHaveLength(2);
    expect(page2.pageInfo.hasNextPage).toBe(false);
    const all = [...page1.edges, ...page2.edges].map((e) => e.node);
    expect(new Set(all.map((d) => d.id)).size).toBe(4);
    expect(all.map((d) => Number(d.id))).toEqual(
      [...all.map((d) => Number(d.id))].sort((a, b) => b - a),
    );
    for (const d of all) {
      expect(d.status).toBe('delivered');
      expect(d.attempts).toEqual([
        expect.objectContaining({ attempt: 1, status: 204, outcome: 'accepted', error: null }),
      ]);
    }

    // Other clients and accounts see none of it.
    const otherClient = await t.token(['notifications'], s.subject, 'another-client');
    expect((await deliveryLog(otherClient, s.accountId)).edges).toEqual([]);
    const stranger = await gql(t.url, s.token, NotificationDeliveries, {
      accountId: crypto.randomUUID(),
    });
    expect(stranger.data?.notificationDeliveries).toBeNull();
    const noRegistration = await gql(t.url, otherClient, SendTestNotification, {
      accountId: s.accountId,
    });
    expect(noRegistration.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    const tooMany = await gql(t.url, s.token, NotificationDeliveries, {
      accountId: s.accountId,
      first: 1000,
    });
    expect(tooMany.errors?.[0]?.extensions).toMatchObject({ details: { field: 'first' } });
    const reader = await t.token(['activities_basic'], s.subject, 'backend');
    const denied = await gql(t.url, reader, NotificationDeliveries, { accountId: s.accountId });
    expect(denied.errors?.[0]?.extensions?.code).toBe('PERMISSION_DENIED');
  });

  it('records a key sealed under another SECRETS_KEY as key_unavailable, and sends nothing', async () => {
    const s = await setup({ eventTypes: ['activity_created'] });
    const foreign = createSecretBox(randomBytes(32)).seal(
      s.authKey,
      secretContext(s.accountId, 'backend'),
    );
    await t.app.services.db.pool.query(
      'UPDATE notification_registrations SET auth_key = $2 WHERE account_id = $1',
      [s.accountId, foreign],
    );
    await ok(t, s.ingest, CreateActivity, { accessoryId: s.accessoryId, input: {} });
    let node;
    for (let i = 0; i < 200 && node?.status !== 'discarded'; i++) {
      await sleep(20);
      node = (await deliveryLog(s.token, s.accountId)).edges[0]?.node;
    }
    expect(node?.status).toBe('discarded');
    expect(node!.attempts.map((a) => a.error)).toEqual([
      'key_unavailable',
      'key_unavailable',
      'key_unavailable',
    ]);
    expect(s.rx.connections).toBe(0);
  });

  it('purges finished deliveries past retention, with their attempts, and keeps pending ones', async () => {
    const s = await setup({ eventTypes: ['activity_created'] });
    await ok(t, s.ingest, CreateActivity, { accessoryId: s.accessoryId, input: {} });
    await s.rx.waitFor(() => s.rx.receipts.length >= 1, 'a notification');
    await sleep(100);
    const pool = t.app.services.db.pool;
    const { rows } = await pool.query(
      `INSERT INTO deliveries (kind, account_id, client_id, event_type, event_data, url, origin,
                               auth_key, state, next_attempt_at, created_at)
       VALUES ('test', $1, 'backend', 'test_notification', '{}', 'https://x.invalid/', 'https://x.invalid',
               'v1.x', 'pending', now() + interval '1 day', now() - interval '30 days')
       RETURNING id::text AS id`,
      [s.accountId],
    );
    const pendingId = rows[0].id;
    const count = async () =>
      (
        await pool.query(
          `SELECT (SELECT count(*)::int FROM deliveries WHERE account_id = $1) AS deliveries,
                  (SELECT count(*)::int FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id
                    WHERE d.account_id = $1) AS attempts`,
          [s.accountId],
        )
      ).rows[0];
    expect(await count()).toEqual({ deliveries: 2, attempts: 1 });
    expect(await purgeDeliveryLog(t.app.services.db, 7)).toBe(0);
    expect(await count()).toEqual({ deliveries: 2, attempts: 1 });
    const later = new Date(Date.now() + 8 * 86_400_000);
    expect(await purgeDeliveryLog(t.app.services.db, 7, later)).toBeGreaterThanOrEqual(1);
    expect(await count()).toEqual({ deliveries: 1, attempts: 0 });
    await pool.query('DELETE FROM deliveries WHERE id = $1', [pendingId]);
  });
});
