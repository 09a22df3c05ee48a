/**
 * The brokers of bench:notify's broker drains (MQTT, AMQP, NATS JetStream): what the bench
 * creates at each for a run and removes after it, a bare client's publish loop with the same
 * client library and receipt as the service's publishers (src/notifications/destinations/), and
 * a consumer that hands over every message with its headers.
 */
import { jetstream, jetstreamManager, StorageType } from '@nats-io/jetstream';
import { connect as natsConnect, headers as natsHeaders } from '@nats-io/transport-node';
import { connect as amqpConnect } from 'amqplib';
import { connectAsync as mqttConnect } from 'mqtt';
import { randomUUID } from 'node:crypto';
import type { BrokerKind } from '../../src/notifications/destinations/destination.ts';

export const brokerKinds = ['mqtt', 'amqp', 'nats'] as const satisfies readonly BrokerKind[];

/** The broker URLs, credentials in them as each client takes them. */
export const defaultBrokerUrls: Record<BrokerKind, string> = {
  mqtt: process.env.TEST_MQTT_URL ?? 'mqtt://127.0.0.1:1883',
  amqp: process.env.TEST_AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672',
  nats: process.env.TEST_NATS_URL ?? 'nats://127.0.0.1:4222',
};

/** The client library and receipt of each kind, as the bench's output names them. */
export const brokerReceipts: Record<BrokerKind, string> = {
  mqtt: 'MQTT.js, MQTT 5, QoS 1, the PUBACK',
  amqp: 'amqplib, a confirm channel, persistent and mandatory, the publisher confirm',
  nats: 'nats.js, a JetStream publish with Nats-Msg-Id, the PubAck',
};

/**
 * What one run puts at a broker, named `name` (unique per run): the registration's destination
 * (its URL without credentials, which go apart), what the consumer takes, and how to remove it.
 */
export interface BrokerFixture {
  destination: {
    kind: BrokerKind;
    url: string;
    topic: string;
    exchange?: string;
    username?: string;
    password?: string;
  };
  /** MQTT: the topic filter; AMQP: the queue; NATS: the subject filter (of the stream). */
  consume: string;
  /** The broker's name and version, as far as its client tells. */
  server: string;
  tearDown(): Promise<void>;
}

/** The registration URL of a broker URL, and its credentials apart. */
function split(url: string) {
  const parsed = new URL(url);
  const username = decodeURIComponent(parsed.username);
  const password = decodeURIComponent(parsed.password);
  parsed.username = '';
  parsed.password = '';
  return {
    url: parsed.toString().replace(/\/$/, ''),
    ...(username !== '' && { username, password }),
  };
}

/**
 * Creates what a consumer needs at the broker: AMQP a topic exchange and a durable queue bound
 * to all of it (persistent messages are written to disk, as a real consumer's queue would have
 * them), NATS a file-backed stream of the run's subjects; MQTT nothing (a subscription is enough,
 * and nothing is retained).
 */
export async function setUpBroker(
  kind: BrokerKind,
  url: string,
  name: string,
): Promise<BrokerFixture> {
  const target = split(url);
  if (kind === 'mqtt') {
    const client = await mqttConnect(url, { protocolVersion: 5, reconnectPeriod: 0 });
    const version = await new Promise<string>((resolve) => {
      const timer = setTimeout(() => resolve('version unknown'), 500);
      client.on('message', (_topic, payload) => {
        clearTimeout(timer);
        resolve(payload.toString());
      });
      client.subscribe('$SYS/broker/version');
    });
    await client.endAsync();
    return {
      destination: { kind, ...target, topic: `${name}/{accountId}/{eventType}` },
      consume: `${name}/#`,
      server: version,
      tearDown: async () => {},
    };
  }
  if (kind === 'amqp') {
    const model = await amqpConnect(url);
    const channel = await model.createChannel();
    await channel.assertExchange(name, 'topic', { durable: false });
    await channel.assertQueue(name, { durable: true });
    await channel.bindQueue(name, name, '#');
    const { product, version } = model.connection.serverProperties;
    await model.close();
    return {
      destination: { kind, ...target, topic: '{accountId}.{eventType}', exchange: name },
      consume: name,
      server: `${product} ${version}`,
      tearDown: async () => {
        const model = await amqpConnect(url);
        const channel = await model.createChannel();
        await channel.deleteQueue(name);
        await channel.deleteExchange(name);
        await model.close();
      },
    };
  }
  const connection = await natsConnect({ servers: url });
  const stream = name.replace(/[^A-Za-z0-9_-]/g, '_');
  await (
    await jetstreamManager(connection)
  ).streams.add({
    name: stream,
    subjects: [`${name}.>`],
    storage: StorageType.File,
    max_msgs: 1_000_000,
  });
  const server = `nats-server ${connection.info?.version ?? ''}`.trim();
  await connection.close();
  return {
    destination: { kind, ...target, topic: `${name}.{accountId}.{eventType}` },
    consume: `${name}.>`,
    server,
    tearDown: async () => {
      const connection = await natsConnect({ servers: url });
      await (await jetstreamManager(connection)).streams.delete(stream);
      await connection.close();
    },
  };
}

