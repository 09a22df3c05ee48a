import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { accessoryRoutes } from './http/routes/accessories.ts';
import { accountRoutes } from './http/routes/accounts.ts';
import { activityRoutes } from './http/routes/activities.ts';
import type { Config } from './config.ts';
import { asyncApiDocument, openApiWebhooks } from './http/events/documents.ts';
import { eventRoutes } from './http/routes/events.ts';
import { graphqlHandler, createGraphQL } from './graphql/yoga.ts';
import { loadPersistedDocuments } from './graphql/documents.ts';
import { graphqlErrorAnswer } from './graphql/errors.ts';
import { graphiqlHandler } from './graphql/graphiql.ts';
import { GraphQLWorkers } from './graphql/workers/pool.ts';
import { attachWebSockets } from './graphql/ws.ts';
import { openApiDocument } from './http/openapi.ts';
import { operationsHandler } from './http/operations.ts';
import { LagMonitor, sheddingHandler } from './http/overload.ts';
import { RestRouter, restHandler } from './http/rest.ts';
import { createHttpServer } from './http/server.ts';
import { backgroundJobs } from './background.ts';
import { Jobs } from './jobs/scheduler.ts';
import { Disposables } from './lifecycle.ts';
import { createLogger, withoutCredentials } from './logger.ts';
import { mediaOpenApi } from './http/routes/media-openapi.ts';
import { handleMediaRequest } from './http/routes/media.ts';
import { notificationRoutes } from './http/routes/notifications.ts';
import { describeRedis } from './storage/redis.ts';
import { buildServices, startServices, type ServiceOptions, type Services } from './services.ts';
import { referenceHandler } from './web/reference.ts';
import { dashboardDir, handleDashboardRequest } from './web/static.ts';
import { zoneRoutes } from './http/routes/zones.ts';

export interface App {
  services: Services;
  jobs: Jobs;
  server: http.Server;
  /** Starts listening; resolves with the bound address. */
  listen(): Promise<AddressInfo>;
  /** The base URL once listening, e.g. http://127.0.0.1:4000 */
  url(): string;
  /** Graceful stop: no new requests, in-flight ones finish, background work stops, the database closes. */
  close(): Promise<void>;
}

export type AppOptions = Partial<ServiceOptions>;

/**
 * Composes the service: the domain services, the HTTP chain (operations, GraphQL, media, the
 * dashboard, REST), GraphQL over WebSocket, and the background jobs. Everything set up here is
 * undone in reverse order by `close()`.
 */
