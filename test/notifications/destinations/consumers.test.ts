/**
 * The example consumers (examples/amqp-consumer.ts, examples/nats-consumer.ts) against the real
 * brokers: a notification signed as the service signs one (signing.ts) and published by the
 * service's publisher is taken once; a repeat, a changed body and another key's signature are not.
 */
import { jetstream, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { connect as connectNats, headers, type NatsConnection } from '@nats-io/transport-node';
import { connect as connectAmqp, type Channel, type ChannelModel } from 'amqplib';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consumeNotifications as consumeAmqp } from '../../../examples/amqp-consumer.ts';
import { consumeNotifications as consumeNats } from '../../../examples/nats-consumer.ts';
import { createAmqpPublisher } from '../../../src/notifications/destinations/amqp.ts';
import { createNatsPublisher } from '../../../src/notifications/destinations/nats.ts';
import type { BrokerMessage } from '../../../src/notifications/destinations/types.ts';
import { notificationHeaders } from '../../../src/notifications/signing.ts';
import { brokerUrl } from '../../helpers/brokers.ts';
import { until } from './helpers.ts';

const authKey = 'broker-consumer-key-0123456789';

/** A notification as the service sends one to a broker: its body, signed with `key`. */
async function signed(key: string, body: object): Promise<BrokerMessage> {
  const id = `msg_${randomUUID()}`;
  const text = JSON.stringify(body);
  const all = await notificationHeaders({
    body: Buffer.from(text),
    keys: { authKey: key },
    webhookId: id,
    timestamp: Math.floor(Date.now() / 1000),
    userAgent: 'clipgate-test',
  });
  return {
    id,
    body: Buffer.from(text),
    headers: {
      'content-type': 'application/json',
      'webhook-id': id,
      'webhook-timestamp': all['webhook-timestamp']!,
      'webhook-signature': all['webhook-signature']!,
    },
  };
}

const notification = (n: number) => ({ accountId: 'acc', eventType: 'test_notification', n });

const amqpUrl = brokerUrl('amqp');
const natsUrl = brokerUrl('nats');

describe.skipIf(!amqpUrl)('examples/amqp-consumer.ts', () => {
  let connection: ChannelModel;
  let channel: Channel;
  const routingKey = `clipgate.consumer.${randomUUID()}`;
  let queue: string;
  const publisher = createAmqpPublisher({ allowPrivateNetworks: true });
  const url = new URL(amqpUrl ?? 'amqp://127.0.0.1');
  const target = {
    url: `amqp://${url.host}${url.pathname}`,
    username: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
    exchange: 'amq.topic',
    topic: routingKey,
  };

  beforeAll(async () => {
    connection = await connectAmqp(amqpUrl!);
    channel = await connection.createChannel();
    ({ queue } = await channel.assertQueue('', { exclusive: true }));
    await channel.bindQueue(queue, 'amq.topic', routingKey);
  });
  afterAll(async () => {
    await publisher.close();
    await connection?.close();
  });

  it('takes each signed notification once and rejects what does not verify', async () => {
    const taken: [Record<string, unknown>, string][] = [];
    await consumeAmqp(channel, queue, authKey, (n, id) => taken.push([n, id]));
    const good = await signed(authKey, notification(1));
    const forged = await signed('another-key-0123456789abc', notification(2));
    const send = (m: BrokerMessage) => publisher.publish(target, m, AbortSignal.timeout(5_000));
    await send(forged);
    await send({ ...good, body: Buffer.from(JSON.stringify(notification(3))) }); // the body changed
    await send(good);
    await send(good); // a repeat
    const last = await signed(authKey, notification(4));
    await send(last);
    await until(() => taken.length === 2, 'two notifications');
    expect(taken).toEqual([
      [notification(1), good.id],
      [notification(4), last.id],
    ]);
  });
});

describe.skipIf(!natsUrl)('examples/nats-consumer.ts', () => {
  let client: NatsConnection;
  let jsm: JetStreamManager;
  const id = randomUUID().replaceAll('-', '');
  const stream = `clipgate_consumer_${id}`;
  const subject = `clipgate.consumer.${id}`;
  const publisher = createNatsPublisher({ allowPrivateNetworks: true });

  beforeAll(async () => {
    client = await connectNats({ servers: new URL(natsUrl!).host });
    jsm = await jetstreamManager(client);
    await jsm.streams.add({ name: stream, subjects: [subject] });
    await jsm.consumers.add(stream, { durable_name: 'example', ack_policy: 'explicit' });
  });
  afterAll(async () => {
    await publisher.close();
    await jsm?.streams.delete(stream);
    await client?.close();
  });

  it('takes each signed notification once and terminates what does not verify', async () => {
    const taken: [Record<string, unknown>, string][] = [];
    // The example's own connection: closing it ends its loop.
    const own = await connectNats({ servers: new URL(natsUrl!).host });
    const consumer = await jetstream(own).consumers.get(stream, 'example');
    const consuming = consumeNats(consumer, authKey, (n, webhookId) => taken.push([n, webhookId]));
    const target = { url: natsUrl!, topic: subject };
    const send = (m: BrokerMessage) => publisher.publish(target, m, AbortSignal.timeout(5_000));
    const good = await signed(authKey, notification(1));
    await send(await signed('another-key-0123456789abc', notification(2)));
    await send({
      ...good,
      id: `${good.id}-changed`,
      body: Buffer.from(JSON.stringify(notification(3))),
    });
    await send(good);
    // A repeat past the stream's duplicate window: published without its Nats-Msg-Id.
    const h = headers();
    for (const [name, value] of Object.entries(good.headers)) h.set(name, value);
    await jetstream(client).publish(subject, good.body, { headers: h });
    const last = await signed(authKey, notification(4));
    await send(last);
    await until(() => taken.length === 2, 'two notifications');
    expect(taken).toEqual([
      [notification(1), good.id],
      [notification(4), last.id],
    ]);
    // Every message is settled: acknowledged, or terminated so that it never comes again.
    await expect
      .poll(async () => {
        const info = await jsm.consumers.info(stream, 'example');
        return [info.num_pending, info.num_ack_pending, info.num_redelivered];
      })
      .toEqual([0, 0, 0]);
    await own.close();
    await consuming;
  });
});
