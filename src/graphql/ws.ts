import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import {
  type DocumentNode,
  type ExecutionArgs,
  type GraphQLError,
  type GraphQLSchema,
} from 'graphql';
import { makeServer, type SubscribePayload } from 'graphql-ws';
import { WebSocketServer, type WebSocket } from 'ws';
import { takeRequest } from '../context.ts';
import { AppError } from '../errors.ts';
import { callerOf } from '../limits/rate.ts';
import type { Services } from '../services.ts';
import { closingCaller } from '../storage/tenancy.ts';
import type { PersistedDocuments } from './documents.ts';
import { toGraphQLError } from './errors.ts';
import { LiveCloseCode, type LiveCarrier } from './live.ts';
import { acceptConnection } from './ws/auth.ts';
import { keepAlive } from './ws/keep-alive.ts';
import { closeAll } from './ws/shutdown.ts';
import { newConnection, socketSink, type Connection } from './ws/socket.ts';
import { upgradeHandler } from './ws/upgrade.ts';

/**
 * GraphQL over WebSocket (`graphql-transport-ws`, graphql-ws) on the `/graphql` path of the
 * service's HTTP server, run through Yoga's envelop so that the schema, context, auth, error
 * masking and validation are those of HTTP. A connection authenticates once, in
 * `connection_init`, counts against the connection limits, and closes with a LiveCloseCode
 * (src/graphql/live.ts) when the service ends it. An instance at its connection limit answers
 * the upgrade with HTTP 503 and Retry-After. The pieces, in ws/: the upgrade (upgrade.ts),
 * `connection_init` (auth.ts), the socket as graphql-ws writes to it (socket.ts), the keep-alive
 * sweep (keep-alive.ts) and the shutdown (shutdown.ts); here the operations and their wiring.
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
  /** A document may come by its hash, and some clients may send only known ones. */
  documents: PersistedDocuments;
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

type Extra = { connection: Connection };
type Roots = { execute: Enveloped['execute']; subscribe: Enveloped['subscribe'] };

/** Unsent bytes of a connection under which a subscription's next event need not wait. */
const SEND_AHEAD_BYTES = 16 * 1024;

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
    onConnect: (ctx) =>
      acceptConnection(services, ctx.extra.connection, ctx.connectionParams ?? {}),

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
        liveTransport: 'websocket',
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
        storageCaller: closingCaller(
          callerOf(connection.context!.principal),
          connection.socket,
          () => connection.closed,
        ),
      };
      const enveloped = options.getEnveloped(carrier);
      let document: DocumentNode;
      try {
        const query = options.documents.resolve(payload, connection.context!.principal.clientId);
        document = enveloped.parse(query ?? payload.query);
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
    const connection = newConnection(socket, config.maxBufferedBytes);
    connections.add(connection);
    metrics.liveSockets.inc();
    // The upgrade checked for room; upgrades that raced past it are turned away here.
    const counted = limiter.open();
    if (!counted) {
      connection.close(LiveCloseCode.TryAgainLater, 'Try again later: too many live connections');
    }
    socket.on('error', (err) => logger.debug({ err }, 'websocket error'));
    const closed = server.opened(socketSink(connection, raw, sendAheadBytes, logger), {
      connection,
    });
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

  const onUpgrade = upgradeHandler({
    wss,
    draining: options.draining,
    overloaded: options.overloaded,
    full: () => limiter.full,
    open,
  });
  options.server.on('upgrade', onUpgrade);
  const stopKeepAlive = keepAlive(connections, config.keepAliveMs);

  let closing: Promise<void> | undefined;
  return {
    close: () =>
      (closing ??= (() => {
        stopKeepAlive();
        options.server.off('upgrade', onUpgrade);
        return closeAll(connections, wss);
      })()),
  };
}
