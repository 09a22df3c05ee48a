import calculateSlot from 'cluster-key-slot';
import { Cluster, Redis } from 'ioredis';
import type { Logger } from '../logger.ts';
import { withoutCaller } from '../storage/tenancy.ts';
import { catchUpAfter, connectWithin, reportOutages } from './bus-connections.ts';
import type { LiveBus } from './live/ports.ts';
import type { TopicMessage } from './live/stream.ts';

/** How often the cluster's slot map is read again, to follow a failover or a resharding. */
const SLOTS_REFRESH_MS = 5000;
/** How many times a subscription follows its slot to another node (MOVED) before it fails. */
const MAX_MOVES = 3;

/**
 * The event bus on a Redis Cluster (REDIS_CLUSTER_NODES): sharded pub/sub (Redis 7). A topic is
 * published with SPUBLISH to the master of its slot, which sends it to the subscribers of that
 * shard only, and listened to with SSUBSCRIBE on a connection of this instance to that master
 * (one per master with topics). When a master's connection comes back (the node restarted, or
 * the network), its topics are subscribed again; when the slot map says a slot moved (a replica
 * promoted, a resharding; read every SLOTS_REFRESH_MS and when a connection closes), its topics
 * move to the new master. Either way the listeners are then called back to catch up from the
 * event log, as on one Redis server (./pubsub.ts).
 */
export async function shardedBus(
  nodes: { host: string; port: number }[],
  logger: Logger,
  resubscribeTimedOut: () => void,
): Promise<LiveBus & { close(): Promise<void> }> {
  const publisher = new Cluster(nodes, {
    lazyConnect: true,
    slotsRefreshInterval: SLOTS_REFRESH_MS,
    redisOptions: { connectionName: 'clipgate-publish' },
  });
  reportOutages(publisher, 'publish', logger);
  await connectWithin([publisher.connect()], logger);

  const target = new EventTarget();
  /** Each topic listened to, with its listeners and the master it is subscribed on. */
  const topics = new Map<string, { listeners: number; node?: string }>();
  const subscribers = new Map<string, Redis>();
  const reconnectCallbacks = new Set<() => void>();
  let closing = false;
  const catchUp = (resubscribed: Promise<unknown>) =>
    catchUpAfter(resubscribed, reconnectCallbacks, logger, resubscribeTimedOut);
  const failed = (what: string, channel: string) => (err: unknown) => {
    logger.warn({ err, channel }, `${what} failed`);
  };

  const ownerOf = (topic: string): string | undefined => publisher.slots[calculateSlot(topic)]?.[0];
  const refreshSlots = () =>
    new Promise<void>((resolve) => publisher.refreshSlotsCache(() => resolve()));

  /** The connection to the master `node` ("host:port") on which its topics are subscribed. */
  function subscriberOf(node: string): Redis {
    const existing = subscribers.get(node);
    if (existing) return existing;
    const at = node.lastIndexOf(':');
    // Made on the first subscription to one of its slots, in that request; it serves everyone's.
    const subscriber = withoutCaller(
      () =>
        new Redis({
          host: node.slice(0, at),
          port: Number(node.slice(at + 1)),
          connectionName: 'clipgate-subscribe',
          // This bus subscribes again itself, and knows when that is done.
          autoResubscribe: false,
        }),
    );
    reportOutages(subscriber, `subscribe ${node}`, logger);
    subscriber.on('smessage', (channel: string, message: string) => {
      target.dispatchEvent(
        new CustomEvent(channel, { detail: JSON.parse(message) as TopicMessage }),
      );
    });
    // Every 'ready' is a (re)connection: what was published meanwhile is in the log.
    subscriber.on('ready', () => {
      const mine = [...topics].filter(([, t]) => t.node === node).map(([topic]) => topic);
      catchUp(Promise.all(mine.map(place)));
    });
    // The node may be gone for good (a replica took its slots): read the slot map again.
    subscriber.on('close', () => {
      if (!closing) publisher.refreshSlotsCache();
    });
    subscribers.set(node, subscriber);
    return subscriber;
  }

  /** Subscribes `topic` on the master of its slot, following it when it moved. */
  async function place(topic: string): Promise<void> {
    for (let moves = 0; ; moves++) {
      const entry = topics.get(topic);
      if (!entry) return;
      const node = ownerOf(topic);
      if (!node) {
        // The slot map is not known yet (the cluster is away since the start): wait for it.
        await new Promise((resolve) => publisher.once('refresh', resolve));
        continue;
      }
      entry.node = node;
      try {
        await subscriberOf(node).ssubscribe(topic);
        return;
      } catch (err) {
        if (!String(err).includes('MOVED') || moves >= MAX_MOVES) throw err;
        await refreshSlots();
      }
    }
  }

  // The slot map was read again: topics whose slot moved are subscribed on its new master, and
  // those listened to before any map was known, on theirs.
  publisher.on('refresh', () => {
    const moved = [...topics].filter(([topic, t]) => {
      const owner = ownerOf(topic);
      return owner !== undefined && owner !== t.node;
    });
    if (moved.length === 0) return;
    for (const [topic, t] of moved) {
      if (t.node)
        subscribers
          .get(t.node)
          ?.sunsubscribe(topic)
          .catch(() => {});
    }
    catchUp(Promise.all(moved.map(([topic]) => place(topic))));
  });

  return {
    publish(topic, message) {
      publisher
        .spublish(topic, JSON.stringify(message))
        .catch(failed('publishing a live event', topic));
    },
    listen(topic, listener) {
      const handler = (event: Event) => listener((event as CustomEvent<TopicMessage>).detail);
      target.addEventListener(topic, handler);
      const entry = topics.get(topic) ?? { listeners: 0 };
      entry.listeners++;
      topics.set(topic, entry);
      // SSUBSCRIBE is idempotent and answered in order: its answer says the topic is live.
      const ready = place(topic);
      ready.catch(failed('subscribing to a channel', topic));
      return {
        ready,
        stop: () => {
          target.removeEventListener(topic, handler);
          if (--entry.listeners > 0) return;
          topics.delete(topic);
          const node = entry.node && subscribers.get(entry.node);
          if (node) node.sunsubscribe(topic).catch(failed('unsubscribing from a channel', topic));
        },
      };
    },
    onReconnect: (callback) => {
      reconnectCallbacks.add(callback);
      return () => reconnectCallbacks.delete(callback);
    },
    close: async () => {
      closing = true;
      for (const subscriber of subscribers.values()) subscriber.disconnect();
      await publisher.quit().catch(() => publisher.disconnect());
    },
  };
}
