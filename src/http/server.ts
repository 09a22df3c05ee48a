import http from 'node:http';
import { AppError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import { databaseUnavailable, isDatabaseUnavailable } from '../storage/faults.ts';
import { sendJson } from './json.ts';
import type { Metrics } from './metrics.ts';

/**
 * One step of the HTTP chain: answers the request and resolves with its route label (for
 * metrics), or resolves with undefined to leave it to the next handler. A thrown AppError is
 * the answer; anything else is logged and answered 500.
 */
/** What a failed request answers: its own AppError, 503 for an unreachable database, else 500. */
export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  if (isDatabaseUnavailable(err)) return databaseUnavailable();
  return new AppError('INTERNAL', 'internal error');
}

export type HttpHandler = (
  req: http.IncomingMessage,
  res: http.ServerResponse,
  pathname: string,
) => Promise<string | undefined>;

export interface HttpServerOptions {
  /** Tried in order; the last one must answer everything (e.g. with a 404). */
  handlers: HttpHandler[];
  metrics: Pick<Metrics, 'requests' | 'latency' | 'refusals'>;
  logger: Logger;
}

/** Node's HTTP server over an ordered list of handlers, with request metrics and error answers. */
export function createHttpServer({ handlers, metrics, logger }: HttpServerOptions): http.Server {
  async function route(req: http.IncomingMessage, res: http.ServerResponse): Promise<string> {
    const { pathname } = new URL(req.url ?? '/', 'http://localhost');
    for (const handle of handlers) {
      const label = await handle(req, res, pathname);
      if (label !== undefined) return label;
    }
    throw new Error(`no handler answered ${pathname}`);
  }

  return http.createServer((req, res) => {
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
        const error = toAppError(err);
        if (error.code === 'INTERNAL') logger.error({ err, url: req.url }, 'request failed');
        if (error.code === 'UNAVAILABLE') metrics.refusals.inc({ reason: 'unavailable' });
        if (res.headersSent) return res.destroy();
        sendJson(res, error.status, error.toJSON(), error.headers);
        // Whatever body was not read stays unread; do not keep a connection with it.
        if (!req.complete) res.on('finish', () => req.destroy());
      },
    );
  });
}
