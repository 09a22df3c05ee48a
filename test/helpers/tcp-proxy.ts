import net from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A TCP proxy on a loopback port in front of a real server (PostgreSQL, Redis), which a test
 * can cut (every connection dropped, new ones refused at once) and restore, to stand for a
 * dependency that goes away and comes back without touching the machine's shared servers.
 */
export interface TcpProxy {
  port: number;
  /** `scheme://host:port/...` of `url` with the proxy's port instead. */
  via(url: string): string;
  cut(): void;
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
  let up = true;
  const server = net.createServer((client) => {
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
    client.pipe(upstream).pipe(client);
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
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
