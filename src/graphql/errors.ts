import { GraphQLError } from 'graphql';
import { AppError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import { databaseUnavailable, isDatabaseUnavailable } from '../storage/faults.ts';

const yogaCodes: Record<string, string> = {
  REQUEST_ENTITY_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  BAD_REQUEST: 'INVALID_ARGUMENT',
};

/**
 * Gives every GraphQL error a contract code in `extensions.code`: an AppError keeps its own;
 * an error of the GraphQL layer itself (bad syntax, unknown field, bad variables) is the
 * client's, so INVALID_ARGUMENT; anything else is an INTERNAL error whose details stay in the log.
 */
export function toGraphQLError(error: unknown, logger: Logger): GraphQLError {
  const graphqlError = error instanceof GraphQLError ? error : undefined;
  const original = graphqlError ? graphqlError.originalError : error;
  const location = graphqlError
    ? {
        nodes: graphqlError.nodes,
        source: graphqlError.source,
        positions: graphqlError.positions,
        path: graphqlError.path,
      }
    : {};
  if (original instanceof AppError) {
    return new GraphQLError(original.message, {
      ...location,
      extensions: { code: original.code, details: original.details },
    });
  }
  if (graphqlError && (!original || original instanceof GraphQLError)) {
    // The compiled executor's errors may come without an extensions object.
    const code = graphqlError.extensions?.code;
    // Yoga's own request errors, in the contract's codes (their HTTP status stays).
    const contractCode = typeof code === 'string' ? yogaCodes[code] : undefined;
    if (contractCode) {
      return new GraphQLError(graphqlError.message, {
        ...location,
        extensions: { ...graphqlError.extensions, code: contractCode },
      });
    }
    if (code && code !== 'GRAPHQL_VALIDATION_FAILED') return graphqlError;
    return new GraphQLError(graphqlError.message, {
      ...location,
      extensions: { ...graphqlError.extensions, code: 'INVALID_ARGUMENT' },
    });
  }
  if (isDatabaseUnavailable(original)) {
    const unavailable = databaseUnavailable();
    return new GraphQLError(unavailable.message, {
      ...location,
      extensions: {
        code: unavailable.code,
        details: unavailable.details,
        http: { status: unavailable.status, headers: unavailable.headers },
      },
    });
  }
  logger.error({ err: original }, 'unexpected error in a GraphQL operation');
  return new GraphQLError('internal error', { ...location, extensions: { code: 'INTERNAL' } });
}

/** An AppError thrown before execution (authentication), with its HTTP status and headers. */
export function requestError(error: AppError): GraphQLError {
  return new GraphQLError(error.message, {
    extensions: {
      code: error.code,
      details: error.details,
      http: { status: error.status, headers: error.headers },
    },
  });
}

/**
 * An error answered on `/graphql` before Yoga runs (shedding, authentication, the rate limit), as
 * Yoga would answer it: GraphQL's shape, so that a GraphQL client finds `errors` in any answer,
 * in GraphQL over HTTP's media type when the client accepts it.
 */
export function graphqlErrorAnswer(accept: string | undefined, error: AppError) {
  return {
    body: {
      errors: [
        { message: error.message, extensions: { code: error.code, details: error.details } },
      ],
    },
    contentType: accept?.includes('application/graphql-response+json')
      ? 'application/graphql-response+json; charset=utf-8'
      : 'application/json; charset=utf-8',
  };
}