export async function buildApp(config: Config, options: AppOptions = {}): Promise<App> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const disposables = new Disposables();
  let draining = false;
  try {
    // Tracing first, so that everything after it is traced; off, its SDK is never loaded.
    if (config.telemetry) {
      const { startTelemetry } = await import('./telemetry/start.ts');
      disposables.defer('tracing', startTelemetry(config.telemetry));
      logger.info({ endpoint: config.telemetry.endpoint }, 'tracing on');
    }
    const services = await buildServices(config, { ...options, logger }, disposables);
    await startServices(services);

    const router = new RestRouter([
      ...accountRoutes,
      ...accessoryRoutes,
      ...activityRoutes,
      ...zoneRoutes,
      ...notificationRoutes,
      ...eventRoutes,
    ]);
    const openapi = JSON.stringify(
      openApiDocument(
        router.routes,
        config.scopePrefix,
        mediaOpenApi(config.scopePrefix),
        openApiWebhooks(),
      ),
    );
    // The dashboard's documents come with its build (web/vite.config.ts), the operators' besides.
    const documents = loadPersistedDocuments(
      config.graphqlDocuments,
      [
        { path: path.join(dashboardDir(), 'persisted-documents.json'), optional: true },
        ...config.graphqlDocuments.manifests.map((file) => ({ path: file })),
      ],
      logger,
      (source) => services.metrics.graphqlDocuments.inc({ source }),
    );
    const graphql = createGraphQL(
      services,
      documents,
      await startGraphQLWorkers(services, disposables),
    );
    const lag = new LagMonitor(config.limits.overloadLagMs);
    lag.start();
    disposables.defer('overload monitor', () => lag.stop());
    const server = createHttpServer({
      metrics: services.metrics,
      logger,
      maxBodyBytes: config.maxBodyBytes,
      errorAnswer: (req, pathname, error) =>
        pathname === '/graphql'
          ? graphqlErrorAnswer(req.headers.accept, error)
          : { body: error.toJSON() },
      handlers: [
        // Health and metrics are answered even when the instance sheds load.
        operationsHandler({
          db: services.db,
          metrics: services.metrics,
          openapi,
          asyncapi: JSON.stringify(asyncApiDocument(config.scopePrefix)),
          draining: () => draining,
        }),
        sheddingHandler(lag),
        // A browser's GET /graphql: the GraphiQL page, without a token, and its files.
        graphiqlHandler(config.auth),
        // The API reference in the browser: /docs, its AsyncAPI view and their files.
        referenceHandler(config.auth),
        graphqlHandler(graphql, services, documents, config.maxBodyBytes),
        // Media streams raw bytes (ranges, signed URLs) instead of JSON: its own small router.
        (req, res, pathname) => handleMediaRequest(services, req, res, pathname),
        // The dashboard (web/, built into web/dist): static files at /app.
        handleDashboardRequest,
        restHandler(services, router),
      ],
    });
    disposables.defer('http server', () => closeServer(server));
    // A running export streams for as long as its client reads: cut it rather than wait.
    disposables.defer('exports', () => services.media.exports.abortAll());

    // GraphQL over WebSocket on /graphql, through the same Yoga envelop as HTTP. WebSockets
    // close (1001) and SSE streams complete before the HTTP server closes, which waits on them.
    const sockets = attachWebSockets({
      server,
      getEnveloped: (initialContext) => graphql.yoga.getEnveloped(initialContext),
      documents,
      services,
      draining: () => draining,
      overloaded: () => lag.overloaded,
    });
    disposables.defer('live connections', async () => {
      await sockets.close();
      services.live.drain();
    });

    const jobs = new Jobs(logger, services.metrics);
    for (const job of backgroundJobs(services)) jobs.add(job);
    jobs.start();
    disposables.defer('background jobs', () => jobs.stop());
    // The first step of shutdown: /readyz and new WebSockets answer 503 from now on.
    disposables.defer('draining', () => void (draining = true));

    let closing: Promise<void> | undefined;
    return {
      services,
      jobs,
      server,
      listen: () =>
        new Promise((resolve, reject) => {
          server.once('error', reject);
          server.listen(config.port, config.host, () => {
            server.off('error', reject);
            const address = server.address() as AddressInfo;
            logger.info(
              { host: address.address, port: address.port, ...backingServices(services) },
              'listening',
            );
            resolve(address);
          });
        }),
      url: () => {
        const { address, port } = server.address() as AddressInfo;
        return `http://${address.includes(':') ? `[${address}]` : address}:${port}`;
      },
      close: () => (closing ??= disposables.dispose(logger)),
    };
  } catch (err) {
    await disposables.dispose(logger).catch(() => undefined);
    throw err;
  }
}

/** What an instance runs on, for its start log: each backing service, without credentials. */
function backingServices({ config, db, media }: Services) {
  return {
    database: `${db.kind} ${db.location}`,
    readReplica: config.databaseReadUrl ? withoutCredentials(config.databaseReadUrl) : 'none',
    ...(config.databaseDirectUrl && {
      databaseDirect: `${withoutCredentials(config.databaseDirectUrl)}: behind a transaction pooler`,
    }),
    redis: config.redis
      ? describeRedis(config.redis)
      : 'none: live events and rate limits stay within this instance',
    mediaStore: `${media.store.kind} ${media.store.location}`,
    ffmpeg: media.ffmpeg ?? 'none: MP4 uploads are not packaged to HLS/DASH',
    tracing: config.telemetry ? config.telemetry.endpoint : 'off',
  };
}

/** The GraphQL worker threads (GRAPHQL_WORKERS), on PostgreSQL; none on the embedded database. */
async function startGraphQLWorkers(
  services: Services,
  disposables: Disposables,
): Promise<GraphQLWorkers | undefined> {
  const { config, logger, metrics, db } = services;
  const { threads } = config.graphqlWorkers;
  if (threads === 0) return undefined;
  if (db.kind === 'embedded') {
    // The embedded database is one connection, in this thread.
    logger.warn(
      'GRAPHQL_WORKERS needs DATABASE_URL: every GraphQL operation runs on the event loop',
    );
    return undefined;
  }
  const workers = await GraphQLWorkers.start(config, logger, metrics);
  disposables.defer('graphql workers', () => workers.close());
  const unsubscribe = services.signal.subscribe((events) => {
    for (const event of events) {
      if (event.eventType === 'account_deleted') workers.forgetAccount(event.accountId);
    }
  });
  disposables.defer('graphql workers following deletions', unsubscribe);
  const { minCost, nice } = config.graphqlWorkers;
  logger.info({ threads, minCost, nice }, 'GraphQL worker threads');
  return workers;
}

/** Stops accepting connections and resolves once the open ones have finished. */
function closeServer(server: http.Server): Promise<void> {
  return new Promise<void>((resolve) => {
    // Responses that finish meanwhile (e.g. SSE streams just ended) leave idle keep-alive
    // connections behind, which would hold server.close until their timeout.
    const idle = setInterval(() => server.closeIdleConnections(), 50);
    server.close(() => {
      clearInterval(idle);
      resolve();
    });
    server.closeIdleConnections();
  });
}
