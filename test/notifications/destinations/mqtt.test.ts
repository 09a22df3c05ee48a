import { randomUUID } from 'node:crypto';
import type { MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { mqttSubscriber, type Automation } from '../../../examples/mqtt-subscriber.ts';
import { backends, startApp, type TestApp } from '../../helpers/app.ts';
import { brokerUrl } from '../../helpers/brokers.ts';
import { gql, rest } from '../../helpers/client.ts';
import { CreateActivity, ok, seedAccessory } from '../../helpers/fixtures.ts';
import { NotificationDeliveries, RedeliverNotification, SendTestNotification } from '../helpers.ts';
import { closedPort } from './helpers.ts';
import { RegisterDestination } from './kinds.ts';

const mqttUrl = brokerUrl('mqtt');
const PATH = '/api/accounts/self/notifications';
const authKey = 'mqtt-destination-key-0123456789';

describe.skipIf(!mqttUrl).each(backends)('MQTT destinations on %s', (backend) => {
  let t: TestApp;
  let token: string;
  let accountId: string;
  let seeded: Awaited<ReturnType<typeof seedAccessory>>;
  let subscriber: MqttClient;
  /** Each test's own topic root, so that runs in parallel do not hear each other. */
  const root = `clipgate-test/${randomUUID()}`;
  const got: (Automation & { topic: string })[] = [];
  const rejected: string[] = [];

  const deliveries = async () =>
    (await ok(t, token, NotificationDeliveries, { accountId, first: 20 })).notificationDeliveries!
      .edges;
  const receivedFor = (webhookId: string) =>
    got.filter((a) => a.event_data.webhook_id === webhookId);

  beforeAll(async () => {
    t = await startApp(backend, {
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_RETRY_DELAYS_MS: '50,50',
      WEBHOOK_TIMEOUT_MS: '2000',
    });
    seeded = await seedAccessory(t, 'mqtt-user', 'mqtt-cam');
    accountId = seeded.accountId;
    token = await t.token(['notifications'], 'mqtt-user', 'mqtt-client');
    // The example subscriber: it verifies each message and drops repeats by webhook-id; the
    // topic each came on is kept beside it (a second listener on the same client).
    const topics = new Map<string, string>();
    subscriber = await mqttSubscriber(
      { url: mqttUrl!, topic: `${root}/#`, authKey },
      (automation) =>
        got.push({ ...automation, topic: topics.get(automation.event_data.webhook_id) ?? '' }),
      (reason) => rejected.push(reason),
    );
    subscriber.prependListener('message', (topic, _payload, packet) => {
      const id = packet.properties?.userProperties?.['webhook-id'];
      if (typeof id === 'string') topics.set(id, topic);
    });
  });
  afterAll(async () => {
    await subscriber?.endAsync();
    await t?.close();
  });

  it('registers over REST, publishes each notification signed, credentials never returned', async () => {
    const body = {
      kind: 'mqtt',
      url: mqttUrl,
      topic: `${root}/rest/{accountId}/{accessoryId}/{eventType}`,
      username: 'clipgate-user',
      password: 'broker-password-never-returned',
      authKey,
      eventTypes: ['activity_created'],
    };
    const put = await rest(t.url, token, 'PUT', PATH, body);
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body).toMatchObject({
      kind: 'mqtt',
      url: mqttUrl,
      topic: body.topic,
      exchange: null,
      hasCredentials: true,
    });
    const get = await rest(t.url, token, 'GET', PATH);
    expect(get.body).toMatchObject({ kind: 'mqtt', hasCredentials: true });
    for (const answer of [put.body, get.body]) {
      expect(answer).not.toHaveProperty('username');
      expect(answer).not.toHaveProperty('password');
      expect(JSON.stringify(answer)).not.toContain(body.password);
    }

    const { createActivity } = await ok(t, seeded.ingest, CreateActivity, {
      accessoryId: seeded.accessoryId,
      input: { relevanceLevel: 1 },
    });
    await vi.waitFor(() => expect(got).toHaveLength(1), { timeout: 10_000, interval: 20 });
    expect(rejected).toEqual([]);
    expect(got[0]).toMatchObject({
      topic: `${root}/rest/${accountId}/${seeded.accessoryId}/activity_created`,
      event_type: 'clipgate_activity_created',
      event_data: {
        account_id: accountId,
        accessory_id: seeded.accessoryId,
        activity_id: createActivity.activityId,
      },
    });
    await vi.waitFor(
      async () => {
        const [edge] = await deliveries();
        expect(edge?.node).toMatchObject({ status: 'delivered', url: mqttUrl });
        expect(edge?.node.attempts[0]).toMatchObject({ outcome: 'accepted', status: null });
      },
      { timeout: 5_000, interval: 50 },
    );
  });

  it('registers over GraphQL; a test notification has no accessory', async () => {
    const topic = `${root}/graphql/{accountId}/{accessoryId}/{eventType}`;
    const registered = await ok(t, token, RegisterDestination, {
      input: {
        accountId,
        kind: 'mqtt',
        url: mqttUrl!,
        topic,
        authKey,
        eventTypes: ['activity_created'],
      },
    });
    expect(registered.registerNotifications).toEqual({
      url: mqttUrl,
      kind: 'mqtt',
      topic,
      exchange: null,
      hasCredentials: false,
    });
    const { sendTestNotification } = await ok(t, token, SendTestNotification, { accountId });
    await vi.waitFor(() => expect(receivedFor(sendTestNotification.webhookId)).toHaveLength(1), {
      timeout: 10_000,
      interval: 20,
    });
    expect(receivedFor(sendTestNotification.webhookId)[0]).toMatchObject({
      topic: `${root}/graphql/${accountId}/-/test_notification`,
      event_data: { accessory_id: null },
    });
  });

  it('refuses a URL of another kind, a wildcard topic and broker fields on a webhook (400)', async () => {
    const base = { authKey, eventTypes: ['activity_created'] };
    const cases: [object, string][] = [
      [{ ...base, kind: 'mqtt', url: 'https://broker.example.com', topic: 'a/b' }, 'url'],
      [{ ...base, kind: 'mqtt', url: mqttUrl, topic: 'a/#' }, 'topic'],
      [{ ...base, kind: 'mqtt', url: mqttUrl, topic: 'a/{deviceId}' }, 'topic'],
      [{ ...base, kind: 'mqtt', url: mqttUrl }, 'topic'],
      [{ ...base, kind: 'mqtt', url: mqttUrl, topic: 'a', exchange: 'x' }, 'exchange'],
      [{ ...base, kind: 'mqtt', url: mqttUrl, topic: 'a', username: 'u' }, 'password'],
      [{ ...base, url: 'https://hooks.example.com/', topic: 'a/b' }, 'topic'],
      [{ ...base, kind: 'kafka', url: mqttUrl, topic: 'a' }, 'kind'],
    ];
    for (const [body, field] of cases) {
      const res = await rest(t.url, token, 'PUT', PATH, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.details, JSON.stringify(body)).toMatchObject({ field });
    }
  });

  it('a broker that refuses fails each attempt (connect); redelivery and replay reach the broker', async () => {
    const refusing = `mqtt://127.0.0.1:${await closedPort()}`;
    const topic = `${root}/retry/{eventType}`;
    const registration = { kind: 'mqtt', topic, authKey, eventTypes: ['activity_created'] };
    expect((await rest(t.url, token, 'PUT', PATH, { ...registration, url: refusing })).status).toBe(
      200,
    );
    const before = got.length;
    await ok(t, seeded.ingest, CreateActivity, {
      accessoryId: seeded.accessoryId,
      input: { relevanceLevel: 1 },
    });
    let failed: Awaited<ReturnType<typeof deliveries>>[number]['node'] | undefined;
    await vi.waitFor(
      async () => {
        failed = (await deliveries()).find((e) => e.node.url === refusing)?.node;
        expect(failed?.status).toBe('discarded');
      },
      { timeout: 10_000, interval: 50 },
    );
    expect(failed!.attempts).toHaveLength(3);
    for (const attempt of failed!.attempts) {
      expect(attempt).toMatchObject({ outcome: 'failed', status: null, error: 'connect' });
    }
    expect(got.length).toBe(before);

    // Registered again at the broker that works: a redelivery goes there.
    expect((await rest(t.url, token, 'PUT', PATH, { ...registration, url: mqttUrl })).status).toBe(
      200,
    );
    const redelivered = await gql(t.url, token, RedeliverNotification, { deliveryId: failed!.id });
    expect(redelivered.errors).toBeUndefined();
    await vi.waitFor(() => expect(receivedFor(failed!.webhookId)).toHaveLength(1), {
      timeout: 10_000,
      interval: 20,
    });
    expect(receivedFor(failed!.webhookId)[0]!.topic).toBe(`${root}/retry/activity_created`);
    // Recorded after the PUBACK: a replay takes only what is not pending.
    await vi.waitFor(
      async () => {
        const again = (await deliveries()).find((e) => e.node.id === failed!.id)?.node;
        expect(again?.status).toBe('delivered');
      },
      { timeout: 5_000, interval: 50 },
    );

    // A replay publishes it again with the same webhook-id: the subscriber drops the repeat.
    const replay = await rest(t.url, token, 'POST', `${PATH}/replay`, {
      from: failed!.createdAt,
      to: new Date().toISOString(),
    });
    expect(replay.status, JSON.stringify(replay.body)).toBe(200);
    expect(replay.body.queued).toBeGreaterThanOrEqual(1);
    await vi.waitFor(
      async () => {
        const replayed = (await deliveries()).filter(
          (e) => e.node.webhookId === failed!.webhookId && e.node.id !== failed!.id,
        );
        expect(replayed.map((e) => e.node.status)).toEqual(['delivered']);
      },
      { timeout: 10_000, interval: 50 },
    );
    expect(receivedFor(failed!.webhookId)).toHaveLength(1);

    const metrics = await (await fetch(`${t.url}/metrics`)).text();
    expect(metrics).toMatch(
      /clipgate_webhook_attempt_duration_seconds_count\{result="ack"\} [1-9]/,
    );
    expect(metrics).toMatch(
      /clipgate_webhook_attempt_duration_seconds_count\{result="connect"\} [1-9]/,
    );
  });
});
