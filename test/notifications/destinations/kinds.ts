/**
 * What the end-to-end tests of the broker kinds share, one entry per kind: the destination of a
 * registration that publishes under a root of the test's own, and an inbox at the broker that
 * keeps what is published under it (a durable queue, a stream with a durable consumer, a
 * persistent session), read by the kind's example consumer from examples/, which verifies every
 * message's signature with `clipgate/receiver` and drops repeats by webhook-id.
 */
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect as connectNats, type NatsConnection } from '@nats-io/transport-node';
import { connect as connectAmqp, type ChannelModel } from 'amqplib';
import { randomUUID } from 'node:crypto';
import { bindQueue, consumeNotifications as consumeAmqp } from '../../../examples/amqp-consumer.ts';
import { mqttSubscriber } from '../../../examples/mqtt-subscriber.ts';
import {
  consumeNotifications as consumeNats,
  createStream,
} from '../../../examples/nats-consumer.ts';
import { graphql } from '../../generated/index.ts';

export type BrokerKind = 'mqtt' | 'amqp' | 'nats';

/** A registration of any kind over GraphQL, answering what says where it goes. */
export const RegisterDestination = graphql(`
  mutation RegisterDestination($input: RegisterNotificationsInput!) {
    registerNotifications(input: $input) {
      url
      kind
      topic
      exchange
      hasCredentials
    }
  }
`);

export const ReplayRange = graphql(`
  mutation ReplayRange($accountId: ID!, $from: DateTime!, $to: DateTime!, $onlyFailed: Boolean) {
    replayNotifications(accountId: $accountId, from: $from, to: $to, onlyFailed: $onlyFailed) {
      queued
    }
  }
`);

/** A notification as a consumer took it (verified, the first of its webhook-id). */
export interface Taken {
  webhookId: string;
  eventType: string;
  accountId: string;
  accessoryId: string | null;
  activityId: string | null;
  sequence: number | null;
}

/** A registration's destination fields. */
export interface Destination {
  kind: BrokerKind;
  url: string;
  topic: string;
  exchange?: string;
  username?: string;
  password?: string;
}

export interface Inbox {
  /**
   * Starts the kind's example consumer: each notification that verifies, once per webhook-id,
   * goes to `onTaken` (the consumer's memory of webhook-ids lasts until `pause`).
   */
  consume(onTaken: (taken: Taken) => void): Promise<void>;
  /** Stops the consumer; what is published meanwhile waits in the broker for the next one. */
  pause(): Promise<void>;
  /** Stops the consumer and removes the inbox from the broker. */
  close(): Promise<void>;
}

export interface KindHarness {
  kind: BrokerKind;
  /** A root for one test's messages: no other test's publishes land in its inbox. */
  root(): string;
  /** The destination of a registration publishing under `root` to the broker at client `url`. */
  destination(url: string, root: string): Destination;
  /** A URL of the kind at a loopback port, with nothing else (a broker that refuses, say). */
  at(port: number): string;
  /** An inbox at client `url` of what is published under `root`, verified with `authKey`. */
  inbox(url: string, root: string, authKey: string): Promise<Inbox>;
}

const takenOf = (n: Record<string, unknown>, webhookId: string): Taken => {
  const data = (n.eventData ?? {}) as Record<string, unknown>;
  return {
    webhookId,
    eventType: String(n.eventType),
    accountId: String(n.accountId),
    accessoryId: typeof data.accessoryId === 'string' ? data.accessoryId : null,
    activityId: typeof data.activityId === 'string' ? data.activityId : null,
    sequence: typeof data.sequence === 'number' ? data.sequence : null,
  };
};

/** The placeholders every kind's topic carries after the root, in its separator. */
const template = (root: string, separator: string) =>
  [root, '{accountId}', '{accessoryId}', '{eventType}'].join(separator);

