import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import calculateSlot from 'cluster-key-slot';
import { Redis } from 'ioredis';
import { runToEnd } from './process.ts';

/**
 * A Redis Cluster of this test's own (scripts/redis-cluster-local.sh on ports `firstPort` and
 * the two after it, in a temporary directory), whose masters the test may stop and start again
 * without touching the cluster CI shares between suites.
 */
export interface OwnCluster {
  /** REDIS_CLUSTER_NODES for it. */
  nodes: string;
  ports: number[];
  /** The port of the master that holds `key`'s slot. */
  masterOf(key: string): Promise<number>;
  /**
   * Moves `key`'s slot (holding no keys: channels are not keys) to the master on `port`, as a
   * resharding or a replica's promotion moves slots: the target first, then the others.
   */
  moveSlotOf(key: string, port: number): Promise<void>;
  /** Stops a master at once (SHUTDOWN NOSAVE): its slots are away until `restore`. */
  stop(port: number): Promise<void>;
  /** Starts the stopped masters (or, the first time, the cluster) and waits until it is ok. */
  restore(): Promise<void>;
  destroy(): Promise<void>;
}

/** With `start: false`, nothing runs until the first `restore`. */
export async function ownCluster(firstPort: number, start = true): Promise<OwnCluster> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'clipgate-own-cluster-'));
  const ports = [firstPort, firstPort + 1, firstPort + 2];
  const restore = async () => {
    const run = await runToEnd('sh', ['scripts/redis-cluster-local.sh'], {
      REDIS_CLUSTER_PORT: String(firstPort),
      REDIS_CLUSTER_DIR: dir,
    });
    if (run.code !== 0) throw new Error(`redis-cluster-local.sh failed:\n${run.lines.join('\n')}`);
  };
  const command = async (port: number, ...args: string[]) => {
    const redis = new Redis({ port, lazyConnect: true, maxRetriesPerRequest: 0 });
    try {
      await redis.connect();
      return await redis.call(args[0]!, ...args.slice(1));
    } finally {
      redis.disconnect();
    }
  };
  if (start) await restore();
  return {
    nodes: ports.map((port) => `127.0.0.1:${port}`).join(','),
    ports,
    async masterOf(key) {
      const slot = calculateSlot(key);
      const shards = (await command(firstPort, 'CLUSTER', 'SLOTS')) as [
        number,
        number,
        [string, number],
      ][];
      const owner = shards.find(([from, to]) => slot >= from && slot <= to);
      return owner![2][1];
    },
    async moveSlotOf(key, port) {
      const id = String(await command(port, 'CLUSTER', 'MYID'));
      const slot = String(calculateSlot(key));
      for (const p of [port, ...ports.filter((other) => other !== port)]) {
        await command(p, 'CLUSTER', 'SETSLOT', slot, 'NODE', id);
      }
    },
    async stop(port) {
      await command(port, 'SHUTDOWN', 'NOSAVE').catch(() => {}); // the connection closes
    },
    restore,
    async destroy() {
      for (const port of ports) await command(port, 'SHUTDOWN', 'NOSAVE').catch(() => {});
      await rm(dir, { recursive: true, force: true });
    },
  };
}
