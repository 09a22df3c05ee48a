import type http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { useGraphQlJit } from '@envelop/graphql-jit';
import { getOperationAST, type ExecutionResult, type GraphQLError } from 'graphql';
import {
  createGraphQLError,
  createYoga,
  isAsyncIterable,
  processRegularResult,
  type GraphQLParams,
  type Plugin,
  type YogaInitialContext,
} from 'graphql-yoga';
import { errorStatus, type AppError, type ErrorCode, type ErrorDetails } from '../errors.ts';
import {
  answerCaller,
  answerRequest,
  authenticate,
  takeRequest,
  type RequestContext,
} from '../context.ts';
import { throttleStatus } from '../limits/cost.ts';
import { callerOf, rateLimited, type RateDecision } from '../limits/rate.ts';
import { CostShares } from '../limits/shares.ts';
import { declaredLength, readBodyBytes } from '../http/body.ts';
import { withCloseSignal } from '../http/close-signal.ts';
import { sendText } from '../http/json.ts';
import type { HttpHandler } from '../http/handler.ts';
import { LiveQueryMemory } from '../events/live/query-memory.ts';
import type { Services } from '../services.ts';
import { asCaller, type Caller } from '../storage/tenancy.ts';
import { graphqlTracing, inOperationSpan } from '../telemetry/graphql.ts';
import { activeTracer } from '../telemetry/tracing.ts';
import { graphqlContext, type GraphQLContext } from './builder.ts';
import { persistedDocuments, withDocument, type PersistedDocuments } from './documents.ts';
import { PreparedOperations } from './prepared.ts';
import { requestError, toGraphQLError } from './errors.ts';
import { operationLimits } from './limits.ts';
import type { LiveRequest } from './live.ts';
import { liveQueries } from './live-query.ts';
import { schema } from './schema.ts';
import { sharedEventResults } from './shared-events.ts';
import { refuseUnstorableStrings } from './unstorable.ts';
import { forgetScopesOnceExecuted } from './scope-cache.ts';
import { openSse } from './sse.ts';
import type { GraphQLWorkers } from './workers/pool.ts';

/** What Yoga is handed by the HTTP server (`caller`), and by the WebSocket adapter (`wsContext`). */
export interface ServerContext {
  req: http.IncomingMessage;
  res: http.ServerResponse;
  /** An HTTP request's caller, authenticated by graphqlHandler before Yoga runs. */
  caller?: RequestContext<Services>;
  /** An HTTP request's own rate-limit token, until it is taken (`UncountedRequest`). */
  uncounted?: UncountedRequest;
  /** A graphql-ws connection, authenticated once in connection_init (graphql/ws.ts). */
  wsContext?: RequestContext<Services>;
  /**
   * Whom an operation's database work is for: its HTTP request's caller (graphqlHandler's, once
   * authenticated), or its WebSocket's.
   */
  storageCaller?: Caller;
  /** An HTTP request's: aborted once its answer closes; made when first read (closeSignal). */
  signal?: AbortSignal;
}

/**
 * The GraphQL server: Yoga with its plugins, and what its HTTP handler runs beside Yoga (the
 * prepared plain POSTs and Yoga's masking of errors, the same function Yoga was given).
 */
export interface GraphQLService {
  yoga: GraphQLServer;
  prepared: PreparedOperations;
  mask: (error: unknown) => GraphQLError;
}

