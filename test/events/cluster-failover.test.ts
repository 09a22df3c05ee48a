import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends, startApp, type TestApp } from '../helpers/app.ts';
import { seedAccessory } from '../helpers/fixtures.ts';
import { ownCluster, type OwnCluster } from '../helpers/redis-cluster.ts';
import {
  accessorySubscriber,
  createActivities,
  loggedIds,
  redisClusterNodes,
  waitFor,
  type WsClient,
} from './live-helpers.ts';

/**
 * Two instances on one PostgreSQL and a Redis Cluster of the test's own (ports 7311-7313), one
 * of whose masters goes away while the other instance commits, and comes back: the subscriber
 * gets every event, in order, without a gap or a repeat.
 */
const runs = backends.includes('postgres') && redisClusterNodes !== undefined;

describe.runIf(runs)('live events across two instances when a cluster master goes away', () => {
  let cluster: OwnCluster;
  let a: TestApp;
  let b: TestApp;
  const clients: WsClient[] = [];

  beforeAll(async () => {
    cluster = await ownCluster(7311);
    const env = { REDIS_CLUSTER_NODES: cluster.nodes };
    a = await startApp('postgres', env);
    b = await startApp('postgres', { ...env, DATABASE_URL: a.config.databaseUrl! });
  });
  afterAll(async () => {
    await Promise.all(clients.splice(0).map((c) => c.dispose()));
    await b?.close();
    await a?.close();
    await cluster?.destroy();
  });

  it('catches up on what was committed while the master of its stream was away', async () => {
    const s = await seedAccessory(a, 'cluster-1', 'cam');
    const reader = await a.token(['activities_basic'], 'cluster-1');
    const { ws, sub } = accessorySubscriber(b.url, reader, s.accessoryId);
    clients.push(ws);
    await waitFor(() => b.app.services.live.activeSubscriptions === 1, 'the subscription on B');
    await createActivities(a, s.ingest, s.accessoryId, 2);
    await waitFor(() => sub.items.length === 3, 'the events before the outage');

    const master = await cluster.masterOf(`clipgate:events:accessory:${s.accessoryId}`);
    await cluster.stop(master);
    // Commits go on (the database is there); their publication to that shard fails.
    await createActivities(a, s.ingest, s.accessoryId, 2);
    await cluster.restore();
    await createActivities(a, s.ingest, s.accessoryId, 2);

    const logged = await loggedIds(a, s.accessoryId);
    expect(logged.length).toBe(11); // 6 created, 5 finished
    await waitFor(() => sub.items.length >= logged.length, 'every event', 30_000);
    expect(sub.errors).toEqual([]);
    expect(sub.items.map((e) => e.eventId)).toEqual(logged);
  }, 90_000);
});
