import { GraphQLError } from 'graphql';
import { AppError, errorStatus, type ErrorCode } from '../errors.ts';
import type { Logger } from '../logger.ts';
import { databaseAnswer } from '../storage/faults.ts';

/** Codes Yoga gives errors of its own that are not the client's request being malformed. */
const yogaCodes: Record<string, ErrorCode> = {
  REQUEST_ENTITY_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  INTERNAL_SERVER_ERROR: 'INTERNAL',
};

const isErrorCode = (code: unknown): code is ErrorCode =>
  typeof code === 'string' && Object.hasOwn(errorStatus, code);

/**
 * The contract's code of an error of the GraphQL layer: its own when it has one (an AppError
 * raised before execution, see requestError), else the client's request is at fault
 * (INVALID_ARGUMENT: bad syntax, an unknown field, a bad variable, no such operation, a body
 * that is no GraphQL request), except a body over the limit, a method `/graphql` does not take,
 * and Yoga's own failures.
 */
function layerCode(error: GraphQLError): ErrorCode {
  const { code, http } = error.extensions ?? {};
  if (isErrorCode(code)) return code;
  if (typeof code === 'string' && Object.hasOwn(yogaCodes, code)) return yogaCodes[code]!;
  if ((http as { status?: number } | undefined)?.status === 405) return 'METHOD_NOT_ALLOWED';
  return 'INVALID_ARGUMENT';
}

/**
 * Gives every GraphQL error a contract code in `extensions.code` and nothing else of the error
 * it comes from (no `originalError`, no stack): an AppError keeps its code and details; an
 * error of the GraphQL layer itself gets its code from layerCode (keeping the HTTP status and
 * headers Yoga answers with, which Yoga leaves out of the body); anything else is an INTERNAL
 * error whose details stay in the log.
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
  // The database's answers (busy, stopped, unreachable) carry their HTTP status and Retry-After.
  const database = databaseAnswer(original);
  if (database) {
    return new GraphQLError(database.message, {
      ...location,
      extensions: {
        code: database.code,
        details: database.details,
        http: { status: database.status, headers: database.headers },
      },
    });
  }
  if (original instanceof AppError) {
    return new GraphQLError(original.message, {
      ...location,
      extensions: { code: original.code, details: original.details },
    });
  }
  if (graphqlError && (!original || original instanceof GraphQLError)) {
    const code = layerCode(graphqlError);
    if (code === 'INTERNAL') return internal(graphqlError, location, logger);
    // The compiled executor's errors may come without an extensions object.
    const { details, http, originalError } = graphqlError.extensions ?? {};
    // Yoga marks a body it could not read with the parser's error (`originalError`), and answers
    // it 400 whatever the client accepts; the error stays out of the answer, the 400 stays.
    const status = originalError && http ? { status: (http as { status?: number }).status } : http;
    return new GraphQLError(graphqlError.message, {
      ...location,
      extensions: {
        code,
        ...(details !== undefined && { details }),
        ...(status !== undefined && { http: status }),
      },
    });
  }
  return internal(original, location, logger);
}

function internal(
  err: unknown,
  location: Partial<Pick<GraphQLError, 'nodes' | 'source' | 'positions' | 'path'>>,
  logger: Logger,
): GraphQLError {
  logger.error({ err }, 'unexpected error in a GraphQL operation');
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