/** One message as the service publishes it: the body, and the Standard Webhooks headers. */
export interface BareMessage {
  id: string;
  headers: Record<string, string>;
  body: Buffer;
}

/** A bare client: one connection, publishes awaited to their receipt. */
export interface BarePublisher {
  publish(topic: string, message: BareMessage): Promise<void>;
  close(): Promise<void>;
}

/**
 * A bare client of `kind` on one connection, publishing as the service's publisher does (the
 * same options, the same receipt), without the pool, the signal or the error classes.
 */
export async function barePublisher(
  kind: BrokerKind,
  url: string,
  exchange = '',
): Promise<BarePublisher> {
  if (kind === 'mqtt') {
    const client = await mqttConnect(url, {
      protocolVersion: 5,
      clientId: `clipgate-bench-${randomUUID()}`,
      clean: true,
      reconnectPeriod: 0,
    });
    return {
      publish: (topic, { headers, body }) => {
        const { 'content-type': contentType, ...userProperties } = headers;
        return new Promise((resolve, reject) => {
          client.publish(
            topic,
            body,
            {
              qos: 1,
              retain: false,
              properties: {
                userProperties,
                payloadFormatIndicator: true,
                ...(contentType !== undefined && { contentType }),
              },
            },
            (err) => (err ? reject(err) : resolve()),
          );
        });
      },
      close: () => client.endAsync(),
    };
  }
  if (kind === 'amqp') {
    const model = await amqpConnect(url);
    const channel = await model.createConfirmChannel();
    return {
      publish: (topic, { id, headers, body }) =>
        new Promise((resolve, reject) => {
          channel.publish(
            exchange,
            topic,
            body,
            {
              mandatory: true,
              persistent: true,
              contentType: 'application/json',
              messageId: id,
              headers,
            },
            (err: unknown) => (err ? reject(err as Error) : resolve()),
          );
        }),
      close: () => model.close(),
    };
  }
  const connection = await natsConnect({ servers: url });
  const js = jetstream(connection);
  return {
    publish: async (topic, { id, headers, body }) => {
      const h = natsHeaders();
      for (const [name, value] of Object.entries(headers)) h.set(name, value);
      await js.publish(topic, body, { msgID: id, headers: h });
    },
    close: () => connection.close(),
  };
}

/**
 * Consumes what the run publishes to `kind`'s broker: MQTT a QoS 0 subscription to the topic
 * filter (Mosquitto drops QoS 1 messages for a subscriber more than 1,000 behind; the
 * publishes are QoS 1 all the same), AMQP the queue without acknowledgements, NATS a subscription to the stream's subjects
 * (the messages the stream takes, as they are published). Each message goes to `onMessage` with
 * its body and headers; resolves with a function that stops.
 */
export async function consumeBroker(
  kind: BrokerKind,
  url: string,
  what: string,
  onMessage: (body: Uint8Array, headers: unknown) => void,
): Promise<() => Promise<void>> {
  if (kind === 'mqtt') {
    const client = await mqttConnect(url, { protocolVersion: 5, reconnectPeriod: 0 });
    client.on('message', (_topic, payload, packet) =>
      onMessage(payload, packet.properties?.userProperties),
    );
    await client.subscribeAsync(what, { qos: 0 });
    return () => client.endAsync();
  }
  if (kind === 'amqp') {
    const model = await amqpConnect(url);
    const channel = await model.createChannel();
    await channel.consume(
      what,
      (message) => {
        if (message) onMessage(message.content, message.properties.headers);
      },
      { noAck: true },
    );
    return () => model.close();
  }
  const connection = await natsConnect({ servers: url });
  connection.subscribe(what, {
    callback: (_err, message) => onMessage(message.data, message.headers),
  });
  await connection.flush();
  return () => connection.close();
}
