import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { useGraphQlJit } from '@envelop/graphql-jit';
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
import { requestError, toGraphQLError } from './graphql/errors.ts';
import { schema } from './graphql/schema.ts';
import { createMetrics } from './http/metrics.ts';
import { openApiDocument } from './http/openapi.ts';
import { RestRouter } from './http/rest.ts';
import { createLogger, type Logger } from './logger.ts';
import { openDatabase } from './storage/database.ts';

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
  const services: Services = {
    config,
    logger,
    db,
    auth,
    signal,
    accounts: new AccountService(db, signal),
    accessories,
    activities: new ActivityService(db, accessories, signal),
  };

  const metrics = createMetrics();
  const router = new RestRouter([...accountRoutes, ...accessoryRoutes, ...activityRoutes]);
  const openapi = JSON.stringify(openApiDocument(router.routes, config.scopePrefix));
  const yoga = createYoga<{ req: http.IncomingMessage; res: http.ServerResponse }, RequestContext>({
    schema,
    graphqlEndpoint: '/graphql',
    landingPage: false,
    logging: false,
    context: async ({ request }) => {
      try {
        return await authenticate(services, request.headers.get('authorization'));
      } catch (err) {
        throw err instanceof AppError ? requestError(err) : err;
      }
    },
    maskedErrors: { maskError: (error) => toGraphQLError(error, logger) },
    // Compiles each operation once into a specialized function: several times faster than the
    // generic executor on the listing pages.
    plugins: [useGraphQlJit()],
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

  const sweep = async () => {
    try {
      const purged = await purgeExpiredActivities(db);
      if (purged > 0) logger.info({ purged }, 'purged activities past retention');
    } catch (err) {
      logger.error({ err }, 'retention sweep failed');
    }
  };
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
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeIdleConnections();
        });
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
