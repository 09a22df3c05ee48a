import { STATUS_CODES, type IncomingMessage, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  type DocumentNode,
  type ExecutionArgs,
  type GraphQLError,
  type GraphQLSchema,
} from 'graphql';
import { makeServer, type SubscribePayload } from 'graphql-ws';
import { WebSocket, WebSocketServer } from 'ws';
import { authenticate, takeRequest, type RequestContext } from '../context.ts';
import { AppError } from '../errors.ts';
import { requestPath } from '../http/server.ts';
import type { ConnectionOwner } from '../events/live/connections.ts';
import type { LiveSink } from '../events/live/ports.ts';
import type { LiveSubscription } from '../events/live/subscription.ts';
import type { Services } from '../services.ts';
import { toGraphQLError } from './errors.ts';
import { LiveCloseCode, onTokenExpiry, type LiveCarrier } from './live.ts';

/**
 * GraphQL over WebSocket (`graphql-transport-ws`, graphql-ws) on the `/graphql` path of the
 * service's HTTP server, run through Yoga's envelop so that the schema, context, auth, error
 * masking and validation are those of HTTP. A connection authenticates once, in
 * `connection_init`, counts against the connection limits, and closes with a LiveCloseCode
 * (src/graphql/live.ts) when the service ends it. An instance at its connection limit answers
 * the upgrade with HTTP 503 and Retry-After.
 */

/** The parts of Yoga's `getEnveloped` result used here. */
interface Enveloped {
  schema: GraphQLSchema;
  parse(source: string): DocumentNode;
  validate(schema: GraphQLSchema, document: DocumentNode): readonly GraphQLError[];
  contextFactory(): unknown;
  execute(args: ExecutionArgs): unknown;
  subscribe(args: ExecutionArgs): unknown;
}

export type GetEnveloped = (initialContext: Record<string, unknown>) => Enveloped;

export interface WebSocketOptions {
  server: Server;
  getEnveloped: GetEnveloped;
  services: Services;
  /** True once the app drains: new upgrades are refused. */
  draining(): boolean;
  /** True while the instance sheds load: new upgrades are refused. */
  overloaded(): boolean;
}

export interface WebSockets {
  /** Closes every socket (1001) and stops accepting new ones; resolves when they are closed. */
  close(): Promise<void>;
}

interface Connection {
  socket: WebSocket;
  sink: LiveSink;
  /** Its live subscriptions. */
  live: Set<LiveSubscription>;
  context: RequestContext | undefined;
  /** Whose connection it is, once authenticated: it holds one of their slots. */
  owner: ConnectionOwner | undefined;
  alive: boolean;
  closed: boolean;
  expiry: NodeJS.Timeout | undefined;
  close(code: number, reason: string): void;
}

type Extra = { connection: Connection };
type Roots = { execute: Enveloped['execute']; subscribe: Enveloped['subscribe'] };

const CLOSE_GRACE_MS = 2000;
/** The close reason when a token without expiry is due to be checked again. */
const RECHECK_REASON = 'Try again later: the token must be checked again; reconnect';
/** The keep-alive sweep pings this many sockets at a time, this far apart. */
const SWEEP_SLICE = 200;
const SWEEP_PAUSE_MS = 10;
/** Unsent bytes of a connection under which a subscription's next event need not wait. */
const SEND_AHEAD_BYTES = 16 * 1024;

/** True when an event waits in one of the connection's live subscriptions. */
function hasQueued(connection: Connection): boolean {
  for (const subscription of connection.live) if (subscription.queued > 0) return true;
  return false;
}

