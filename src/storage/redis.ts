import { Cluster, Redis, type RedisOptions } from 'ioredis';
import type { RedisTarget } from '../config.ts';
import { withoutCredentials } from '../logger.ts';

/** A connection to one Redis server, or to a Redis Cluster (commands routed by their keys' slot). */
export type RedisClient = Redis | Cluster;

/**
 * A client of `target` with `options`: on a cluster, they apply to each node's connection, and
 * the cluster client takes the ones that decide when a command waits (`lazyConnect`,
 * `enableOfflineQueue`).
 */
export function redisClient(target: RedisTarget, options: RedisOptions): RedisClient {
  if ('url' in target) return new Redis(target.url, options);
  return new Cluster(target.clusterNodes, {
    redisOptions: options,
    lazyConnect: options.lazyConnect ?? false,
    enableOfflineQueue: options.enableOfflineQueue ?? true,
    // A slot whose master is away answers CLUSTERDOWN until it is back or replaced: commands
    // fail then (the callers fall back or catch up) instead of being retried without end.
    retryDelayOnClusterDown: 100,
    maxRedirections: 4,
  });
}

/** Where a target is, for logs: the URL without its credentials, or the cluster's nodes. */
export function describeRedis(target: RedisTarget): string {
  return 'url' in target
    ? withoutCredentials(target.url)
    : `cluster ${target.clusterNodes.map((n) => `${n.host}:${n.port}`).join(',')}`;
}