/** GraphQL over HTTP and SSE on `/graphql`; its envelop also runs the WebSocket operations. */
export function createGraphQL(
  services: Services,
  documents: PersistedDocuments,
  workers?: GraphQLWorkers,
): GraphQLService {
  const tracer = activeTracer();
  const { maxCostInFlight } = services.config.limits.graphql;
  const shares = maxCostInFlight > 0 ? new CostShares(maxCostInFlight) : undefined;
  /** What an operation's charge left of its caller's cost budget, by its context. */
  const charged = new WeakMap<object, RateDecision>();
  const { minCost } = services.config.graphqlWorkers;
  const { live } = services.config;
  const limits = operationLimits(services.config.limits.graphql, {
    refused: () => services.metrics.refusals.inc({ reason: 'too_costly' }),
    // An HTTP request's own token is taken with its operation's cost, in one check.
    charge: async (context, cost) => {
      const { principal, uncounted, answer } = context as GraphQLContext & HttpOperation;
      const taken = await services.rateLimiter.take(principal, {
        request: uncounted?.take() ?? false,
        cost,
      });
      try {
        answerRequest(services, taken.request, answer);
      } catch (err) {
        return requestError(err as AppError);
      }
      if (!taken.cost) return undefined;
      if (taken.cost.allowed) {
        charged.set(context as object, taken.cost);
        return undefined;
      }
      services.metrics.refusals.inc({ reason: 'rate_limited' });
      return requestError(rateLimited(taken.cost, cost));
    },
    settle: (context, requested, actual) => {
      const { principal } = context as GraphQLContext;
      if (!services.rateLimiter.costPolicy(principal)) return undefined;
      // Nothing to settle (no field measured other than it asked): what the charge left,
      // without another call to the budget's store.
      const left = charged.get(context as object);
      if (actual === requested && left) return Promise.resolve(throttleStatus(left));
      return services.rateLimiter
        .settle(principal, actual - requested)
        .then((settled) => settled && throttleStatus(settled));
    },
    // Waits for the budget, until the live query's last client has left (its signal).
    again: async (context, cost) => {
      const { principal, signal } = context as GraphQLContext;
      for (;;) {
        const { cost: taken } = await services.rateLimiter.take(principal, {
          request: false,
          cost,
        });
        if (!taken || taken.allowed) return;
        await sleep(taken.retryAfterMs, undefined, { signal });
      }
    },
    // Without shares of the instance's cost, the caller's admission alone.
    begin: shares
      ? async (context, cost) => {
          const { principal } = context as GraphQLContext;
          const left = await services.admission.enter(principal);
          const share = await shares.acquire(callerOf(principal), cost);
          return () => {
            share();
            left();
          };
        }
      : (context) => services.admission.enter((context as GraphQLContext).principal),
    // The costly queries, off the event loop that serves every other request.
    elsewhere: (execution, cost) =>
      workers &&
      cost >= minCost &&
      getOperationAST(execution.document, execution.operationName)?.operation === 'query'
        ? workers.run(execution, (execution.contextValue as GraphQLContext).principal)
        : undefined,
  });
  const unstorable = refuseUnstorableStrings();
  const mask = maskError(services);
  const prepared = new PreparedOperations({
    params: (params, context) =>
      withDocument(documents, params, (context as ServerContext).caller!.principal.clientId),
    context: (initial) => operationContext(initial as ServerContext & YogaInitialContext),
    unstorable: unstorable.check,
    limits,
    mask,
  });
  const yoga = createYoga<ServerContext, GraphQLContext>({
    schema,
    graphqlEndpoint: '/graphql',
    landingPage: false,
    // GraphiQL is served before Yoga runs, from the service's own files (graphiql.ts).
    graphiql: false,
    logging: false,
    context: operationContext,
    maskedErrors: { maskError: mask },
    // The same body limit as REST (413), applied where the body is read (graphqlHandler).
    maxRequestBodySize: false,
    plugins: [
      refuseLargeBodies(),
      refuseParametersThatAreNoJson(),
      contractValidationErrors(services),
      refuseStreamsBeforeTheyStart(),
      persistedDocuments(documents),
      countRequestsNoOperationTook(services),
      // Before anything is charged or runs.
      unstorable.plugin,
      ...(tracer ? [graphqlTracing(tracer)] : []),
      // Compiles each operation once into a specialized function: several times faster than the
      // generic executor on the listing pages.
      // Not subscriptions: graphql-jit 0.8 hands a subscription field's `subscribe` the
      // operation's variables instead of the field's arguments; those run on graphql-js.
      useGraphQlJit(
        {},
        {
          enableIf: (args) =>
            getOperationAST(args.document, args.operationName)?.operation !== 'subscription',
          // Shared with the prepared plain POSTs, which run the queries it compiled.
          cache: prepared.compiled,
        },
      ),
      // A live event is executed once per selection for all the WebSocket subscribers of its stream.
      sharedEventResults(),
      // After graphql-jit: the cost plugin wraps the executor that runs.
      ...limits.plugins,
      // Each execution's statements are its caller's, also a live query's executions again.
      asTheCaller(),
      forgetScopesOnceExecuted(),
      // Last: a live query (`query @live`) executes again through the executor wrapped above.
      liveQueries({
        minIntervalMs: live.queryMinIntervalMs,
        memory: new LiveQueryMemory(
          {
            maxPerCaller: live.queryMaxPerCaller,
            maxBytesPerCaller: live.queryMaxBytesPerCaller,
            maxBytes: live.queryMaxBytes,
          },
          services.metrics,
        ),
        metrics: services.metrics,
      }),
    ],
  });
  return { yoga, prepared, mask };
}

