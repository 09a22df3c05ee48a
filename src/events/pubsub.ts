import { createRedisEventTarget } from '@graphql-yoga/redis-event-target';
import { createPubSub } from 'graphql-yoga';
import { Redis } from 'ioredis';
import type { RedisTarget } from '../config.ts';
import type { Logger } from '../logger.ts';
import { catchUpAfter, connectWithin, reportOutages } from './bus-connections.ts';
import type { LiveBus } from './live/ports.ts';
import type { TopicMessage } from './live/stream.ts';
import { shardedBus } from './sharded-pubsub.ts';

/**
 * The one pub/sub that feeds live subscriptions: Yoga's `createPubSub` over an in-process
 * EventTarget, or over `@graphql-yoga/redis-event-target` when REDIS_URL is set (sharded pub/sub
 * on a Redis Cluster, ./sharded-pubsub.ts), so that a subscriber on one instance sees what
 * another instance committed. Publishers hand it only
 * committed events. The caller closes it after the live events that use it.
 */
export interface EventBus extends LiveBus {
  close(): Promise<void>;
}

type MessageEvent = CustomEvent<TopicMessage>;

/**
 * `resubscribeTimedOut` is called when Redis, back after an outage, does not confirm the live
 * channels within `defaultBounds.listenMs`: the subscribers catch up from the log all the same.
 */
export async function createEventBus(
  redis: RedisTarget | undefined,
  logger: Logger,
  resubscribeTimedOut: () => void,
): Promise<EventBus> {
  if (!redis) return memoryBus();
  return 'url' in redis
    ? redisBus(redis.url, logger, resubscribeTimedOut)
    : shardedBus(redis.clusterNodes, logger, resubscribeTimedOut);
}

function memoryBus(): EventBus {
  const target = new EventTarget();
  const pubsub = createPubSub<Record<string, [TopicMessage]>>({ eventTarget: target });
  return {
    publish: (topic, message) => pubsub.publish(topic, message),
    listen(topic, listener) {
      const handler = (event: Event) => listener((event as MessageEvent).detail);
      target.addEventListener(topic, handler);
      return {
        ready: Promise.resolve(),
        stop: () => target.removeEventListener(topic, handler),
      };
    },
    // In process, nothing is ever lost.
    onReconnect: () => () => {},
    close: async () => {},
  };
}

async function redisBus(
  url: string,
  logger: Logger,
  resubscribeTimedOut: () => void,
): Promise<EventBus> {
  const publisher = new Redis(url, { lazyConnect: true, connectionName: 'clipgate-publish' });
  const subscriber = new Redis(url, { lazyConnect: true, connectionName: 'clipgate-subscribe' });
  reportOutages(publisher, 'publish', logger);
  reportOutages(subscriber, 'subscribe', logger);
  // The clients' first 'ready' counts as a reconnection below.
  await connectWithin([publisher.connect(), subscriber.connect()], logger);

  // redis-event-target drops the promises of PUBLISH, SUBSCRIBE and UNSUBSCRIBE; a failure
  // (the connection closed or gone for too long) must be logged, not crash the process as an
  // unhandled rejection. Subscribers repair a lost message from the event log as soon as a later
  // one of the same stream arrives, the bus reconnects, or the live core's periodic check finds
  // it (src/events/live/bounds.ts); `listen` subscribes again itself.
  const failed = (what: string, channel: string) => (err: unknown) => {
    logger.warn({ err, channel }, `${what} failed`);
    return 0;
  };
  const publishClient = {
    publish: (channel: string, message: string) =>
      publisher.publish(channel, message).catch(failed('publishing a live event', channel)),
  } as unknown as Redis;
  const subscribeClient = {
    on: (event: 'message', listener: (channel: string, message: string) => void) =>
      subscriber.on(event, listener),
    subscribe: (channel: string) =>
      subscriber.subscribe(channel).catch(failed('subscribing to a channel', channel)),
    unsubscribe: (channel: string) =>
      subscriber.unsubscribe(channel).catch(failed('unsubscribing from a channel', channel)),
  } as unknown as Redis;
  const target = createRedisEventTarget<MessageEvent>({ publishClient, subscribeClient });
  const pubsub = createPubSub<Record<string, [TopicMessage]>>({ eventTarget: target });

  const reconnectCallbacks = new Set<() => void>();
  const topics = new Map<string, number>();
  // Every 'ready' from here on is a (re)connection: what committed meanwhile is in the log.
  subscriber.on('ready', () => {
    // ioredis re-subscribes on reconnect; wait for that to be done (a SUBSCRIBE is answered in
    // order) before subscribers look for what they missed.
    const resubscribed = Promise.all(
      [...topics.keys()].map((topic) => subscriber.subscribe(topic)),
    );
    catchUpAfter(resubscribed, reconnectCallbacks, logger, resubscribeTimedOut);
  });

  return {
    publish: (topic, message) => pubsub.publish(topic, message),
    listen(topic, listener) {
      const handler = (event: Event) => listener((event as MessageEvent).detail);
      target.addEventListener(topic, handler);
      topics.set(topic, (topics.get(topic) ?? 0) + 1);
      // The event target subscribes without waiting; SUBSCRIBE is idempotent and answered in
      // order, so the answer to this one says the channel is live.
      const ready = subscriber.subscribe(topic).then(() => undefined);
      ready.catch(() => {});
      return {
        ready,
        stop: () => {
          target.removeEventListener(topic, handler);
          const left = (topics.get(topic) ?? 1) - 1;
          if (left > 0) topics.set(topic, left);
          else topics.delete(topic);
        },
      };
    },
    onReconnect: (callback) => {
      reconnectCallbacks.add(callback);
      return () => reconnectCallbacks.delete(callback);
    },
    close: async () => {
      subscriber.disconnect();
      await publisher.quit().catch(() => publisher.disconnect());
    },
  };
}
