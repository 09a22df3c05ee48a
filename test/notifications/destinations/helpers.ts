import net, { type AddressInfo } from 'node:net';
import { expect } from 'vitest';
import { PublishError } from '../../../src/notifications/destinations/types.ts';
/** A loopback port nothing listens on: a refused connection. */
export async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Resolves once something accepts connections on the loopback `port` (tries for `ms`). A
 * connection that the kernel gave `port` itself as its source (a TCP self-connect, possible on a
 * port of the ephemeral range while nothing listens there) is not something listening.
 */
export async function listening(port: number, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const connected = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        resolve(socket.localPort !== port);
        socket.destroy();
      });
      socket.on('error', () => resolve(false));
    });
    if (connected) return;
    if (Date.now() > deadline) throw new Error(`nothing listens on port ${port}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A loopback server that accepts connections and never says a word: a stalled broker. */
export async function silentServer(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** The PublishError `promise` rejects with. */
export async function publishError(promise: Promise<unknown>): Promise<PublishError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(PublishError);
  return err as PublishError;
}

/** A message as the dispatcher hands one over, with a fresh webhook-id. */
export function brokerMessage(body: object = { eventType: 'test_notification' }) {
  const id = `msg_${Math.random().toString(36).slice(2)}`;
  return {
    id,
    body: Buffer.from(JSON.stringify(body)),
    headers: {
      'content-type': 'application/json',
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
      'webhook-signature': 'v1,c2lnbmF0dXJl',
    },
  };
}

/** Polls `check` every 20 ms until it holds, for at most `ms`. */
export async function until(check: () => boolean, what: string, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
