import { setTimeout as sleep } from 'node:timers/promises';
import type { Connection } from './socket.ts';

/** The keep-alive sweep pings this many sockets at a time, this far apart. */
const SWEEP_SLICE = 200;
const SWEEP_PAUSE_MS = 10;

/**
 * One keep-alive sweep for all sockets, every `intervalMs`: a socket that did not answer the last
 * ping is dead. It pings a slice of them at a time, a few milliseconds apart, so that events are
 * not held up behind thousands of pings and their pongs (50,000 sockets take 2.5 s). Returns the
 * function that stops it.
 */
export function keepAlive(connections: Set<Connection>, intervalMs: number): () => void {
  const sweep = async () => {
    for (const [i, connection] of [...connections].entries()) {
      if (i > 0 && i % SWEEP_SLICE === 0) await sleep(SWEEP_PAUSE_MS);
      if (connection.closed) continue;
      if (!connection.alive) {
        connection.socket.terminate();
        continue;
      }
      connection.alive = false;
      connection.socket.ping();
    }
  };
  const timer = setInterval(() => void sweep(), intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
