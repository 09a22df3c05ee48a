/**
 * The MQTT publisher against the Mosquitto of TEST_MQTT_URL, through a proxy that counts and
 * cuts connections, with a subscriber of the test's own; brokers that stall are loopback servers
 * of the test.
 */
import net from 'node:net';
import { connectAsync, type MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMqttPublisher } from '../../../src/notifications/destinations/mqtt.ts';
import type { Publisher } from '../../../src/notifications/destinations/types.ts';
import { startTcpProxy, type TcpProxy } from '../../helpers/tcp-proxy.ts';
import { brokerUrl } from '../../helpers/brokers.ts';
import { brokerMessage, publishError, silentServer, until } from './helpers.ts';

const mqttUrl = brokerUrl('mqtt');

describe('the MQTT publisher, without a broker', () => {
  it('a broker that accepts the connection but never answers is a timeout', async () => {
    const publisher = createMqttPublisher({ allowPrivateNetworks: true });
    const stalled = await silentServer();
    const started = performance.now();
    const err = await publishError(
      publisher.publish(
        { url: `mqtt://127.0.0.1:${stalled.port}`, topic: 't' },
        brokerMessage(),
        AbortSignal.timeout(300),
      ),
    );
    expect(err.errorClass).toBe('timeout');
    expect(performance.now() - started).toBeLessThan(2000);
    await stalled.close();
    await publisher.close();
  });

  it('a connection lost before the PUBACK fails the publish as a connection failure', async () => {
    const publisher = createMqttPublisher({ allowPrivateNetworks: true });
    // A broker that accepts the CONNECT (a CONNACK of MQTT 5) and drops the connection at the
    // PUBLISH.
    const server = net.createServer((socket) => {
      let connected = false;
      socket.on('data', () => {
        if (connected) return socket.destroy();
        connected = true;
        socket.write(Buffer.from([0x20, 0x03, 0x00, 0x00, 0x00]));
      });
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as net.AddressInfo;
    const err = await publishError(
      publisher.publish(
        { url: `mqtt://127.0.0.1:${port}`, topic: 't' },
        brokerMessage(),
        AbortSignal.timeout(5000),
      ),
    );
    expect(err).toMatchObject({ errorClass: 'connect', message: 'Connection closed' });
    await publisher.close();
    await new Promise((resolve) => server.close(resolve));
  });

  it('refuses a non-public broker unless private networks are allowed (blocked_address)', async () => {
    const strict = createMqttPublisher({ allowPrivateNetworks: false });
    const err = await publishError(
      strict.publish(
        { url: 'mqtt://127.0.0.1:1', topic: 't' },
        brokerMessage(),
        AbortSignal.timeout(1000),
      ),
    );
    expect(err).toMatchObject({
      errorClass: 'blocked_address',
      message: 'blocked: non-public address',
    });
    await strict.close();
  });
});

describe.skipIf(!mqttUrl)('the MQTT publisher', () => {
  const topic = `clipgate-test/publisher/${process.pid}/${Date.now()}`;
  let proxy: TcpProxy;
  let publisher: Publisher;
  let subscriber: MqttClient;
  const heard: { body: string; props: unknown; retain: boolean; contentType: unknown }[] = [];

  beforeAll(async () => {
    const broker = new URL(mqttUrl!);
    proxy = await startTcpProxy(broker.hostname, Number(broker.port || 1883));
    publisher = createMqttPublisher({ allowPrivateNetworks: true });
    subscriber = await connectAsync(mqttUrl!, { protocolVersion: 5 });
    subscriber.on('message', (_topic, payload, packet) =>
      heard.push({
        body: payload.toString(),
        props: packet.properties?.userProperties,
        retain: packet.retain,
        contentType: packet.properties?.contentType,
      }),
    );
    await subscriber.subscribeAsync(topic, { qos: 1 });
  });
  afterAll(async () => {
    await publisher?.close();
    await subscriber?.endAsync();
    await proxy?.close();
  });

  it('publishes on one pooled connection per credentials, QoS 1, not retained, headers as user properties', async () => {
    const target = { url: proxy.via(mqttUrl!), topic };
    const messages = Array.from({ length: 20 }, () => brokerMessage());
    await Promise.all(messages.map((m) => publisher.publish(target, m, AbortSignal.timeout(5000))));
    expect(proxy.accepted).toBe(1);
    await publisher.publish(
      { ...target, username: 'other', password: 'secret' },
      brokerMessage(),
      AbortSignal.timeout(5000),
    );
    expect(proxy.accepted).toBe(2);
    await until(() => heard.length === 21, 'the messages');
    const { 'content-type': contentType, ...userProperties } = messages[0]!.headers;
    expect(heard[0]).toEqual({
      body: messages[0]!.body.toString(),
      props: userProperties,
      retain: false,
      contentType,
    });
  });

  it('connects again once the broker went away', async () => {
    const target = { url: proxy.via(mqttUrl!), topic };
    const before = proxy.accepted;
    proxy.cut();
    proxy.restore();
    await until(() => proxy.connected === 0, 'the connections dropped');
    await publisher.publish(target, brokerMessage(), AbortSignal.timeout(5000));
    expect(proxy.accepted).toBe(before + 1);
  });
});