export type GraphQLServer = ReturnType<typeof createYoga<ServerContext, GraphQLContext>>;

/**
 * What an operation's context adds to its server context: Yoga's `context`, called once per
 * operation, also for each operation of a WebSocket connection (counted by the WebSocket adapter
 * when it subscribes), and by the prepared plain POSTs.
 */
function operationContext({
  request,
  res,
  wsContext,
  caller,
  uncounted,
  storageCaller,
}: ServerContext & YogaInitialContext) {
  // A WebSocket operation has no request of its own (and no Idempotency-Key); its live
  // transport came with it (ws.ts). Every HTTP request Yoga executes came through
  // graphqlHandler, which gave it its caller (only a CORS preflight did not, and Yoga answers
  // that itself); its subscriptions run over SSE.
  return wsContext
    ? { ...graphqlContext(wsContext), storageCaller }
    : {
        ...graphqlContext(caller!, request.headers.get('idempotency-key') ?? undefined),
        // `signal` stays the server context's own getter (graphqlHandler): made when read.
        uncounted,
        answer: res,
        // graphqlHandler's: the request's statements and its operation's are one caller's (0161).
        storageCaller,
        liveTransport: 'sse' as const,
        openLive: (live: LiveRequest) => openSse(caller!, res, live),
      };
}

/** How an error leaves the GraphQL layer: in the contract's shape (toGraphQLError), counted. */
const maskError = (services: Services) => (error: unknown) => {
  const masked = toGraphQLError(error, services.logger);
  if (masked.extensions.code === 'UNAVAILABLE') {
    services.metrics.refusals.inc({ reason: 'unavailable' });
  }
  return masked;
};

/**
 * An HTTP request's own token from its caller's request bucket. It is taken together with the
 * cost of the request's operation, in one check (one Redis call when the limits are shared);
 * a request whose operation is never charged (a document refused before it runs, a body Yoga
 * cannot read) has it taken alone as its answer is made.
 */
export class UncountedRequest {
  #taken = false;

