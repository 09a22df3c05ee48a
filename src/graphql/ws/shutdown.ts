import type { WebSocketServer } from 'ws';
import { LiveCloseCode } from '../live.ts';
import type { Connection } from './socket.ts';

const CLOSE_GRACE_MS = 2000;

/**
 * Closes every connection with GoingAway (terminated when its client does not answer within
 * CLOSE_GRACE_MS), then the WebSocket server; resolves when all are closed.
 */
export async function closeAll(connections: Set<Connection>, wss: WebSocketServer): Promise<void> {
  const pending = [...connections].map(
    (connection) =>
      new Promise<void>((resolve) => {
        connection.socket.once('close', () => resolve());
        connection.close(
          LiveCloseCode.GoingAway,
          'Server shutting down; reconnect and resume with after',
        );
        setTimeout(() => connection.socket.terminate(), CLOSE_GRACE_MS).unref();
      }),
  );
  await Promise.all(pending);
  await new Promise<void>((resolve) => wss.close(() => resolve()));
}