/** A close reason is at most 123 bytes of UTF-8. */
function closeReason(reason: string): string {
  let out = reason;
  while (Buffer.byteLength(out) > 123) out = out.slice(0, -1);
  return out;
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

export function attachWebSockets(options: WebSocketOptions): WebSockets {
  const { services } = options;
  const { live, liveConnections: limiter, logger, metrics } = services;
  const config = services.config.live;
  const connections = new Set<Connection>();
  const sendAheadBytes = Math.min(SEND_AHEAD_BYTES, config.maxBufferedBytes);
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: services.config.maxBodyBytes,
    handleProtocols: (protocols) =>
      protocols.has('graphql-transport-ws') ? 'graphql-transport-ws' : false,
  });

  const server = makeServer<Record<string, unknown> | undefined, Extra>({
    onConnect: async (ctx) => {
      const connection = ctx.extra.connection;
      const params = ctx.connectionParams ?? {};
      const value = params.authorization ?? params.Authorization;
      let context: RequestContext;
      try {
        context = await authenticate(services, typeof value === 'string' ? value : undefined);
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        if (err.code === 'UNAVAILABLE') {
          connection.close(LiveCloseCode.TryAgainLater, `Try again later: ${err.message}`);
        } else {
          connection.close(LiveCloseCode.Forbidden, `Forbidden: ${err.message}`);
        }
        return false;
      }
      if (connection.closed) return false;
      const { principal } = context;
      if (!limiter.claim(principal)) {
        connection.close(
          LiveCloseCode.TooManyConnections,
          `Too many connections for this subject and client (at most ${limiter.maxPerSubject})`,
        );
        return false;
      }
      connection.owner = principal;
      connection.context = context;
      connection.expiry = onTokenExpiry(principal, (why) =>
        why === 'expired'
          ? connection.close(LiveCloseCode.Forbidden, 'Forbidden: the token has expired')
          : connection.close(LiveCloseCode.TryAgainLater, RECHECK_REASON),
      );
      return true;
    },

    onSubscribe: async (ctx, _id, payload: SubscribePayload) => {
      const connection = ctx.extra.connection;
      if (Object.keys(ctx.subscriptions).length > config.maxSubscriptionsPerConnection) {
        return [
          toGraphQLError(
            new AppError(
              'RATE_LIMITED',
              `at most ${config.maxSubscriptionsPerConnection} operations per connection`,
            ),
            logger,
          ),
        ];
      }
      try {
        // Each subscribe counts as one request of the client's rate limit.
        await takeRequest(services, connection.context!);
      } catch (err) {
        if (err instanceof AppError) return [toGraphQLError(err, logger)];
        throw err;
      }
      const carrier: LiveCarrier & Record<string, unknown> = {
        wsContext: connection.context,
        openLive: async (request) => {
          const subscription = await live.subscribe({
            ...request,
            sink: connection.sink,
            onEnd: () => connection.live.delete(subscription),
          });
          connection.live.add(subscription);
          return subscription;
        },
        params: payload,
      };
      const enveloped = options.getEnveloped(carrier);
      let document: DocumentNode;
      try {
        document = enveloped.parse(payload.query);
      } catch (err) {
        return [toGraphQLError(err, logger)];
      }
      const errors = enveloped.validate(enveloped.schema, document);
      if (errors.length > 0) return errors.map((e) => toGraphQLError(e, logger));
      const roots: Roots = { execute: enveloped.execute, subscribe: enveloped.subscribe };
      return {
        schema: enveloped.schema,
        document,
        operationName: payload.operationName,
        variableValues: payload.variables,
        contextValue: await enveloped.contextFactory(),
        rootValue: roots,
      };
    },
    execute: (args) => (args.rootValue as Roots).execute(args) as never,
    subscribe: (args) => (args.rootValue as Roots).subscribe(args) as never,
  });

  function open(socket: WebSocket, raw: Duplex): void {
    let corked = false;
    const flush = () => {
      if (!corked) return;
      corked = false;
      raw.uncork();
    };
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
        congested: () => socket.bufferedAmount > config.maxBufferedBytes,
        cut: (message) => {
          connection.close(LiveCloseCode.SlowConsumer, `Slow consumer: ${message}`);
          return undefined;
        },
      },
    };
    connections.add(connection);
    metrics.liveSockets.inc();
    // The upgrade checked for room; upgrades that raced past it are turned away here.
    const counted = limiter.open();
    if (!counted) {
      connection.close(LiveCloseCode.TryAgainLater, 'Try again later: too many live connections');
    }
    socket.on('pong', () => (connection.alive = true));
    socket.on('error', (err) => logger.debug({ err }, 'websocket error'));

    const closed = server.opened(
      {
        protocol: socket.protocol,
        send: (data) =>
          new Promise<void>((resolve) => {
            if (socket.readyState !== WebSocket.OPEN) return resolve();
            // While more events wait for this connection (the events of one commit), its frames
            // are held and leave together in one write, at the latest at the end of this turn of
            // the event loop.
            const more = hasQueued(connection);
            if (more && !corked) {
              corked = true;
              raw.cork();
              process.nextTick(flush);
            }
            socket.send(data, () => resolve());
            if (!more) flush();
            // The next event follows at once while little waits unsent. Past that, it waits
            // until this frame is handed to the kernel: a slow reader backs up into its
            // bounded queue.
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
      },
      { connection },
    );

    socket.once('close', (code, reason) => {
      connection.closed = true;
      clearTimeout(connection.expiry);
      connections.delete(connection);
      metrics.liveSockets.dec();
      if (counted) limiter.close();
      if (connection.owner !== undefined) limiter.unclaim(connection.owner);
      closed(code, String(reason)).catch((err: unknown) =>
        logger.error({ err }, 'closing graphql-ws subscriptions failed'),
      );
    });
  }

  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (requestPath(request.url) !== '/graphql') return rejectUpgrade(socket, 404, 'not found');
    if (options.draining()) {
      return rejectUpgrade(socket, 503, 'the server is shutting down', { 'retry-after': '1' });
    }
    if (options.overloaded()) {
      return rejectUpgrade(socket, 503, 'the service is overloaded; retry shortly', {
        'retry-after': '1',
      });
    }
    if (limiter.full) {
      return rejectUpgrade(socket, 503, 'too many live connections on this instance', {
        'retry-after': '5',
      });
    }
    wss.handleUpgrade(request, socket, head, (ws) => open(ws, socket));
  };
  options.server.on('upgrade', onUpgrade);

  // One keep-alive sweep for all sockets: a socket that did not answer the last ping is dead.
  // It pings a slice of them at a time, a few milliseconds apart, so that events are not held
  // up behind thousands of pings and their pongs (50,000 sockets take 2.5 s).
  const keepAlive = async () => {
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
  const sweep = setInterval(() => void keepAlive(), config.keepAliveMs);
  sweep.unref();

  let closing: Promise<void> | undefined;
  return {
    close: () =>
      (closing ??= (async () => {
        clearInterval(sweep);
        options.server.off('upgrade', onUpgrade);
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
      })()),
  };
}
