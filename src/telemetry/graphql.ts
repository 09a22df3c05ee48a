import { context, createContextKey, trace, type Span, type Tracer } from '@opentelemetry/api';
import { getOperationAST, type DocumentNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { fail, inSpan } from './tracing.ts';

const OPERATION_SPAN = createContextKey('clipgate graphql operation span');

/**
 * Runs an HTTP operation in its `graphql.operation` span, which its phases name once known: as
 * Yoga's instrumentation does, and as the plain POST path (graphql/yoga.ts) does without it.
 */
export const inOperationSpan = <T>(tracer: Tracer, operation: () => T): T =>
  inSpan(tracer, 'graphql.operation', {}, (span) =>
    context.with(context.active().setValue(OPERATION_SPAN, span), operation),
  );

/**
 * GraphQL tracing as a Yoga plugin: a `graphql.operation` span around each operation over HTTP
 * (named by its type and name once known, e.g. `mutation CreateActivity`), with `graphql.parse`,
 * `graphql.validate` and `graphql.execute` (or `graphql.subscribe`) spans inside it. Operations
 * over WebSocket run through the same envelop and get the phase spans. Errors in the result mark
 * the execute span failed (the operation's outcome; the HTTP status stays 200).
 */
export function graphqlTracing(tracer: Tracer): Plugin {
  const phase =
    (name: string) =>
    <T>(_payload: unknown, wrapped: () => T): T =>
      inSpan(tracer, name, {}, () => wrapped());

  const describe = (document: DocumentNode, operationName: string | null | undefined) => {
    const operation = getOperationAST(document, operationName);
    const type = operation?.operation ?? 'query';
    const name = operation?.name?.value;
    const attributes = {
      'graphql.operation.type': type,
      ...(name !== undefined && { 'graphql.operation.name': name }),
    };
    // The phase span running now, and the operation's span around it (HTTP only).
    trace.getActiveSpan()?.setAttributes(attributes);
    const operationSpan = context.active().getValue(OPERATION_SPAN) as Span | undefined;
    operationSpan?.setAttributes(attributes);
    operationSpan?.updateName(name ? `${type} ${name}` : type);
  };

  return {
    instrumentation: {
      operation: (_payload, wrapped) => inOperationSpan(tracer, wrapped),
      parse: phase('graphql.parse'),
      validate: phase('graphql.validate'),
      execute: phase('graphql.execute'),
      subscribe: phase('graphql.subscribe'),
    },
    onExecute: ({ args }) => {
      describe(args.document, args.operationName);
      return {
        onExecuteDone: ({ result }) => {
          const errors = 'errors' in result ? result.errors : undefined;
          const span = trace.getActiveSpan();
          if (span && errors?.length) fail(span, errors[0]);
        },
      };
    },
    onSubscribe: ({ args }) => describe(args.document, args.operationName),
  };
}
