/**
 * The AMQP publisher against the RabbitMQ of TEST_AMQP_URL (amqp://user:pass@host:port), with a
 * consumer of the test's own on a queue of its own; brokers that refuse or stall are loopback
 * servers of the test.
 */
import { connect, type Channel, type ChannelModel, type ConsumeMessage } from 'amqplib';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAmqpPublisher } from '../../../src/notifications/destinations/amqp.ts';
import type { Publisher } from '../../../src/notifications/destinations/types.ts';
import { brokerUrl } from '../../helpers/brokers.ts';
import { startTcpProxy, type TcpProxy } from '../../helpers/tcp-proxy.ts';
import { brokerMessage, closedPort, publishError, silentServer, until } from './helpers.ts';

const amqpUrl = brokerUrl('amqp');

describe.skipIf(!amqpUrl)('the AMQP publisher', () => {
  const url = new URL(amqpUrl ?? 'amqp://127.0.0.1');
  const credentials = {
    username: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
  };
  const exchange = 'amq.topic';
  const routingKey = `clipgate.test.${randomUUID()}`;
  let consumer: ChannelModel;
  let channel: Channel;
  let queue: string;
  const received: ConsumeMessage[] = [];
  let proxy: TcpProxy;
  let publisher: Publisher;
  /** The broker through the proxy, which counts and cuts connections. */
  let target: { url: string; username: string; password: string; topic: string; exchange: string };

  beforeAll(async () => {
    consumer = await connect(amqpUrl!);
    channel = await consumer.createChannel();
    ({ queue } = await channel.assertQueue('', { exclusive: true }));
    await channel.bindQueue(queue, exchange, routingKey);
    await channel.consume(queue, (message) => message && received.push(message), {
      noAck: true,
    });
    proxy = await startTcpProxy(url.hostname, Number(url.port || 5672));
    target = {
      url: `amqp://127.0.0.1:${proxy.port}`,
      ...credentials,
      topic: routingKey,
      exchange,
    };
    publisher = createAmqpPublisher({ allowPrivateNetworks: true });
  });
  afterAll(async () => {
    await publisher?.close();
    await consumer?.close();
    await proxy?.close();
  });

  it('publishes the body and the signature headers, persistent, and the consumer gets them', async () => {
    const message = brokerMessage({ eventType: 'activity_created', eventData: { n: 1 } });
    await publisher.publish(target, message, AbortSignal.timeout(5_000));
    await until(() => received.some((m) => m.properties.messageId === message.id), 'the message');
    const got = received.find((m) => m.properties.messageId === message.id)!;
    expect(got.content.toString('utf8')).toBe(message.body.toString());
    expect(got.fields).toMatchObject({ exchange, routingKey });
    expect(got.properties).toMatchObject({
      contentType: 'application/json',
      deliveryMode: 2,
      messageId: message.id,
      headers: message.headers,
    });
  });

  it('pools one connection per broker and credentials, and opens another once it is lost', async () => {
    const before = proxy.accepted;
    await publisher.publish(target, brokerMessage(), AbortSignal.timeout(5_000));
    await publisher.publish(target, brokerMessage(), AbortSignal.timeout(5_000));
    await Promise.all(
      [1, 2, 3].map(() => publisher.publish(target, brokerMessage(), AbortSignal.timeout(5_000))),
    );
    expect(proxy.accepted).toBe(before === 0 ? 1 : before);

    proxy.cut();
    proxy.restore();
    await until(() => proxy.connected === 0, 'the connection to drop');
    await publisher.publish(target, brokerMessage(), AbortSignal.timeout(5_000));
    expect(proxy.accepted).toBe(Math.max(before, 1) + 1);
  });

  it('resolves only on the publisher confirm: a confirm that never comes is a timeout', async () => {
    const own = createAmqpPublisher({ allowPrivateNetworks: true });
    try {
      await own.publish(target, brokerMessage(), AbortSignal.timeout(5_000)); // connected
      const message = brokerMessage({ marker: randomUUID() });
      // The publish reaches the broker, which routes it, but nothing comes back on that connection.
      const lost = proxy.loseAnswer(JSON.parse(message.body.toString()).marker);
      const started = Date.now();
      const err = await publishError(own.publish(target, message, AbortSignal.timeout(500)));
      expect(err.errorClass).toBe('timeout');
      expect(err.message).toMatch(/publisher confirm/);
      expect(Date.now() - started).toBeLessThan(2_000);
      await lost;
      await until(() => received.some((m) => m.properties.messageId === message.id), 'the message');
    } finally {
      // The broker's answer to the close is lost too: close gives up waiting for it.
      const closing = Date.now();
      await own.close();
      expect(Date.now() - closing).toBeLessThan(3_000);
    }
  });

  it('fails a publish whose connection is lost before its confirm as a connection failure', async () => {
    const own = createAmqpPublisher({ allowPrivateNetworks: true });
    await own.publish(target, brokerMessage(), AbortSignal.timeout(5_000)); // connected
    const message = brokerMessage({ marker: randomUUID() });
    const lost = proxy.loseAnswer(JSON.parse(message.body.toString()).marker);
    const publishing = publishError(own.publish(target, message, AbortSignal.timeout(5_000)));
    await lost;
    await own.close(); // unanswered: its socket is dropped
    const err = await publishing;
    expect(err.errorClass).toBe('connect');
    expect(err.message).toBe('the connection to the broker was lost before the confirm');
  });

  it('fails a message no queue is bound for as unroutable', async () => {
    const err = await publishError(
      publisher.publish(
        { ...target, topic: `clipgate.nobody.${randomUUID()}` },
        brokerMessage(),
        AbortSignal.timeout(5_000),
      ),
    );
    expect(err.errorClass).toBe('protocol');
    expect(err.message).toMatch(
      /^unroutable: the exchange 'amq.topic' has no queue bound .*NO_ROUTE/,
    );
  });

  it('fails a publish to a missing exchange with the broker’s reason, and goes on after', async () => {
    const err = await publishError(
      publisher.publish(
        { ...target, exchange: `clipgate-missing-${randomUUID()}` },
        brokerMessage(),
        AbortSignal.timeout(5_000),
      ),
    );
    expect(err.errorClass).toBe('protocol');
    expect(err.message).toMatch(/NOT_FOUND - no exchange/);
    await publisher.publish(target, brokerMessage(), AbortSignal.timeout(5_000));
  });

  it('fails wrong credentials clearly', async () => {
    const err = await publishError(
      publisher.publish(
        { ...target, password: 'not-the-password' },
        brokerMessage(),
        AbortSignal.timeout(5_000),
      ),
    );
    expect(err.errorClass).toBe('protocol');
    expect(err.message).toMatch(/ACCESS_REFUSED/);
  });

  it('fails at once on a refused connection, and waits a back-off before trying again', async () => {
    const refused = { ...target, url: `amqp://127.0.0.1:${await closedPort()}` };
    const started = Date.now();
    const err = await publishError(
      publisher.publish(refused, brokerMessage(), AbortSignal.timeout(5_000)),
    );
    expect(err.errorClass).toBe('connect');
    expect(err.message).toMatch(/ECONNREFUSED/);
    expect(Date.now() - started).toBeLessThan(2_000);
    const again = await publishError(
      publisher.publish(refused, brokerMessage(), AbortSignal.timeout(5_000)),
    );
    expect(again.errorClass).toBe('connect');
    expect(again.message).toMatch(/ECONNREFUSED.*tried again in 1 s/);
  });

  it('gives up on a stalled broker when the signal aborts, and other brokers go on', async () => {
    const silent = await silentServer();
    try {
      const started = Date.now();
      const err = await publishError(
        publisher.publish(
          { ...target, url: `amqp://127.0.0.1:${silent.port}` },
          brokerMessage(),
          AbortSignal.timeout(300),
        ),
      );
      expect(err.errorClass).toBe('timeout');
      expect(err.message).toMatch(/connecting/);
      expect(Date.now() - started).toBeLessThan(2_000);
      await publisher.publish(target, brokerMessage(), AbortSignal.timeout(5_000));
    } finally {
      await silent.close();
    }
  });

  it('refuses a loopback broker unless private networks are allowed', async () => {
    const strict = createAmqpPublisher({ allowPrivateNetworks: false });
    const accepted = proxy.accepted;
    try {
      const err = await publishError(
        strict.publish(target, brokerMessage(), AbortSignal.timeout(5_000)),
      );
      expect(err.errorClass).toBe('blocked_address');
      expect(err.message).toMatch(/non-public address/);
      expect(proxy.accepted).toBe(accepted); // not even a connection
    } finally {
      await strict.close();
    }
  });

  it('closes every connection on close, and publishes no more', async () => {
    const own = createAmqpPublisher({ allowPrivateNetworks: true });
    const before = proxy.connected;
    await own.publish(target, brokerMessage(), AbortSignal.timeout(5_000));
    expect(proxy.connected).toBe(before + 1);
    await own.close();
    await until(() => proxy.connected === before, 'the connection to close');
    const err = await publishError(
      own.publish(target, brokerMessage(), AbortSignal.timeout(5_000)),
    );
    expect(err.message).toMatch(/closed/);
  });
});
