import { randomUUID } from 'node:crypto';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { TopicMessage } from '../../src/events/live/stream.ts';
import { createEventBus, type EventBus } from '../../src/events/pubsub.ts';
import { createLogger } from '../../src/logger.ts';
import { redisUrl, waitFor } from './live-helpers.ts';

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
    const bus: EventBus = await createEventBus(proxy.url, createLogger('silent'), () => {});
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
