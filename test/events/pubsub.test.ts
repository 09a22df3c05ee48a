import { randomUUID } from 'node:crypto';
import net from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { TopicMessage } from '../../src/events/live/stream.ts';
import { createEventBus, type EventBus } from '../../src/events/pubsub.ts';
import { createLogger } from '../../src/logger.ts';
import { ownCluster, type OwnCluster } from '../helpers/redis-cluster.ts';
import { redisClusterNodes, redisUrl, waitFor } from './live-helpers.ts';

/** A TCP proxy to Redis whose connections the test can cut, as a network outage would. */
async function redisProxy(target: URL) {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port || 6379), target.hostname);
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      sockets.add(from);
      from.pipe(to);
      from.on('error', () => to.destroy());
      from.on('close', () => {
        sockets.delete(from);
        to.destroy();
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `redis://127.0.0.1:${port}${target.pathname}`,
    cut: () => sockets.forEach((socket) => socket.destroy()),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const message = (eventId: string): TopicMessage => ({
  events: [
    {
      eventId,
      accountId: randomUUID(),
      accessoryId: null,
      eventType: 'motion_started',
      eventData: {},
      occurredAt: new Date().toISOString(),
      prev: null,
    },
  ],
});

describe.runIf(redisUrl)('the Redis event bus', () => {
  const undo: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const step of undo.splice(0).reverse()) await step();
  });

  it('tells its listeners when it reconnected, listening again on every topic', async () => {
    const proxy = await redisProxy(new URL(redisUrl!));
    undo.push(proxy.close);
    const bus: EventBus = await createEventBus(
      { url: proxy.url },
      createLogger('silent'),
      () => {},
    );
    undo.push(() => bus.close());
    const topic = `clipgate:events:test:${randomUUID()}`;
    const received: TopicMessage[] = [];
    const listener = bus.listen(topic, (m) => received.push(m));
    await listener.ready;
    bus.publish(topic, message('1'));
    await waitFor(() => received.length === 1, 'the first message');

    let stopped = 0;
    let kept = 0;
    const stop = bus.onReconnect(() => stopped++);
    bus.onReconnect(() => kept++);
    proxy.cut();
    await waitFor(() => stopped === 1 && kept === 1, 'the reconnect notices');
    bus.publish(topic, message('2'));
    await waitFor(() => received.length === 2, 'a message after the reconnection');

    stop();
    proxy.cut();
    await waitFor(() => kept === 2, 'the second reconnect notice');
    bus.publish(topic, message('3'));
    await waitFor(() => received.length === 3, 'a message after the second reconnection');
    expect(received.map((m) => m.events[0]!.eventId)).toEqual(['1', '2', '3']);
    expect(stopped).toBe(1);
    listener.stop();
  });
});

// A cluster of the test's own (ports 7301-7303): it stops one of its masters.
describe.runIf(redisClusterNodes)('the sharded event bus on a Redis Cluster', () => {
  let cluster: OwnCluster;
  const undo: (() => Promise<void>)[] = [];
  beforeAll(async () => {
    cluster = await ownCluster(7301);
  });
  afterEach(async () => {
    for (const step of undo.splice(0).reverse()) await step();
  });
  afterAll(() => cluster?.destroy());

  const bus = async () => {
    const b = await createEventBus(
      { clusterNodes: cluster.ports.map((port) => ({ host: '127.0.0.1', port })) },
      createLogger('silent'),
      () => {},
    );
    undo.push(() => b.close());
    return b;
  };

  /** A topic on each master, in the order of `cluster.ports`. */
  async function topicPerMaster(): Promise<string[]> {
    const found = new Map<number, string>();
    while (found.size < cluster.ports.length) {
      const topic = `clipgate:events:test:${randomUUID()}`;
      const port = await cluster.masterOf(topic);
      if (!found.has(port)) found.set(port, topic);
    }
    return cluster.ports.map((port) => found.get(port)!);
  }

  it("carries each shard's messages to another instance, and after a master comes back listens again and says so", async () => {
    const [publisher, subscriber] = [await bus(), await bus()];
    const topics = await topicPerMaster();
    const received = new Map<string, string[]>(topics.map((t) => [t, []]));
    const listeners = topics.map((topic) =>
      subscriber.listen(topic, (m) => received.get(topic)!.push(m.events[0]!.eventId)),
    );
    await Promise.all(listeners.map((l) => l.ready));
    topics.forEach((topic) => publisher.publish(topic, message(`${topic}-1`)));
    for (const topic of topics) {
      await waitFor(() => received.get(topic)!.length === 1, `the first message of ${topic}`);
    }
    let reconnected = 0;
    subscriber.onReconnect(() => reconnected++);

    // The first master goes away: the other shards go on.
    const [gone, ...others] = topics;
    await cluster.stop(cluster.ports[0]!);
    others.forEach((topic) => publisher.publish(topic, message(`${topic}-2`)));
    for (const topic of others) {
      await waitFor(() => received.get(topic)!.length === 2, `${topic} while a master is away`);
    }

    await cluster.restore();
    await waitFor(() => reconnected >= 1, 'the reconnect notice', 20_000);
    publisher.publish(gone!, message(`${gone}-3`));
    await waitFor(() => received.get(gone!)!.length === 2, 'a message after the master came back');
    expect(received.get(gone!)).toEqual([`${gone}-1`, `${gone}-3`]);
    for (const topic of others) expect(received.get(topic)).toEqual([`${topic}-1`, `${topic}-2`]);
    listeners.forEach((l) => l.stop());
  }, 60_000);

  it('follows a channel whose slot moved to another master, and says so', async () => {
    const [publisher, subscriber] = [await bus(), await bus()];
    const topic = `clipgate:events:test:${randomUUID()}`;
    const received: string[] = [];
    let reconnected = 0;
    subscriber.onReconnect(() => reconnected++);
    const listener = subscriber.listen(topic, (m) => received.push(m.events[0]!.eventId));
    await listener.ready;
    // Its connection to the master is new: its first 'ready' is a notice too.
    await waitFor(() => reconnected === 1, 'the notice of the first connection');
    const from = await cluster.masterOf(topic);
    const to = cluster.ports.find((port) => port !== from)!;
    await cluster.moveSlotOf(topic, to);
    expect(await cluster.masterOf(topic)).toBe(to);
    // The subscriber reads the slot map every 5 s: it subscribes on the new master, then says so.
    await waitFor(() => reconnected >= 2, 'the notice after the move', 20_000);
    publisher.publish(topic, message('1'));
    await waitFor(() => received.length === 1, 'a message on the new master');
    listener.stop();
  }, 60_000);

  it('starts while the cluster is away, and listens once it is up', async () => {
    const late = await ownCluster(7321, false);
    undo.push(() => late.destroy());
    const target = { clusterNodes: late.ports.map((port) => ({ host: '127.0.0.1', port })) };
    const [publisher, subscriber] = await Promise.all(
      [0, 1].map(() => createEventBus(target, createLogger('silent'), () => {})),
    );
    undo.push(
      () => publisher!.close(),
      () => subscriber!.close(),
    );
    const topic = `clipgate:events:test:${randomUUID()}`;
    const received: string[] = [];
    const listener = subscriber!.listen(topic, (m) => received.push(m.events[0]!.eventId));
    let ready = false;
    void listener.ready.then(() => (ready = true));
    await late.restore();
    await waitFor(() => ready, 'the topic subscribed once the cluster is up', 20_000);
    publisher!.publish(topic, message('1'));
    await waitFor(() => received.length === 1, 'a message once the cluster is up');
    listener.stop();
  }, 60_000);
});
