import type http from 'node:http';
import { useGraphQlJit } from '@envelop/graphql-jit';
import { getOperationAST } from 'graphql';
import { createYoga } from 'graphql-yoga';
import { admit, type RequestContext } from '../context.ts';
import { AppError } from '../errors.ts';
import type { HttpHandler } from '../http/server.ts';
import type { Services } from '../services.ts';
import type { GraphQLContext } from './builder.ts';
import { requestError, toGraphQLError } from './errors.ts';
import { operationLimits } from './limits.ts';
import { schema } from './schema.ts';

/** What Yoga is handed by the HTTP server, and by the WebSocket adapter (`wsContext`). */
export interface ServerContext {
  req: http.IncomingMessage;
  res: http.ServerResponse;
  /** A graphql-ws connection, authenticated once in connection_init (graphql/ws.ts). */
  wsContext?: RequestContext;
}

/** GraphQL over HTTP and SSE on `/graphql`; its envelop also runs the WebSocket operations. */
export function createGraphQL(services: Services) {
  return createYoga<ServerContext, GraphQLContext>({
    schema,
    graphqlEndpoint: '/graphql',
    landingPage: false,
    logging: false,
    // Called once per operation, also for each operation of a WebSocket connection (counted
    // by the WebSocket adapter when it subscribes).
    context: async ({ request, wsContext, res }) => {
      let caller = wsContext;
      try {
        caller ??= await admit(services, request.headers.get('authorization'), res);
      } catch (err) {
        throw err instanceof AppError ? requestError(err) : err;
      }
      return { ...caller, mediaUrls: services.media.lookup.urlLoader() };
    },
    maskedErrors: {
      maskError: (error) => {
        const masked = toGraphQLError(error, services.logger);
        if (masked.extensions.code === 'UNAVAILABLE') {
          services.metrics.refusals.inc({ reason: 'unavailable' });
        }
        return masked;
      },
    },
    // The same body limit as REST (413).
    maxRequestBodySize: services.config.maxBodyBytes,
    // Compiles each operation once into a specialized function: several times faster than the
    // generic executor on the listing pages.
    // Not subscriptions: graphql-jit 0.8 hands a subscription field's `subscribe` the operation's
    // variables instead of the field's arguments; those run on graphql-js.
    plugins: [
      ...operationLimits(services.config.limits.graphql, {
        refused: () => services.metrics.refusals.inc({ reason: 'too_costly' }),
      }),
      useGraphQlJit(
        {},
        {
          enableIf: (args) =>
            getOperationAST(args.document, args.operationName)?.operation !== 'subscription',
        },
      ),
    ],
  });
}

export type GraphQLServer = ReturnType<typeof createGraphQL>;

export function graphqlHandler(yoga: GraphQLServer): HttpHandler {
  return async (req, res, pathname) => {
    if (pathname !== '/graphql') return undefined;
    await yoga(req, res);
    return pathname;
  };
}
