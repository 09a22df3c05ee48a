import net from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A TCP proxy on a loopback port in front of a real server (PostgreSQL, Redis), which a test
 * can cut (every connection dropped, new ones refused at once) and restore, to stand for a
 * dependency that goes away and comes back without touching the machine's shared servers.
 */
export interface TcpProxy {
  port: number;
  /** Connections accepted so far, and those of them still open. */
  readonly accepted: number;
  readonly connected: number;
  /** `scheme://host:port/...` of `url` with the proxy's port instead. */
  via(url: string): string;
  cut(): void;
  /**
   * The next statement a client sends containing `pattern` (e.g. a prepared statement's name)
   * reaches the server, but its answer, and whatever else that connection is sent, never comes
   * back: a connection lost at the moment of the commit. Resolves once the server answered it
   * (a statement sent alone has run, and committed, by then); `cut` then ends the connection.
   */
  loseAnswer(pattern: string): Promise<void>;
  restore(): void;
  close(): Promise<void>;
}

/** `connectDelayMs`: each new connection reaches the server only after this long (a slow link). */
export async function startTcpProxy(
  targetHost: string,
  targetPort: number,
  { connectDelayMs = 0 } = {},
): Promise<TcpProxy> {
  const open = new Set<net.Socket>();
  const clients = new Set<net.Socket>();
  let accepted = 0;
  let up = true;
  const losing = new Set<{ pattern: Buffer; answered: () => void }>();
  const server = net.createServer((client) => {
    accepted += 1;
    clients.add(client);
    client.on('close', () => clients.delete(client));
    if (!up) return client.destroy();
    if (connectDelayMs === 0) return forward(client);
    client.pause();
    open.add(client);
    setTimeout(() => (client.destroyed ? undefined : forward(client)), connectDelayMs);
  });
  function forward(client: net.Socket): void {
    const upstream = net.connect(targetPort, targetHost);
    open.add(client).add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream);
    // Once the connection sent a statement whose answer is to be lost: what comes back.
    let lost: (() => void) | undefined;
    client.on('data', (chunk: Buffer) => {
      for (const watch of losing) {
        // A statement is one write of the client, so one chunk here.
        if (lost || !chunk.includes(watch.pattern)) continue;
        losing.delete(watch);
        lost = watch.answered;
      }
    });
    upstream.on('data', (chunk: Buffer) => {
      if (lost) return lost();
      if (!client.write(chunk)) upstream.pause();
    });
    client.on('drain', () => upstream.resume());
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    get accepted() {
      return accepted;
    },
    get connected() {
      return clients.size;
    },
    via(url) {
      const u = new URL(url);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
    cut() {
      up = false;
      for (const socket of open) socket.destroy();
      open.clear();
    },
    loseAnswer: (pattern) =>
      new Promise<void>((answered) => losing.add({ pattern: Buffer.from(pattern), answered })),
    restore() {
      up = true;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
