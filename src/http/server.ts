import http from 'node:http';
import { AppError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import { traceRequest } from '../telemetry/tracing.ts';
import { databaseAnswer } from '../storage/faults.ts';
import { declaredLength } from './body.ts';
import { sendJson } from './json.ts';
import type { HttpHandler } from './handler.ts';
import { Shed } from './overload.ts';
import type { HttpMetrics } from './metrics.ts';

/**
 * What a failed request answers: its own AppError, the database's answer (busy, stopped, 503
 * for an unreachable database), else 500.
 */
export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  return databaseAnswer(err) ?? new AppError('INTERNAL', 'internal error');
}

/** A path that URL parsing leaves as it is: no dot segments, escapes, fragment or backslash. */
const PLAIN_PATH = /^\/[\w\-~/]*$/;

/**
 * The path of a request target. A plain path (with any query) is its own pathname: no URL is
 * parsed for it; any other target is read by `parsedPath`.
 */
export function requestPath(target = '/'): string {
  const query = target.indexOf('?');
  const path = query === -1 ? target : target.slice(0, query);
  return PLAIN_PATH.test(path) ? path : parsedPath(target);
}

/**
 * The path of a request target as URL parsing reads it. An origin-form target is a path even
 * when it starts with `//` (which `new URL(target, base)` would read as a host, and throw on);
 * anything unparsable is kept as it came, for no route to match.
 */
export function parsedPath(target: string): string {
  try {
    return new URL(
      target.startsWith('/') ? `http://localhost${target}` : target,
      'http://localhost',
    ).pathname;
  } catch {
    return target;
  }
}

export interface HttpServerOptions {
  /** Tried in order; the last one must answer everything (e.g. with a 404). */
  handlers: HttpHandler[];
  metrics: Pick<HttpMetrics, 'requests' | 'latency' | 'refusals'>;
  logger: Logger;
  /** The body limit: an error answered before a body within it has arrived keeps its connection. */
  maxBodyBytes: number;
  /** An error answer's JSON body and media type; by default the REST shape, `AppError.toJSON()`. */
  errorAnswer?: (
    req: http.IncomingMessage,
    pathname: string,
    error: AppError,
  ) => { body: unknown; contentType?: string };
}

/** Node's HTTP server over an ordered list of handlers, with request metrics and error answers. */
export function createHttpServer({
  handlers,
  metrics,
  logger,
  maxBodyBytes,
  errorAnswer = (_req, _pathname, error) => ({ body: error.toJSON() }),
}: HttpServerOptions): http.Server {
  async function route(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    pathname: string,
  ): Promise<string> {
    for (const handle of handlers) {
      const label = await handle(req, res, pathname);
      if (label !== undefined) return label;
    }
    throw new Error(`no handler answered ${pathname}`);
  }

  return http.createServer((req, res) => {
    const started = process.hrtime.bigint();
    const pathname = requestPath(req.url);
    let label = 'unmatched';
    // Counted once the answer is sent and its handler has named the route: a handler that
    // answers at once sees its response finish before it returns the name.
    let seconds: number | undefined;
    let routed = false;
    const count = () => {
      if (seconds === undefined || !routed) return;
      const labels = { method: req.method ?? '', route: label };
      metrics.requests.inc({ ...labels, status: String(res.statusCode) });
      metrics.latency.observe(labels, seconds);
    };
    res.on('finish', () => {
      seconds = Number(process.hrtime.bigint() - started) / 1e9;
      count();
    });
    traceRequest(
      req,
      res,
      () => label,
      () =>
        route(req, res, pathname).then(
          (matched) => {
            label = matched;
            routed = true;
            count();
          },
          (err: unknown) => {
            routed = true;
            count();
            const error = toAppError(err);
            if (error.code === 'INTERNAL') logger.error({ err, url: req.url }, 'request failed');
            if (error.code === 'UNAVAILABLE') {
              metrics.refusals.inc({ reason: error instanceof Shed ? 'shed' : 'unavailable' });
            }
            if (res.headersSent) return res.destroy();
            const { body, contentType } = errorAnswer(req, pathname, error);
            sendJson(res, error.status, body, error.headers, contentType);
            // A body still arriving when the answer goes out (a request refused before its body
            // was read): one within the body limit is read and dropped by Node, so that the
            // client reads its answer, not a reset, and keeps its connection. A larger one, or
            // one of unknown length, closes the connection instead.
            if (!req.complete && !(declaredLength(req) <= maxBodyBytes)) {
              res.on('finish', () => req.destroy());
            }
          },
        ),
    );
  });
}
