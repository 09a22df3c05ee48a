import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { useGraphQlJit } from '@envelop/graphql-jit';
import { getOperationAST } from 'graphql';
import { createYoga } from 'graphql-yoga';
import { AccessoryService } from './accessories/service.ts';
import { accessoryRoutes } from './accessories/rest.ts';
import { createAuthenticator } from './accounts/auth.ts';
import { accountRoutes } from './accounts/rest.ts';
import { AccountService } from './accounts/service.ts';
import { purgeExpiredActivities } from './activities/retention.ts';
import { activityRoutes } from './activities/rest.ts';
import { ActivityService } from './activities/service.ts';
import type { Config } from './config.ts';
import { authenticate, type RequestContext, type Services } from './context.ts';
import { AppError } from './errors.ts';
import { EventSignal } from './events/outbox.ts';
import { createEventBus } from './events/pubsub.ts';
import { LiveEvents } from './events/subscriptions.ts';
import { requestError, toGraphQLError } from './graphql/errors.ts';
import { schema } from './graphql/schema.ts';
import { attachWebSockets } from './graphql/ws.ts';
import { createMetrics } from './http/metrics.ts';
import { openApiDocument } from './http/openapi.ts';
import { RestRouter } from './http/rest.ts';
import { createLogger, type Logger } from './logger.ts';
import { mediaOpenApi } from './media/openapi.ts';
import { handleMediaRequest } from './media/routes.ts';
import { MediaService } from './media/service.ts';
import { Dispatcher } from './notifications/dispatcher.ts';
import { notificationRoutes } from './notifications/rest.ts';
import { createSecretBox, loadSecretsKey } from './notifications/secrets.ts';
import { NotificationService } from './notifications/service.ts';
import { openDatabase } from './storage/database.ts';
import { handleDashboardRequest } from './web/static.ts';
import { zoneRoutes } from './zones/rest.ts';
import { ZoneService } from './zones/service.ts';

export interface App {
  services: Services;
  server: http.Server;
  /** Starts listening; resolves with the bound address. */
  listen(): Promise<AddressInfo>;
  /** The base URL once listening, e.g. http://127.0.0.1:4000 */
  url(): string;
  /** Graceful stop: no new requests, in-flight ones finish, background jobs stop, database closes. */
  close(): Promise<void>;
}

export interface AppOptions {
  logger?: Logger;
  /** Where the embedded database lives; default `<DATA_DIR>/pgdata`, `memory://` for tests. */
  embeddedDir?: string;
}

