/**
 * The NATS publisher against the JetStream server of TEST_NATS_URL, with a stream of the test's
 * own; brokers that refuse or stall are loopback servers of the test, and one that wants a
 * password is a nats-server the test starts.
 */
import { jetstream, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { connect, nanos, type NatsConnection } from '@nats-io/transport-node';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNatsPublisher } from '../../../src/notifications/destinations/nats.ts';
import type { Publisher } from '../../../src/notifications/destinations/types.ts';
import { serversRequired } from '../../helpers/app.ts';
import { brokerUrl } from '../../helpers/brokers.ts';
import { startTcpProxy, type TcpProxy } from '../../helpers/tcp-proxy.ts';
import {
  brokerMessage,
  closedPort,
  listening,
  publishError,
  silentServer,
  until,
} from './helpers.ts';

const natsUrl = brokerUrl('nats');
const natsServer = process.env.NATS_SERVER_PATH ?? 'nats-server';
const hasNatsServer = spawnSync(natsServer, ['--version']).status === 0;

describe.skipIf(!natsUrl)('the NATS publisher', () => {
  const url = new URL(natsUrl ?? 'nats://127.0.0.1:4222');
  const id = randomUUID().replaceAll('-', '');
  const stream = `clipgate_test_${id}`;
  const subject = `clipgate.test.${id}`;
  let client: NatsConnection;
  let jsm: JetStreamManager;
  let proxy: TcpProxy;
  let publisher: Publisher;
  let target: { url: string; topic: string };
  const stored = async () => (await jsm.streams.info(stream)).state.messages;

  beforeAll(async () => {
    client = await connect({ servers: url.host });
    jsm = await jetstreamManager(client);
    await jsm.streams.add({
      name: stream,
      subjects: [`${subject}.>`],
      duplicate_window: nanos(60_000),
    });
    proxy = await startTcpProxy(url.hostname, Number(url.port || 4222));
    target = { url: `nats://127.0.0.1:${proxy.port}`, topic: `${subject}.events` };
    publisher = createNatsPublisher({ allowPrivateNetworks: true });
  });
  afterAll(async () => {
    await publisher?.close();
    await jsm?.streams.delete(stream);
    await client?.close();
    await proxy?.close();
  });

  it('publishes the body and the signature headers to the stream, and a consumer gets them', async () => {
    const message = brokerMessage({ eventType: 'activity_created', eventData: { n: 1 } });
    await publisher.publish(target, message, AbortSignal.timeout(5_000));
    const consumer = await jetstream(client).consumers.get(stream);
    const got = await consumer.next({ expires: 5_000 });
    expect(got?.subject).toBe(target.topic);
    expect(got?.string()).toBe(message.body.toString());
    for (const [name, value] of Object.entries(message.headers)) {
      expect([name, got?.headers?.get(name)]).toEqual([name, value]);
    }
    expect(got?.headers?.get('Nats-Msg-Id')).toBe(message.id);
  });

  it('publishes a repeated webhook-id once: the stream drops the repeat', async () => {
    const before = await stored();
    const message = brokerMessage();
    await publisher.publish(target, message, AbortSignal.timeout(5_000));
    await publisher.publish(target, message, AbortSignal.timeout(5_000));
    expect(await stored()).toBe(before + 1);
    await publisher.publish(target, brokerMessage(), AbortSignal.timeout(5_000));
    expect(await stored()).toBe(before + 2);
  });

  it('pools one connection per broker and credentials, and reconnects once it is lost', async () => {
    const before = proxy.accepted;
    await Promise.all(
      [1, 2, 3].map(() => publisher.publish(target, brokerMessage(), AbortSignal.timeout(5_000))),
    );
    expect(proxy.accepted).toBe(before === 0 ? 1 : before);
    proxy.cut();
    proxy.restore();
    // The client dials again by itself (after 2 s); what it had sent into the cut connection
    // is lost, as any publish would be whose connection breaks (the attempt times out).
    await until(() => proxy.accepted === Math.max(before, 1) + 1, 'the reconnection', 10_000);
    await publisher.publish(target, brokerMessage(), AbortSignal.timeout(5_000));
    expect(proxy.accepted).toBe(Math.max(before, 1) + 1);
  });

  it('resolves only on the PubAck: one that never comes is a timeout', async () => {
    const own = createNatsPublisher({ allowPrivateNetworks: true });
    try {
      await own.publish(target, brokerMessage(), AbortSignal.timeout(5_000)); // connected
      const before = await stored();
      const message = brokerMessage({ marker: randomUUID() });
      // The message reaches the stream, but nothing comes back on that connection.
      const lost = proxy.loseAnswer(JSON.parse(message.body.toString()).marker);
      const err = await publishError(own.publish(target, message, AbortSignal.timeout(500)));
      expect(err.errorClass).toBe('timeout');
      expect(err.message).toMatch(/PubAck/);
      await lost;
      expect(await stored()).toBe(before + 1);
    } finally {
      const closing = Date.now();
      await own.close();
      expect(Date.now() - closing).toBeLessThan(3_000);
    }
  });

  it('fails a publish whose connection closes before its PubAck as a connection failure', async () => {
    const own = createNatsPublisher({ allowPrivateNetworks: true });
    await own.publish(target, brokerMessage(), AbortSignal.timeout(5_000)); // connected
    const message = brokerMessage({ marker: randomUUID() });
    const lost = proxy.loseAnswer(JSON.parse(message.body.toString()).marker);
    const publishing = publishError(own.publish(target, message, AbortSignal.timeout(5_000)));
    await lost;
    await own.close();
    const err = await publishing;
    expect(err.message).toBe('the connection to the broker closed before the PubAck');
    expect(err.errorClass).toBe('connect');
  });

  it('fails a subject no stream takes, saying so', async () => {
    const err = await publishError(
      publisher.publish(
        { ...target, topic: `clipgate.nostream.${id}` },
        brokerMessage(),
        AbortSignal.timeout(5_000),
      ),
    );
    expect(err.errorClass).toBe('protocol');
    expect(err.message).toBe(`no JetStream stream takes the subject 'clipgate.nostream.${id}'`);
  });

  it('fails at once on a refused connection, and waits a back-off before trying again', async () => {
    const refused = { ...target, url: `nats://127.0.0.1:${await closedPort()}` };
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
    expect(again.message).toMatch(/ECONNREFUSED.*tried again in 1 s/);
  });

  it('gives up on a stalled broker when the signal aborts, and other brokers go on', async () => {
    const silent = await silentServer();
    try {
      const started = Date.now();
      const err = await publishError(
        publisher.publish(
          { ...target, url: `nats://127.0.0.1:${silent.port}` },
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

  // A nats-server of its own (NATS_SERVER_PATH, else the PATH's); on CI its absence fails.
  it.skipIf(!hasNatsServer && !serversRequired)('fails wrong credentials clearly', async () => {
    if (!hasNatsServer) throw new Error(`no ${natsServer} to run (NATS_SERVER_PATH names one)`);
    const port = await closedPort();
    const server: ChildProcess = spawn(
      natsServer,
      ['-a', '127.0.0.1', '-p', String(port), '--user', 'clipgate', '--pass', 'right-password'],
      { stdio: 'ignore' },
    );
    try {
      await listening(port);
      const broker = { ...target, url: `nats://127.0.0.1:${port}`, username: 'clipgate' };
      const err = await publishError(
        publisher.publish(
          { ...broker, password: 'wrong-password' },
          brokerMessage(),
          AbortSignal.timeout(5_000),
        ),
      );
      expect(err.errorClass).toBe('protocol');
      expect(err.message).toMatch(/Authorization Violation/);
      // The right password logs in: that server has no JetStream, which is the next failure.
      const next = await publishError(
        publisher.publish(
          { ...broker, password: 'right-password' },
          brokerMessage(),
          AbortSignal.timeout(5_000),
        ),
      );
      expect(next.message).toMatch(/no JetStream stream takes the subject/);
    } finally {
      server.kill();
    }
  });

  it('refuses a loopback broker unless private networks are allowed', async () => {
    const strict = createNatsPublisher({ allowPrivateNetworks: false });
    const accepted = proxy.accepted;
    try {
      const err = await publishError(
        strict.publish(target, brokerMessage(), AbortSignal.timeout(5_000)),
      );
      expect(err.errorClass).toBe('blocked_address');
      expect(err.message).toMatch(/non-public address/);
      expect(proxy.accepted).toBe(accepted);
    } finally {
      await strict.close();
    }
  });

  it('closes every connection on close, and publishes no more', async () => {
    const own = createNatsPublisher({ allowPrivateNetworks: true });
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
