import { Redis } from 'ioredis';
import type { RedisTarget } from '../../src/config.ts';

/**
 * Counts the scripts (EVAL, EVALSHA) Redis runs with an argument containing `needle` (a caller),
 * seen with MONITOR on every node of `target`: on a shared Redis other suites' commands pass
 * too, and are left out.
 */
export async function scriptCalls(target: RedisTarget, needle: string) {
  const nodes =
    'url' in target
      ? [{ host: new URL(target.url).hostname, port: Number(new URL(target.url).port || 6379) }]
      : target.clusterNodes;
  let calls = 0;
  const monitors = await Promise.all(
    nodes.map(async (node) => {
      const monitor = await new Redis(node).monitor();
      monitor.on('monitor', (_time: string, args: string[]) => {
        if (/^eval/i.test(args[0]!) && args.some((a) => a.includes(needle))) calls++;
      });
      return monitor;
    }),
  );
  return {
    calls: () => calls,
    stop: () => monitors.forEach((m) => m.disconnect()),
  };
}
