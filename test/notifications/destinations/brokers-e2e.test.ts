/**
 * The amqp and nats destinations end to end: registered over REST, an activity's notification
 * published by the service's dispatcher and taken by the example consumer
 * (examples/amqp-consumer.ts, examples/nats-consumer.ts), which verifies its signature.
 */
import { jetstream, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { connect as connectNats, type NatsConnection } from '@nats-io/transport-node';
import { connect as connectAmqp, type ChannelModel } from 'amqplib';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { consumeNotifications as consumeAmqp } from '../../../examples/amqp-consumer.ts';
import { consumeNotifications as consumeNats } from '../../../examples/nats-consumer.ts';
import { backends, startApp, type TestApp } from '../../helpers/app.ts';
import { brokerUrl } from '../../helpers/brokers.ts';
import { rest } from '../../helpers/client.ts';
import { CreateActivity, ok, seedAccessory } from '../../helpers/fixtures.ts';
import { NotificationDeliveries } from '../helpers.ts';

const PATH = '/api/accounts/self/notifications';
const authKey = 'broker-destination-key-0123456789';
const amqpUrl = brokerUrl('amqp');
const natsUrl = brokerUrl('nats');

/** A service whose dispatcher may reach the loopback brokers, with one account and camera. */
async function start(backend: (typeof backends)[number], subject: string) {
  const t = await startApp(backend, {
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_RETRY_DELAYS_MS: '50,50',
  });
  const seeded = await seedAccessory(t, subject, `${subject}-cam`);
  const token = await t.token(['notifications'], subject, `${subject}-client`);
  return { t, seeded, token };
}

/** Registers `body` over REST, creates an activity, and waits until `taken` has its notification. */
async function notifyOnce(
  t: TestApp,
  seeded: Awaited<ReturnType<typeof seedAccessory>>,
  token: string,
  body: object,
  taken: [Record<string, unknown>, string][],
) {
  const put = await rest(t.url, token, 'PUT', PATH, {
    ...body,
    authKey,
    eventTypes: ['activity_created'],
  });
  expect(put.status, JSON.stringify(put.body)).toBe(200);
  const { createActivity } = await ok(t, seeded.ingest, CreateActivity, {
    accessoryId: seeded.accessoryId,
    input: { relevanceLevel: 1 },
  });
  await vi.waitFor(() => expect(taken).toHaveLength(1), { timeout: 10_000, interval: 20 });
  expect(taken[0]![0]).toMatchObject({
    accountId: seeded.accountId,
    eventType: 'activity_created',
    eventData: { activityId: createActivity.activityId, accessoryId: seeded.accessoryId },
  });
  await vi.waitFor(
    async () => {
      const log = await ok(t, token, NotificationDeliveries, {
        accountId: seeded.accountId,
        first: 5,
      });
      const node = log.notificationDeliveries!.edges[0]!.node;
      expect(node).toMatchObject({ webhookId: taken[0]![1], status: 'delivered' });
      expect(node.attempts[0]).toMatchObject({ outcome: 'accepted', status: null });
    },
    { timeout: 5_000, interval: 50 },
  );
  return put.body;
}

describe.skipIf(!amqpUrl).each(backends)('an amqp destination on %s', (backend) => {
  let app: Awaited<ReturnType<typeof start>>;
  let consumer: ChannelModel;
  const routing = `clipgate.e2e.${randomUUID()}`;
  const taken: [Record<string, unknown>, string][] = [];

  beforeAll(async () => {
    app = await start(backend, 'amqp-user');
    consumer = await connectAmqp(amqpUrl!);
    const channel = await consumer.createChannel();
    const { queue } = await channel.assertQueue('', { exclusive: true });
    await channel.bindQueue(queue, 'amq.topic', `${routing}.#`);
    await consumeAmqp(channel, queue, authKey, (n, id) => taken.push([n, id]));
  });
  afterAll(async () => {
    await consumer?.close();
    await app?.t.close();
  });

  it('publishes an activity notification the example consumer verifies; credentials never returned', async () => {
    const url = new URL(amqpUrl!);
    const registered = await notifyOnce(
      app.t,
      app.seeded,
      app.token,
      {
        kind: 'amqp',
        url: `amqp://${url.host}/`,
        username: decodeURIComponent(url.username),
        password: decodeURIComponent(url.password),
        exchange: 'amq.topic',
        topic: `${routing}.{accountId}.{accessoryId}.{eventType}`,
      },
      taken,
    );
    expect(registered).toMatchObject({ kind: 'amqp', exchange: 'amq.topic', hasCredentials: true });
    expect(registered).not.toHaveProperty('password');
  });
});

describe.skipIf(!natsUrl).each(backends)('a nats destination on %s', (backend) => {
  let app: Awaited<ReturnType<typeof start>>;
  let client: NatsConnection;
  let jsm: JetStreamManager;
  const id = randomUUID().replaceAll('-', '');
  const stream = `clipgate_e2e_${id}`;
  const taken: [Record<string, unknown>, string][] = [];
  let consuming: Promise<void>;

  beforeAll(async () => {
    app = await start(backend, 'nats-user');
    client = await connectNats({ servers: new URL(natsUrl!).host });
    jsm = await jetstreamManager(client);
    await jsm.streams.add({ name: stream, subjects: [`clipgate.e2e.${id}.>`] });
    await jsm.consumers.add(stream, { durable_name: 'e2e', ack_policy: 'explicit' });
    const consumer = await jetstream(client).consumers.get(stream, 'e2e');
    consuming = consumeNats(consumer, authKey, (n, webhookId) => taken.push([n, webhookId]));
  });
  afterAll(async () => {
    await jsm?.streams.delete(stream);
    await client?.close();
    await consuming;
    await app?.t.close();
  });

  it('publishes an activity notification the example consumer verifies', async () => {
    const registered = await notifyOnce(
      app.t,
      app.seeded,
      app.token,
      { kind: 'nats', url: natsUrl, topic: `clipgate.e2e.${id}.{accountId}.{eventType}` },
      taken,
    );
    expect(registered).toMatchObject({ kind: 'nats', exchange: null, hasCredentials: false });
  });
});
