import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { connectAsync } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMqttPublisher } from '../../../src/notifications/destinations/mqtt.ts';
import { PublishError, type Publisher } from '../../../src/notifications/destinations/types.ts';
import { brokerUrl } from '../../helpers/brokers.ts';

const mqttUrl = brokerUrl('mqtt');

/** A TCP server on loopback; `handle` gets each connection. */
async function listen(handle: (socket: net.Socket) => void): Promise<net.Server & { url: string }> {
  const server = net.createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return Object.assign(server, {
    url: `mqtt://127.0.0.1:${(server.address() as AddressInfo).port}`,
  });
}

const message = (id: string) => ({
  id,
  headers: { 'content-type': 'application/json', 'webhook-id': id },
  body: `{"n":"${id}"}`,
});

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (err: unknown) => err as PublishError,
  );

describe('the MQTT publisher', () => {
  let publisher: Publisher;
  beforeAll(() => {
    publisher = createMqttPublisher({ allowPrivateNetworks: true });
  });
  afterAll(() => publisher.close());

  it('a broker that accepts the connection but never answers is a timeout', async () => {
    const sockets: net.Socket[] = [];
    const stalled = await listen((socket) => sockets.push(socket));
    const started = performance.now();
    const err = await failure(
      publisher.publish({ url: stalled.url, topic: 't' }, message('a'), AbortSignal.timeout(300)),
    );
    expect(err).toBeInstanceOf(PublishError);
    expect(err).toMatchObject({ errorClass: 'timeout' });
    expect(performance.now() - started).toBeLessThan(2000);
    for (const socket of sockets) socket.destroy();
    stalled.close();
  });

  it('refuses a non-public broker unless private networks are allowed (blocked_address)', async () => {
    const strict = createMqttPublisher({ allowPrivateNetworks: false });
    const err = await failure(
      strict.publish(
        { url: 'mqtt://127.0.0.1:1', topic: 't' },
        message('b'),
        AbortSignal.timeout(1000),
      ),
    );
    expect(err).toMatchObject({
      errorClass: 'blocked_address',
      message: 'blocked: non-public address',
    });
    await strict.close();
  });

  it.skipIf(!mqttUrl)(
    'publishes on one pooled connection, acknowledged, and connects again after the broker went away',
    async () => {
      const broker = new URL(mqttUrl!);
      const connections: net.Socket[] = [];
      // A counting proxy in front of the real broker.
      const proxy = await listen((client) => {
        connections.push(client);
        const upstream = net.connect(Number(broker.port || 1883), broker.hostname);
        client.pipe(upstream).pipe(client);
        const end = () => (client.destroy(), upstream.destroy());
        client.on('error', end).on('close', end);
        upstream.on('error', end).on('close', end);
      });
      const topic = `clipgate-test/publisher/${process.pid}/${Date.now()}`;
      const subscriber = await connectAsync(mqttUrl!, { protocolVersion: 5 });
      const heard: { body: string; props: unknown; retain: boolean }[] = [];
      subscriber.on('message', (_t, payload, packet) =>
        heard.push({
          body: payload.toString(),
          props: packet.properties?.userProperties,
          retain: packet.retain,
        }),
      );
      await subscriber.subscribeAsync(topic, { qos: 1 });

      const target = { url: proxy.url, topic };
      await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          publisher.publish(target, message(`m${i}`), AbortSignal.timeout(5000)),
        ),
      );
      expect(connections).toHaveLength(1);
      // Other credentials: a connection of their own.
      await publisher.publish(
        { ...target, username: 'other', password: 'secret' },
        message('cred'),
        AbortSignal.timeout(5000),
      );
      expect(connections).toHaveLength(2);

      for (const socket of connections) socket.destroy(); // the broker goes away
      await new Promise((resolve) => setTimeout(resolve, 50));
      await publisher.publish(target, message('after'), AbortSignal.timeout(5000));
      expect(connections).toHaveLength(3);

      await expect.poll(() => heard.length, { timeout: 5000, interval: 20 }).toBe(22);
      expect(heard[0]).toEqual({
        body: '{"n":"m0"}',
        props: { 'webhook-id': 'm0' },
        retain: false,
      });
      await subscriber.endAsync();
      proxy.close();
    },
  );
});
