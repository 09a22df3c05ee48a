import { methodNotAllowed } from '../errors.ts';
import type { Database } from '../storage/database.ts';
import { sendJson } from './json.ts';
import type { Registry } from 'prom-client';
import type { HttpHandler } from './handler.ts';

export interface OperationsOptions {
  db: Database;
  metrics: { registry: Registry };
  /** The OpenAPI document, serialized once. */
  openapi: string;
  /** The AsyncAPI document of the events, serialized once. */
  asyncapi: string;
  /** True once the app drains: /readyz answers 503. */
  draining(): boolean;
}

const paths = new Set(['/healthz', '/readyz', '/metrics', '/openapi.json', '/asyncapi.json']);

/**
 * `/healthz` (the process is up), `/readyz` (the database answers, not draining), `/metrics`,
 * `/openapi.json`, `/asyncapi.json`.
 */
export function operationsHandler({
  db,
  metrics,
  openapi,
  asyncapi,
  draining,
}: OperationsOptions): HttpHandler {
  return async (req, res, pathname) => {
    if (!paths.has(pathname)) return undefined;
    if (req.method !== 'GET' && req.method !== 'HEAD')
      throw methodNotAllowed(req.method, ['GET', 'HEAD']);
    switch (pathname) {
      case '/healthz':
        sendJson(res, 200, { status: 'ok' });
        return pathname;
      case '/readyz': {
        const ready = !draining() && (await databaseAnswers(db));
        sendJson(res, ready ? 200 : 503, { status: ready ? 'ready' : 'unavailable' });
        return pathname;
      }
      case '/metrics':
        res.writeHead(200, { 'content-type': metrics.registry.contentType });
        res.end(await metrics.registry.metrics());
        return pathname;
      case '/openapi.json':
      case '/asyncapi.json':
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(pathname === '/openapi.json' ? openapi : asyncapi);
        return pathname;
      default:
        return undefined;
    }
  };
}

/** How long /readyz waits for the database. */
const READY_TIMEOUT_MS = 2000;

async function databaseAnswers(db: Database): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), READY_TIMEOUT_MS);
  });
  const answer = db.pool.query('SELECT 1').then(
    () => true,
    () => false,
  );
  try {
    return await Promise.race([answer, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
