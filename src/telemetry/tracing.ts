import type http from 'node:http';
import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
  type SpanOptions,
  type Tracer,
} from '@opentelemetry/api';

/**
 * The hooks the rest of the service calls to trace its work (HTTP requests, SQL, webhook
 * attempts, the outbox's trace context). They only need the OpenTelemetry API: while tracing is
 * off (no `OTEL_EXPORTER_OTLP_ENDPOINT`, so `start.ts` never ran) every hook calls straight
 * through, and no SDK is loaded. See docs/decisions/0133-tracing-loaded-when-configured.md.
 */
let tracer: Tracer | undefined;

/** Set by start.ts once the SDK is registered, cleared when it shuts down. */
export function setTracer(next: Tracer | undefined): void {
  tracer = next;
}

/** The tracer while tracing is on; undefined while it is off. */
export const activeTracer = (): Tracer | undefined => tracer;

/** Marks a span failed with what went wrong. */
export function fail(span: Span, err: unknown): void {
  span.setStatus({
    code: SpanStatusCode.ERROR,
    message: err instanceof Error ? err.message : String(err),
  });
  if (err instanceof Error) span.recordException(err);
}

/**
 * Runs `fn` in a new active span that ends when `fn` returns or its promise settles; a throw or
 * a rejection marks it failed. `parent` defaults to the active context.
 */
export function inSpan<T>(
  t: Tracer,
  name: string,
  options: SpanOptions,
  fn: (span: Span) => T,
  parent: Context = context.active(),
): T {
  return t.startActiveSpan(name, options, parent, (span) => {
    let result: T;
    try {
      result = fn(span);
    } catch (err) {
      fail(span, err);
      span.end();
      throw err;
    }
    // Envelop hands back thenables that are not always Promises.
    if (typeof (result as { then?: unknown } | null)?.then !== 'function') {
      span.end();
      return result;
    }
    return Promise.resolve(result).then(
      (value: unknown) => {
        span.end();
        return value;
      },
      (err: unknown) => {
        fail(span, err);
        span.end();
        throw err;
      },
    ) as T;
  });
}

/**
 * Handles a request inside a SERVER span continuing the caller's `traceparent`, if any. The span
 * ends once the response is done and `handle` has settled (a quick answer can be sent before
 * its handler returns); it is named by its route then (`route` is read then).
 */
export function traceRequest(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  route: () => string,
  handle: () => Promise<unknown>,
): void {
  if (!tracer) {
    void handle();
    return;
  }
  const method = req.method ?? 'GET';
  const parent = propagation.extract(ROOT_CONTEXT, req.headers);
  const span = tracer.startSpan(
    method,
    {
      kind: SpanKind.SERVER,
      attributes: {
        'http.request.method': method,
        // The path only: a query string may carry a media URL's signature.
        'url.path': (req.url ?? '/').split('?')[0],
      },
    },
    parent,
  );
  const closed = new Promise((resolve) => res.once('close', resolve));
  const handled = context.with(trace.setSpan(parent, span), handle);
  void Promise.all([closed, handled]).finally(() => {
    const label = route();
    span.updateName(`${method} ${label}`);
    span.setAttributes({ 'http.route': label, 'http.response.status_code': res.statusCode });
    if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  });
}

/** The W3C `traceparent` of the active span, to store with work done later; null if none. */
export function currentTraceparent(): string | null {
  if (!tracer || !trace.getActiveSpan()) return null;
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent ?? null;
}

/**
 * A CLIENT span for a call made later on behalf of the request whose `traceparent` was stored
 * with the work (null: a trace of its own). `call` gets the `traceparent` to send with it
 * (the span's own), or undefined while tracing is off; `attributes` are the span's first ones
 * (asked for only while tracing is on: a call may be made thousands of times a second), and
 * `describe` turns its result into the span's last ones and, for a failure, its error.
 */
export function traceCall<T>(
  name: string,
  storedTraceparent: string | null,
  attributes: () => Attributes,
  call: (traceparent: string | undefined) => Promise<T>,
  describe: (result: T) => { attributes: Attributes; error?: string },
): Promise<T> {
  if (!tracer) return call(undefined);
  const parent = storedContext(storedTraceparent);
  return inSpan(
    tracer,
    name,
    { kind: SpanKind.CLIENT, attributes: attributes() },
    async (span) => {
      const result = await call(currentTraceparent() ?? undefined);
      const { attributes: outcome, error } = describe(result);
      span.setAttributes(outcome);
      if (error !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: error });
      return result;
    },
    parent,
  );
}

/** The context a stored `traceparent` continues (null or absent: a trace of its own). */
const storedContext = (traceparent: string | null | undefined): Context =>
  traceparent ? propagation.extract(ROOT_CONTEXT, { traceparent }) : ROOT_CONTEXT;

/**
 * Runs `fn` in a span continuing a trace handed over from elsewhere by its `traceparent` (a
 * GraphQL worker thread continues the operation of its instance); plain while tracing is off.
 */
export function continueTrace<T>(
  name: string,
  traceparent: string | undefined,
  fn: (span: Span | undefined) => Promise<T>,
): Promise<T> {
  if (!tracer) return fn(undefined);
  return inSpan(tracer, name, {}, fn, storedContext(traceparent));
}