  /** True the first time only: the caller then takes the token. */
  take(): boolean {
    if (this.#taken) return false;
    this.#taken = true;
    return true;
  }
}

/** What an operation over HTTP carries beside its GraphQL context. */
interface HttpOperation {
  uncounted?: UncountedRequest;
  answer?: http.ServerResponse;
}

/** Takes the token of a request whose operation took none (UncountedRequest), before it is answered. */
function countRequestsNoOperationTook(services: Services): Plugin<object, ServerContext> {
  return {
    onResultProcess: async ({ serverContext, setResult }) => {
      const refused = await takeUncounted(services, serverContext);
      if (refused) setResult(refused);
    },
  };
}

/**
 * Takes the token of a request whose operation took none: the refusal, if it has none left.
 * Undefined at once when there is none to take (its operation took it).
 */
function takeUncounted(
  services: Services,
  { caller, uncounted, res }: ServerContext,
): Promise<ExecutionResult | undefined> | undefined {
  if (!caller || !uncounted?.take()) return undefined;
  return takeRequest(services, caller, res).then(
    () => undefined,
    (err: unknown) => ({ errors: [requestError(err as AppError)] }),
  );
}

/**
 * Runs each execution (and subscription) as the work of its operation's caller
 * (storage/tenancy.ts): its statements take the caller's turns on the database pools and stop
 * when it goes away, also when a live query or an event executes it again later.
 */
function asTheCaller(): Plugin<{ storageCaller?: Caller }> {
  return {
    onExecute({ args, executeFn, setExecuteFn }) {
      const caller = (args.contextValue as { storageCaller?: Caller }).storageCaller;
      if (caller) setExecuteFn((execution) => asCaller(caller, () => executeFn(execution)));
    },
    onSubscribe({ args, subscribeFn, setSubscribeFn }) {
      const caller = (args.contextValue as { storageCaller?: Caller }).storageCaller;
      if (caller) setSubscribeFn((execution) => asCaller(caller, () => subscribeFn(execution)));
    },
  };
}

/**
 * The schema's refusals of a query (an unknown field, a wrong argument type) in the contract's
 * code: Yoga answers validation errors without masking them.
 */
function contractValidationErrors(services: Services): Plugin<object, ServerContext> {
  return {
    onValidate:
      () =>
      ({ result, setResult }) => {
        if (result.length > 0) setResult(result.map((e) => toGraphQLError(e, services.logger)));
      },
  };
}

/**
 * Over SSE, an operation refused before its first event (bad syntax, an unknown field, a
 * subscription refused as it starts, e.g. `accountEvents(eventTypes: [])`) is answered as such:
 * the HTTP status of its error's code (400 for INVALID_ARGUMENT) with the errors as JSON, where
 * Yoga would open a 200 stream carrying them.
 */
function refuseStreamsBeforeTheyStart(): Plugin<object, ServerContext> {
  return {
    onResultProcess({ request, result, setResultProcessor }) {
      if (!request.headers.get('accept')?.includes('text/event-stream')) return;
      if (isAsyncIterable(result) || Array.isArray(result)) return;
      const { errors, data } = result as ExecutionResult;
      if (!errors?.length || data != null) return;
      const status = Math.max(
        ...errors.map((e) => errorStatus[e.extensions.code as ErrorCode] ?? 400),
      );
      // An error to retry (429, 503) says when in its details, as Retry-After does in REST.
      const retryAfter = Math.max(
        0,
        ...errors.map(
          (e) => Number((e.extensions.details as ErrorDetails)?.retryAfterSeconds) || 0,
        ),
      );
      setResultProcessor(async (refused, fetchAPI) => {
        const answer = await processRegularResult(refused, fetchAPI, 'application/json');
        if (retryAfter > 0) answer.headers.set('Retry-After', String(retryAfter));
        return new fetchAPI.Response(answer.body, { status, headers: answer.headers });
      }, 'application/json');
    },
  };
}

/** Requests whose body went over the limit while graphqlHandler read it. */
const tooLarge = new WeakSet<http.IncomingMessage>();

/**
 * Yoga's answers to a body over the limit or a malformed Content-Length (its own
 * maxRequestBodySize, whose errors these are), for a body graphqlHandler read already.
 */
function refuseLargeBodies(): Plugin<object, ServerContext> {
  return {
    onRequestParse({ request, serverContext }) {
      const declared = request.headers.get('content-length');
      if (declared !== null && !/^\d+$/.test(declared)) {
        throw createGraphQLError('Content-Length header is invalid.', {
          extensions: { http: { status: 400 }, code: 'BAD_REQUEST' },
        });
      }
      if (tooLarge.has(serverContext.req)) {
        throw createGraphQLError('Request body too large', {
          extensions: { http: { status: 413 }, code: 'REQUEST_ENTITY_TOO_LARGE' },
        });
      }
    },
  };
}

/**
 * `variables` and `extensions` of a GET query or a form are JSON: one that is not is the
 * client's error, named, where Yoga's parser would throw the JSON parser's own (an INTERNAL).
 */
function refuseParametersThatAreNoJson(): Plugin<object, ServerContext> {
  const check = (parameters: URLSearchParams) => {
    for (const field of ['variables', 'extensions']) {
      const value = parameters.get(field);
      if (!value) continue;
      try {
        JSON.parse(value);
      } catch {
        throw createGraphQLError(`${field} must be JSON`, {
          extensions: { http: { status: 400 }, code: 'INVALID_ARGUMENT', details: { field } },
        });
      }
    }
  };
  return {
    onRequestParse({ request, url }) {
      if (request.method === 'GET') return check(url.searchParams);
      const type = request.headers.get('content-type');
      if (!type?.startsWith('application/x-www-form-urlencoded')) return undefined;
      return request
        .clone()
        .text()
        .then((body) => check(new URLSearchParams(body)));
    },
  };
}

/**
 * Reads a POST body whole, up to `limit` bytes, into `req.body`, where Yoga's server adapter takes
 * it as the request's bytes instead of streaming the socket through web streams (and a limiting
 * transform of them) on every request. A body over the limit is left unread and marked.
 */
async function readBody(req: http.IncomingMessage, limit: number): Promise<void> {
  if (declaredLength(req) > limit) {
    tooLarge.add(req);
    return;
  }
  const body = await readBodyBytes(req, limit);
  if (!body) tooLarge.add(req);
  else if (body.length > 0) Object.assign(req, { body });
}

/**
 * GraphQL over HTTP and SSE on `/graphql`. The request is authenticated before Yoga runs, as REST
 * requests are: a refusal (401) costs no GraphQL request pipeline, and is answered in GraphQL's
 * shape all the same (app.ts), as is a caller's request while its bucket, which refused one
 * before, has no token yet (known to this instance). Its rate-limit token is taken with its
 * operation's cost (UncountedRequest). A plain JSON POST (plainParams) goes to Yoga's operation
 * pipeline without its fetch layer (answerPlainPost); every other request to Yoga whole.
 */
export function graphqlHandler(
  { yoga, prepared, mask }: GraphQLService,
  services: Services,
  documents: PersistedDocuments,
  maxBodyBytes: number,
): HttpHandler {
  return async (req, res, pathname) => {
    if (pathname !== '/graphql') return undefined;
    // A CORS preflight carries no credentials; Yoga answers it.
    const caller =
      req.method === 'OPTIONS'
        ? undefined
        : await authenticate(services, req.headers.authorization);
    // A caller whose bucket refused and has no token yet is refused here, with no Redis call.
    if (caller)
      answerRequest(services, await services.rateLimiter.refusedAlready(caller.principal), res);
    if (req.method === 'POST') await readBody(req, maxBodyBytes);
    const storageCaller = caller && answerCaller(caller.principal, res);
    const context: ServerContext = withCloseSignal(
      { req, res, caller, uncounted: caller && new UncountedRequest(), storageCaller },
      res,
    );
    const plain = caller && plainParams(req, documents);
    const serve = plain
      ? () => answerPlainPost(yoga, mask, services, context, plain, prepared)
      : () => yoga(req, res, context);
    await (storageCaller ? asCaller(storageCaller, serve) : serve());
    return pathname;
  };
}

/** The fields of a GraphQL request's body, as Yoga's parameter check takes them. */
const PARAMETERS = new Set(['query', 'variables', 'operationName', 'extensions']);

const isObjectOrNull = (value: unknown) => typeof value === 'object' && !Array.isArray(value);

/**
 * The parameters of a plain JSON POST, or undefined for any other request: a POST whose body
 * graphqlHandler read, of type `application/json`, that accepts a JSON answer (no `Accept`,
 * `*\/*` or `application/json`), carries no `Origin` (no CORS headers to add), and whose body is
 * an object of the four parameters, each of the type Yoga's check requires, with a query text or
 * the hash of a document at hand, neither a subscription nor a live query. Such a request is answered by Yoga's operation pipeline with
 * exactly what Yoga whole would answer; anything else (a refusal Yoga makes of the request
 * itself, a stream, another media type) goes to Yoga whole.
 */
function plainParams(
  req: http.IncomingMessage,
  documents: PersistedDocuments,
): { params: GraphQLParams; text: string } | undefined {
  const { headers } = req;
  const body = (req as { body?: unknown }).body;
  if (req.method !== 'POST' || !Buffer.isBuffer(body) || headers.origin !== undefined) return;
  const type = headers['content-type']?.split(',')[0];
  if (type !== 'application/json' && !type?.startsWith('application/json;')) return;
  const { accept } = headers;
  if (accept !== undefined && accept !== '*/*' && accept !== 'application/json') return;
  const declared = headers['content-length'];
  if (declared !== undefined && !/^\d+$/.test(declared)) return;
  let params: Record<string, unknown>;
  try {
    params = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
  } catch {
    return;
  }
  if (typeof params !== 'object' || params === null || Array.isArray(params)) return;
  for (const key in params) if (!PARAMETERS.has(key)) return;
  const { query, variables, operationName, extensions } = params;
  if (!isObjectOrNull(variables ?? null) || !isObjectOrNull(extensions ?? null)) return;
  if (operationName != null && typeof operationName !== 'string') return;
  const hash = (extensions as { persistedQuery?: { sha256Hash?: unknown } } | null | undefined)
    ?.persistedQuery?.sha256Hash;
  // A document by its hash alone goes to Yoga whole unless its text is at hand (else Yoga
  // answers PERSISTED_QUERY_NOT_FOUND); a subscription or a live query, whose result is a
  // stream, too.
  const text = typeof query === 'string' ? query : typeof hash === 'string' && documents.text(hash);
  if (query != null && typeof query !== 'string') return;
  if (!text || /subscription|@live/.test(text)) return;
  return { params: params as GraphQLParams, text };
}

/**
 * What Yoga's hooks read of a plain JSON POST's request: its method, URL and headers (and a
 * signal, made when read), without building a fetch Request, its headers and its body.
 */
class PlainPost {
  readonly method = 'POST';
  readonly headers: { get(name: string): string | null };

