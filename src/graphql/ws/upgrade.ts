import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocket, WebSocketServer } from 'ws';
import { requestPath } from '../../http/server.ts';

export interface UpgradeOptions {
  wss: WebSocketServer;
  /** True once the app drains: new upgrades are refused. */
  draining(): boolean;
  /** True while the instance sheds load: new upgrades are refused. */
  overloaded(): boolean;
  /** True when the instance holds as many live connections as it may. */
  full(): boolean;
  /** Takes the upgraded socket (`raw`: the connection under it). */
  open(socket: WebSocket, raw: Duplex): void;
}

function rejectUpgrade(
  socket: Duplex,
  status: number,
  message: string,
  headers: Record<string, string> = {},
) {
  const body = JSON.stringify({
    error: { code: status === 503 ? 'UNAVAILABLE' : 'NOT_FOUND', message },
  });
  const head = Object.entries({
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(body)),
    connection: 'close',
    ...headers,
  })
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${head}\r\n${body}`);
}

/**
 * The HTTP server's `upgrade` listener: upgrades requests to `/graphql`, and answers the others
 * 404, and every one with 503 and Retry-After while the app drains, sheds load or is full.
 */
export function upgradeHandler(options: UpgradeOptions) {
  return (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (requestPath(request.url) !== '/graphql') return rejectUpgrade(socket, 404, 'not found');
    if (options.draining()) {
      return rejectUpgrade(socket, 503, 'the server is shutting down', { 'retry-after': '1' });
    }
    if (options.overloaded()) {
      return rejectUpgrade(socket, 503, 'the service is overloaded; retry shortly', {
        'retry-after': '1',
      });
    }
    if (options.full()) {
      return rejectUpgrade(socket, 503, 'too many live connections on this instance', {
        'retry-after': '5',
      });
    }
    options.wss.handleUpgrade(request, socket, head, (ws) => options.open(ws, socket));
  };
}
