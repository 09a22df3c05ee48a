import type { Duplex } from 'node:stream';
import type { WebSocket as GraphQLWsSocket } from 'graphql-ws';
import { WebSocket } from 'ws';
import type { ConnectionOwner } from '../../events/live/connections.ts';
import type { LiveSubscription } from '../../events/live/subscription.ts';
import type { LiveSink } from '../../events/live/ports.ts';
import type { RequestContext } from '../../context.ts';
import type { Services } from '../../services.ts';
import type { Logger } from '../../logger.ts';
import { LiveCloseCode } from '../live.ts';

/** One WebSocket connection, from its upgrade to its close. */
export interface Connection {
  socket: WebSocket;
  sink: LiveSink;
  /** Its live subscriptions. */
  live: Set<LiveSubscription>;
  context: RequestContext<Services> | undefined;
  /** Whose connection it is, once authenticated: it holds one of their slots. */
  owner: ConnectionOwner | undefined;
  alive: boolean;
  closed: boolean;
  expiry: NodeJS.Timeout | undefined;
  close(code: number, reason: string): void;
}

/** A close reason is at most 123 bytes of UTF-8. */
function closeReason(reason: string): string {
  let out = reason;
  while (Buffer.byteLength(out) > 123) out = out.slice(0, -1);
  return out;
}

/** True when an event waits in one of the connection's live subscriptions. */
function hasQueued(connection: Connection): boolean {
  for (const subscription of connection.live) if (subscription.queued > 0) return true;
  return false;
}

/**
 * A new connection over `socket`; its live sink is congested past `maxBufferedBytes` unsent,
 * and cuts a slow consumer off with SlowConsumer.
 */
export function newConnection(socket: WebSocket, maxBufferedBytes: number): Connection {
  const connection: Connection = {
    socket,
    live: new Set(),
    context: undefined,
    owner: undefined,
    alive: true,
    closed: false,
    expiry: undefined,
    close(code, reason) {
      if (socket.readyState === WebSocket.OPEN) socket.close(code, closeReason(reason));
    },
    sink: {
      congested: () => socket.bufferedAmount > maxBufferedBytes,
      cut: (message) => {
        connection.close(LiveCloseCode.SlowConsumer, `Slow consumer: ${message}`);
        return undefined;
      },
    },
  };
  socket.on('pong', () => (connection.alive = true));
  return connection;
}

/**
 * The connection as graphql-ws's server writes to and reads from it. While more events wait for
 * the connection (the events of one commit), its frames are held and leave together in one write
 * of `raw`, at the latest at the end of this turn of the event loop. A send resolves at once while
 * at most `sendAheadBytes` wait unsent; past that, when the frame is handed to the kernel, so that
 * a slow reader backs up into its bounded queue.
 */
export function socketSink(
  connection: Connection,
  raw: Duplex,
  sendAheadBytes: number,
  logger: Logger,
): GraphQLWsSocket {
  const { socket } = connection;
  let corked = false;
  const flush = () => {
    if (!corked) return;
    corked = false;
    raw.uncork();
  };
  return {
    protocol: socket.protocol,
    send: (data) =>
      new Promise<void>((resolve) => {
        if (socket.readyState !== WebSocket.OPEN) return resolve();
        const more = hasQueued(connection);
        if (more && !corked) {
          corked = true;
          raw.cork();
          process.nextTick(flush);
        }
        socket.send(data, () => resolve());
        if (!more) flush();
        if (socket.bufferedAmount <= sendAheadBytes) resolve();
      }),
    close: (code, reason) => connection.close(code ?? 1000, reason ?? ''),
    onMessage: (callback) =>
      socket.on('message', (data, isBinary) => {
        if (isBinary) {
          return connection.close(LiveCloseCode.BadRequest, 'Binary messages are not accepted');
        }
        callback(String(data)).catch((err: unknown) => {
          logger.error({ err }, 'graphql-ws message handling failed');
          connection.close(LiveCloseCode.InternalServerError, 'Internal server error');
        });
      }),
  };
}