  constructor(
    private readonly req: http.IncomingMessage,
    private readonly context: ServerContext,
  ) {
    this.headers = {
      get: (name) => {
        const value = req.headers[name.toLowerCase()];
        return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
      },
    };
  }

  get url(): string {
    return `http://${this.req.headers.host ?? 'localhost'}${this.req.url ?? '/'}`;
  }

  get signal(): AbortSignal | undefined {
    return this.context.signal;
  }
}

/**
 * Answers a plain JSON POST (plainParams) through Yoga's operation pipeline (its parameter
 * hooks, envelop, the execution-result hooks), as Yoga's handler would, without its fetch
 * layer: no Request or Response objects; an operation that pipeline ran before, untraced, by
 * its prepared steps (./prepared.ts). The result is answered as Yoga's JSON result processor
 * answers it: a result without errors as 200 JSON, written with its head in one write; any
 * other through Yoga's own processor (its status, headers and body).
 */
async function answerPlainPost(
  yoga: GraphQLServer,
  mask: (error: unknown) => GraphQLError,
  services: Services,
  context: ServerContext,
  { params, text }: { params: GraphQLParams; text: string },
  prepared: PreparedOperations,
): Promise<void> {
  const request = new PlainPost(context.req, context) as unknown as Request;
  let result: Awaited<ReturnType<GraphQLServer['getResultForParams']>>;
  const tracer = activeTracer();
  // Traced, Yoga's instrumentation makes the operation's spans: Yoga's pipeline whole.
  const operation = !tracer && prepared.find(text, params.operationName);
  try {
    if (operation) {
      result = await prepared.run(operation, params, request, context);
    } else {
      // In its operation's span, as Yoga's instrumentation runs it (telemetry/graphql.ts).
      const run = () => yoga.getResultForParams({ params, request }, context);
      result = await (tracer ? inOperationSpan(tracer, run) : run());
      if (result && !isAsyncIterable(result) && !result.errors?.length) {
        prepared.learn(text, params.operationName);
      }
    }
  } catch (err) {
    // Yoga answers an error its parameter hooks throw as the only error, masked.
    result = { errors: [mask(err)] };
  }
  const uncounted = takeUncounted(services, context);
  if (uncounted) result = (await uncounted) ?? result;
  const { res } = context;
  if (result && !isAsyncIterable(result) && !result.errors?.length && !result.extensions?.http) {
    // graphql-jit's serializer of the compiled query, as Yoga's processor uses it.
    const { stringify = JSON.stringify } = result as { stringify?: (result: unknown) => string };
    sendText(res, 200, stringify(result), {}, 'application/json; charset=utf-8');
    return;
  }
  const answer = await processRegularResult(
    result ?? { errors: [] },
    yoga.fetchAPI,
    'application/json',
  );
  const headers: Record<string, string> = {};
  answer.headers.forEach((value, name) => {
    const lower = name.toLowerCase();
    if (lower !== 'content-length' && lower !== 'content-type') headers[name] = value;
  });
  sendText(
    res,
    answer.status,
    await answer.text(),
    headers,
    answer.headers.get('content-type') ?? 'application/json; charset=utf-8',
  );
}