export async function buildApp(config: Config, options: AppOptions = {}): Promise<App> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const db = await openDatabase({
    databaseUrl: config.databaseUrl,
    embeddedDir: options.embeddedDir ?? path.join(config.dataDir, 'pgdata'),
    logger,
  });
  const auth = await createAuthenticator({
    auth: config.auth,
    scopePrefix: config.scopePrefix,
    dataDir: config.dataDir,
    logger,
  });
  const signal = new EventSignal();
  const accessories = new AccessoryService(db);
  const media = await MediaService.create(db, config, logger);
  const secrets = createSecretBox(
    (await loadSecretsKey(config.dataDir, config.webhook.secretsKey, logger)).key,
  );
  const notifications = new NotificationService(db, config.webhook, secrets);
  const metrics = createMetrics();
  // Live events (GraphQL subscriptions): committed events go to the pub/sub (Redis when
  // REDIS_URL is set), which feeds the subscribers of every instance.
  const live = new LiveEvents({
    db,
    bus: await createEventBus(config.redisUrl, logger),
    logger,
    metrics,
    retentionHours: config.eventLogRetentionHours,
    ...config.live,
  });
  signal.subscribe((events) => live.publish(events));
  const services: Services = {
    config,
    logger,
    db,
    auth,
    signal,
    live,
    accounts: new AccountService(db, signal),
    accessories,
    activities: new ActivityService(db, accessories, signal),
    media,
    notifications,
    zones: new ZoneService(db, accessories, signal),
  };

  // Webhook delivery (src/notifications/dispatcher.ts): starts now, resumes what is pending.
  const dispatcher = new Dispatcher({
    db,
    webhook: config.webhook,
    secrets,
    logger,
    signal,
    metrics,
    purgeIntervalMs: config.retentionSweepMs,
  });
  notifications.onQueued(() => dispatcher.wake());
  dispatcher.start();
  const router = new RestRouter([
    ...accountRoutes,
    ...accessoryRoutes,
    ...activityRoutes,
    ...zoneRoutes,
    ...notificationRoutes,
  ]);
  const openapi = JSON.stringify(
    openApiDocument(router.routes, config.scopePrefix, mediaOpenApi(config.scopePrefix)),
  );
  const yoga = createYoga<
    // wsContext: a graphql-ws connection authenticated once, in connection_init (graphql/ws.ts).
    { req: http.IncomingMessage; res: http.ServerResponse; wsContext?: RequestContext },
    RequestContext
  >({
    schema,
    graphqlEndpoint: '/graphql',
    landingPage: false,
    logging: false,
    context: async ({ request, wsContext }) => {
      if (wsContext) return wsContext;
      try {
        return await authenticate(services, request.headers.get('authorization'));
      } catch (err) {
        throw err instanceof AppError ? requestError(err) : err;
      }
    },
    maskedErrors: { maskError: (error) => toGraphQLError(error, logger) },
    // Compiles each operation once into a specialized function: several times faster than the
    // generic executor on the listing pages.
    // Not subscriptions: graphql-jit 0.8 hands a subscription field's `subscribe` the operation's
    // variables instead of the field's arguments; those run on graphql-js.
    plugins: [
      useGraphQlJit(
        {},
        {
          enableIf: (args) =>
            getOperationAST(args.document, args.operationName)?.operation !== 'subscription',
        },
      ),
    ],
  });

  let draining = false;

  async function route(req: http.IncomingMessage, res: http.ServerResponse): Promise<string> {
    const { pathname } = new URL(req.url ?? '/', 'http://localhost');
    if (pathname === '/graphql') {
      await yoga(req, res);
      return '/graphql';
    }
    if (pathname === '/healthz') {
      send(res, 200, { status: 'ok' });
      return pathname;
    }
    if (pathname === '/readyz') {
      const ready =
        !draining &&
        (await db.pool.query('SELECT 1').then(
          () => true,
          () => false,
        ));
      send(res, ready ? 200 : 503, { status: ready ? 'ready' : 'unavailable' });
      return pathname;
    }
    if (pathname === '/metrics') {
      res.writeHead(200, { 'content-type': metrics.registry.contentType });
      res.end(await metrics.registry.metrics());
      return pathname;
    }
    if (pathname === '/openapi.json') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(openapi);
      return pathname;
    }
    // Media streams raw bytes (ranges, signed URLs) instead of JSON: its own small router.
    const mediaRoute = await handleMediaRequest(services, req, res, pathname);
    if (mediaRoute) return mediaRoute;
    // The dashboard (web/, built into web/dist): static files at /app.
    const appRoute = await handleDashboardRequest(req, res, pathname);
    if (appRoute) return appRoute;
    const match = router.match(req.method ?? 'GET', pathname);
    const result = await router.handle(services, req, match);
    send(res, result.status ?? 200, result.body);
    return match.route.path;
  }

  const server = http.createServer((req, res) => {
    const started = process.hrtime.bigint();
    let label = 'unmatched';
    res.on('finish', () => {
      const labels = { method: req.method ?? '', route: label };
      metrics.requests.inc({ ...labels, status: String(res.statusCode) });
      metrics.latency.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
    });
    route(req, res).then(
      (matched) => (label = matched),
      (err: unknown) => {
        if (!(err instanceof AppError)) logger.error({ err, url: req.url }, 'request failed');
        const error = err instanceof AppError ? err : new AppError('INTERNAL', 'internal error');
        if (res.headersSent) return res.destroy();
        send(res, error.status, error.toJSON(), error.headers);
        // Whatever body was not read stays unread; do not keep a connection with it.
        if (!req.complete) res.on('finish', () => req.destroy());
      },
    );
  });

  // GraphQL over WebSocket on /graphql, through the same Yoga envelop as HTTP.
  const sockets = attachWebSockets({
    server,
    getEnveloped: (initialContext) => yoga.getEnveloped(initialContext),
    services,
    config: config.live,
    maxPayloadBytes: config.maxBodyBytes,
    metrics,
    logger,
    draining: () => draining,
  });

  const sweep = async () => {
    try {
      const events = await live.purge();
      if (events > 0) logger.info({ events }, 'purged events past the event log retention');
    } catch (err) {
      logger.error({ err }, 'event log purge failed');
    }
    try {
      const purged = await purgeExpiredActivities(db);
      if (purged > 0) logger.info({ purged }, 'purged activities past retention');
      // Their media rows went with them; the trigger queued the objects: delete them now.
      const cleared = await media.collectGarbage();
      if (cleared > 0) logger.info({ cleared }, 'deleted media no longer referenced');
    } catch (err) {
      logger.error({ err }, 'retention sweep failed');
    }
  };
  await media.start(signal);
  const sweeper = setInterval(sweep, config.retentionSweepMs);
  sweeper.unref();
  void sweep();

  let closing: Promise<void> | undefined;
  return {
    services,
    server,
    listen: () =>
      new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(config.port, config.host, () => {
          server.off('error', reject);
          const address = server.address() as AddressInfo;
          logger.info(
            { host: address.address, port: address.port, database: db.kind },
            'listening',
          );
          resolve(address);
        });
      }),
    url: () => {
      const { address, port } = server.address() as AddressInfo;
      return `http://${address.includes(':') ? `[${address}]` : address}:${port}`;
    },
    close: () =>
      (closing ??= (async () => {
        draining = true;
        clearInterval(sweeper);
        // No new claims from now on; attempts in flight finish before the database closes.
        const dispatcherStopped = dispatcher.close();
        // WebSockets close (1001) and SSE streams complete, or server.close would wait on them.
        await sockets.close();
        live.drain();
        await new Promise<void>((resolve) => {
          // Responses that finish meanwhile (the SSE streams just ended) leave idle keep-alive
          // connections behind, which would hold server.close until their timeout.
          const idle = setInterval(() => server.closeIdleConnections(), 50);
          server.close(() => {
            clearInterval(idle);
            resolve();
          });
          server.closeIdleConnections();
        });
        await live.close();
        await media.close();
        await dispatcherStopped;
        await db.close();
      })()),
  };
}

function send(
  res: http.ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (body === undefined) {
    res.writeHead(status, headers).end();
    return;
  }
  const json = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(json),
  });
  res.end(json);
}
