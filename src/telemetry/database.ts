import { SpanKind, trace } from '@opentelemetry/api';
import type pg from 'pg';
import { activeTracer, inSpan } from './tracing.ts';

/**
 * The pool the hand-written SQL uses (Prisma's own queries are traced by Prisma's
 * instrumentation, start.ts): while tracing is on, each `query` made inside a traced piece of
 * work (a request, a webhook attempt) gets a CLIENT span with its statement. Queries of
 * background loops with no trace of their own (the dispatcher's polling) stay untraced rather
 * than each starting a trace. While tracing is off this is the pool itself.
 */
export function tracedPool(pool: pg.Pool): pg.Pool {
  const tracer = activeTracer();
  if (!tracer) return pool;
  const query = (...args: unknown[]): unknown => {
    const [first] = args;
    const text = typeof first === 'string' ? first : (first as { text?: string } | null)?.text;
    // Callback style and untraced work run as they are.
    if (!trace.getActiveSpan() || typeof args.at(-1) === 'function' || text === undefined) {
      return Reflect.apply(pool.query, pool, args);
    }
    const operation = /^\s*(\w+)/.exec(text)?.[1]?.toUpperCase() ?? 'QUERY';
    return inSpan(
      tracer,
      `pg.query ${operation}`,
      {
        kind: SpanKind.CLIENT,
        attributes: {
          'db.system.name': 'postgresql',
          'db.operation.name': operation,
          'db.query.text': text,
        },
      },
      () => Reflect.apply(pool.query, pool, args) as Promise<unknown>,
    );
  };
  return new Proxy(pool, {
    get(target, property) {
      if (property === 'query') return query;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
