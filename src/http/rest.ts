import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { z } from 'zod';
import type { ScopeName } from '../accounts/auth.ts';
import { admit, answerCaller, type RequestContext } from '../context.ts';
import { invalidArgument, methodNotAllowed, notFound } from '../errors.ts';
import { parseInput } from '../schemas.ts';
import type { Services } from '../services.ts';
import { costHeaders, pointsOfDatabaseTime } from '../limits/cost.ts';
import { asCaller, meteredCaller } from '../storage/tenancy.ts';
import { readJsonBody } from './body.ts';
import { withCloseSignal } from './close-signal.ts';
import type { HttpHandler } from './handler.ts';
import { sendJson } from './json.ts';
import { checkPathParameter } from './parameters.ts';

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface RestResult<T = unknown> {
  status?: number;
  body?: T;
  /** Headers of the answer; one already set (e.g. RateLimit) gets these values after its own. */
  headers?: Record<string, string>;
}

/** One REST operation: a thin adapter from HTTP onto a domain service. */
export interface RestRoute<B extends z.ZodType = z.ZodType, R extends z.ZodType = z.ZodType> {
  method: Method;
  /** e.g. `/api/accessories/{accessoryId}/activities` */
  path: string;
  /** Unique across the API; typed clients name their methods by it. */
  operationId: string;
  summary: string;
  /** The caller needs at least one of these; none: any valid token will do. */
  scopes: ScopeName[];
  /**
   * The query parameters it takes, each described by its member (a parameter it does not name
   * is a 400; without `query` the query is ignored); the handler gets them as strings and checks
   * their values.
   */
  query?: z.ZodObject;
  /** The JSON request body; an empty body is parsed as `{}`. */
  body?: B;
  /** The body may also be `application/x-ndjson`, read as the array of its lines. */
  ndjson?: boolean;
  /** The JSON body of a 200; without one the operation answers 204 No Content. */
  response?: R;
  /**
   * It charges its cost itself, its statements' time included (counts). Any other route pays,
   * after it ran, for its statements' time past GRAPHQL_UNPRICED_DATABASE_MS.
   */
  priced?: true;
  handle(
    ctx: RequestContext<Services>,
    input: {
      params: Record<string, string>;
      query: Record<string, string>;
      body: z.infer<B>;
      headers: IncomingHttpHeaders;
      /**
       * Waits for `wait` without holding the caller's share of the instance (admission), and
       * takes one again after: for a long poll.
       */
      idle<T>(wait: Promise<T>): Promise<T>;
      /** Aborted once the client has gone away (or the answer went out); made when first read. */
      signal: AbortSignal;
    },
  ): Promise<RestResult<z.input<R>>>;
}

/** Keeps each route's body and response types attached to its handler. */
export const route = <B extends z.ZodType, R extends z.ZodType>(r: RestRoute<B, R>): RestRoute =>
  r as unknown as RestRoute;

interface Compiled {
  route: RestRoute;
  pattern: RegExp;
  names: string[];
}

export interface Match {
  route: RestRoute;
  params: Record<string, string>;
}

export class RestRouter {
  readonly #compiled: Compiled[];

  constructor(readonly routes: RestRoute[]) {
    this.#compiled = routes.map((route) => {
      const names: string[] = [];
      const source = route.path.replace(/\{(\w+)\}/g, (_, name: string) => {
        names.push(name);
        return '([^/]+)';
      });
      return { route, pattern: new RegExp(`^${source}$`), names };
    });
  }

  /** The route for a method and path; 404 for no path, 405 for a path without that method. */
  match(method: string, pathname: string): Match {
    const allowed: string[] = [];
    for (const { route, pattern, names } of this.#compiled) {
      const m = pattern.exec(pathname);
      if (!m) continue;
      if (route.method !== method) {
        allowed.push(route.method);
        continue;
      }
      const params: Record<string, string> = {};
      names.forEach((name, i) => (params[name] = decodeSegment(name, m[i + 1]!)));
      return { route, params };
    }
    if (allowed.length > 0) throw methodNotAllowed(method, allowed);
    throw notFound('resource');
  }

  async handle(
    services: Services,
    req: IncomingMessage,
    res: ServerResponse,
    match: Match,
  ): Promise<RestResult> {
    const ctx = await admit(services, req.headers.authorization, res);
    if (match.route.scopes.length > 0) ctx.require(...match.route.scopes);
    for (const [name, value] of Object.entries(match.params)) checkPathParameter(name, value);
    const query = queryParameters(req.url, match.route.query);
    const raw = match.route.body
      ? await readJsonBody(req, services.config.maxBodyBytes, match.route.ndjson)
      : undefined;
    const body = match.route.body ? parseInput(match.route.body, raw) : undefined;
    const enter = () => services.admission.enter(ctx.principal);
    let end = await enter();
    const idle = async <T>(wait: Promise<T>): Promise<T> => {
      end();
      try {
        return await wait;
      } finally {
        end = await enter();
      }
    };
    let databaseMs = 0;
    const caller = answerCaller(ctx.principal, res);
    try {
      // Its statements are the caller's: a fair share of the pools, stopped if the client goes.
      const result = await asCaller(
        match.route.priced ? caller : meteredCaller(caller, (ms) => (databaseMs += ms)),
        () =>
          match.route.handle(
            ctx,
            withCloseSignal({ params: match.params, query, body, headers: req.headers, idle }, res),
          ),
      );
      return await chargeDatabaseTime(services, ctx, result, databaseMs);
    } finally {
      end();
    }
  }
}

/**
 * Charges a request its statements' time past GRAPHQL_UNPRICED_DATABASE_MS (a page whose filter
 * matches few rows reads many to fill it), and says so in its answer's cost headers.
 */
async function chargeDatabaseTime(
  services: Services,
  ctx: RequestContext<Services>,
  result: RestResult,
  databaseMs: number,
): Promise<RestResult> {
  const overMs = databaseMs - services.config.limits.graphql.unpricedDatabaseMs;
  if (overMs <= 0) return result;
  const actual = pointsOfDatabaseTime(overMs);
  const left = await services.rateLimiter.settle(ctx.principal, actual);
  return { ...result, headers: { ...result.headers, ...costHeaders(0, actual, left) } };
}

/**
 * The query of a request target for a route that takes one: each parameter once, and named by
 * `schema` (else a 400). A route without a query schema ignores the query, as it always has.
 */
function queryParameters(target = '/', schema: z.ZodObject | undefined): Record<string, string> {
  const query: Record<string, string> = {};
  if (!schema) return query;
  const url = new URL(
    target.startsWith('/') ? `http://localhost${target}` : target,
    'http://localhost',
  );
  for (const [name, value] of url.searchParams) {
    if (!(name in schema.shape)) throw invalidArgument(name, `unknown query parameter ${name}`);
    if (name in query) throw invalidArgument(name, `${name} is given more than once`);
    query[name] = value;
  }
  return query;
}

function decodeSegment(name: string, segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw invalidArgument(name, `${name} is not a valid path segment`);
  }
}

/** The REST routes as the last step of the HTTP chain: an unknown path is a 404 here. */
export function restHandler(services: Services, router: RestRouter): HttpHandler {
  return async (req, res, pathname) => {
    const match = router.match(req.method ?? 'GET', pathname);
    const result = await router.handle(services, req, res, match);
    for (const [name, value] of Object.entries(result.headers ?? {})) {
      const set = res.getHeader(name);
      res.setHeader(name, set === undefined ? value : `${String(set)}, ${value}`);
    }
    sendJson(res, result.status ?? 200, result.body);
    return match.route.path;
  };
}