const mqtt: KindHarness = {
  kind: 'mqtt',
  root: () => `clipgate-test/${randomUUID()}`,
  destination: (url, root) => ({ kind: 'mqtt', url, topic: template(root, '/') }),
  at: (port) => `mqtt://127.0.0.1:${port}`,
  async inbox(url, root, authKey) {
    // A persistent session: the broker keeps what comes for it while no subscriber is there.
    const clientId = `clipgate-test-${randomUUID().slice(0, 8)}`;
    const subscribe = (onTaken: (taken: Taken) => void) =>
      mqttSubscriber(
        {
          url,
          topic: `${root}/#`,
          authKey,
          clientId,
          clean: false,
          properties: { sessionExpiryInterval: 600 },
        },
        (a) =>
          onTaken({
            webhookId: a.event_data.webhook_id,
            eventType: a.event_type.replace(/^clipgate_/, ''),
            accountId: a.event_data.account_id,
            accessoryId: a.event_data.accessory_id,
            activityId: a.event_data.activity_id,
            sequence: a.event_data.sequence,
          }),
      );
    await (await subscribe(() => {})).endAsync();
    let client: Awaited<ReturnType<typeof subscribe>> | undefined;
    const inbox: Inbox = {
      async consume(onTaken) {
        client = await subscribe(onTaken);
      },
      async pause() {
        await client?.endAsync();
        client = undefined;
      },
      async close() {
        await inbox.pause();
        // A clean session of the same client id ends the kept one.
        const clean = await mqttSubscriber(
          { url, topic: `${root}/#`, authKey, clientId },
          () => {},
        );
        await clean.endAsync();
      },
    };
    return inbox;
  },
};

const amqp: KindHarness = {
  kind: 'amqp',
  root: () => `clipgate.test.${randomUUID()}`,
  destination(url, root) {
    const u = new URL(url);
    return {
      kind: 'amqp',
      url: `amqp://${u.host}/`,
      username: decodeURIComponent(u.username),
      password: decodeURIComponent(u.password),
      exchange: 'amq.topic',
      topic: template(root, '.'),
    };
  },
  at: (port) => `amqp://127.0.0.1:${port}/`,
  async inbox(url, root, authKey) {
    const queue = `clipgate-test-${randomUUID()}`;
    /** Runs `use` on a channel of a connection of its own. */
    const admin = async (
      use: (c: Awaited<ReturnType<ChannelModel['createChannel']>>) => unknown,
    ) => {
      const connection = await connectAmqp(url);
      try {
        await use(await connection.createChannel());
      } finally {
        await connection.close();
      }
    };
    // Durable, for persistent messages to outlive a broker restart; gone after 10 minutes
    // without a consumer, should the test not get to delete it.
    await admin((channel) =>
      bindQueue(channel, queue, 'amq.topic', `${root}.#`, { arguments: { 'x-expires': 600_000 } }),
    );
    let consumer: ChannelModel | undefined;
    const inbox: Inbox = {
      async consume(onTaken) {
        consumer = await connectAmqp(url);
        const channel = await consumer.createChannel();
        await channel.prefetch(256);
        await consumeAmqp(channel, queue, authKey, (n, id) => onTaken(takenOf(n, id)));
      },
      async pause() {
        await consumer?.close();
        consumer = undefined;
      },
      async close() {
        await inbox.pause();
        await admin((channel) => channel.deleteQueue(queue));
      },
    };
    return inbox;
  },
};

const nats: KindHarness = {
  kind: 'nats',
  root: () => `clipgate.test.${randomUUID().replaceAll('-', '')}`,
  destination: (url, root) => ({ kind: 'nats', url, topic: template(root, '.') }),
  at: (port) => `nats://127.0.0.1:${port}`,
  async inbox(url, root, authKey) {
    const stream = `clipgate_test_${randomUUID().replaceAll('-', '')}`;
    const servers = new URL(url).host;
    const admin = async (use: (jsm: Awaited<ReturnType<typeof jetstreamManager>>) => unknown) => {
      const connection = await connectNats({ servers });
      try {
        await use(await jetstreamManager(connection));
      } finally {
        await connection.close();
      }
    };
    // A stream on file (the default storage), with a durable consumer: both outlive a restart.
    await admin((jsm) => createStream(jsm, stream, `${root}.>`, 'inbox'));
    let consumer: { connection: NatsConnection; consuming: Promise<void> } | undefined;
    const inbox: Inbox = {
      async consume(onTaken) {
        // The example's own connection: closing it ends its loop.
        const connection = await connectNats({ servers });
        const durable = await jetstream(connection).consumers.get(stream, 'inbox');
        consumer = {
          connection,
          consuming: consumeNats(durable, authKey, (n, id) => onTaken(takenOf(n, id))),
        };
      },
      async pause() {
        await consumer?.connection.close();
        await consumer?.consuming;
        consumer = undefined;
      },
      async close() {
        await inbox.pause();
        await admin((jsm) => jsm.streams.delete(stream));
      },
    };
    return inbox;
  },
};

export const harnesses = { mqtt, amqp, nats } as const;
