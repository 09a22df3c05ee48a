import { z } from 'zod';
import { fullScopeName, scopeNames, type ScopeName } from '../accounts/scopes.ts';
import { errorStatus, type ErrorCode } from '../errors.ts';
import { json, Schemas } from '../schemas.ts';
import type { RestRoute } from './rest.ts';

// ------------------------------------------------------- schemas shared by the routes

/** The body of every error answer. */
export const errorBody = z
  .strictObject({
    error: z.strictObject({
      code: z.enum(Object.keys(errorStatus) as [ErrorCode, ...ErrorCode[]]),
      message: z.string(),
      details: z
        .object({
          field: z.string().optional().meta({ description: 'The offending request field' }),
          position: z
            .int()
            .optional()
            .meta({ description: 'Filter errors: the character offset in the filter' }),
        })
        .catchall(z.unknown()),
    }),
  })
  .meta({ id: 'Error' });

const header = (description: string) => ({ description, schema: { type: 'string' } });

/** The error answers, each a reusable response of the document. */
const errorResponses = {
  BadRequest: {
    status: 400,
    description:
      'INVALID_ARGUMENT: malformed JSON, wrong types, unknown fields or values out of range; `details.field` names the field',
  },
  Unauthenticated: {
    status: 401,
    description: 'UNAUTHENTICATED: no token, or a malformed, expired or badly signed one',
    headers: { 'WWW-Authenticate': header('`Bearer`') },
  },
  PermissionDenied: {
    status: 403,
    description: 'PERMISSION_DENIED: the token lacks the scope (`details.scope`)',
    headers: {
      'WWW-Authenticate': header('`Bearer error="insufficient_scope", scope="..."`'),
    },
  },
  NotFound: {
    status: 404,
    description: 'NOT_FOUND: no such resource, or one of another account',
  },
  Conflict: { status: 409, description: 'CONFLICT' },
  PayloadTooLarge: { status: 413, description: 'PAYLOAD_TOO_LARGE: the body is over the limit' },
  UnsupportedMediaType: {
    status: 415,
    description: 'UNSUPPORTED_MEDIA_TYPE: the body is not of the content type required',
  },
  RangeNotSatisfiable: {
    status: 416,
    description: 'INVALID_ARGUMENT: the range starts at or after the end of the object',
    headers: { 'Content-Range': header('`bytes */{size}`') },
  },
  Unavailable: {
    status: 503,
    description: 'UNAVAILABLE: try again after `Retry-After` seconds',
    headers: { 'Retry-After': header('Seconds') },
  },
  Error: {
    status: 'default',
    description:
      'Any other error: RATE_LIMITED (429, with `Retry-After`), INTERNAL (500), UNAVAILABLE (503, with `Retry-After`)',
  },
} as const;

export type ErrorResponse = keyof typeof errorResponses;

/** An error answer of its own, with the error body. */
export const errorResponse = (description: string) => ({
  description,
  content: json({ $ref: '#/components/schemas/Error' }),
});

/** `{status: $ref}` entries for the error answers named. */
export function errorResponsesFor(...names: ErrorResponse[]): Record<string, object> {
  return Object.fromEntries(
    names.map((name) => [
      String(errorResponses[name].status),
      { $ref: `#/components/responses/${name}` },
    ]),
  );
}

const pathParameters: Record<string, { description: string; schema: object }> = {
  accountId: {
    description: "The caller's own account id, or `self`",
    schema: { type: 'string' },
  },
  accessoryId: {
    description: 'An accessory id',
    schema: { $ref: '#/components/schemas/Uuid' },
  },
  activityId: {
    description: 'An activity id, YYYYMMDDTHHMMSSZ',
    schema: { type: 'string', pattern: '^\\d{8}T\\d{6}Z$' },
  },
  file: {
    description: 'A file named by the playlist or manifest',
    schema: { type: 'string', pattern: '^[A-Za-z0-9_-][A-Za-z0-9._-]*$' },
  },
  signature: {
    description: '`{expires}.{mac}`, from a signed media URL',
    schema: { type: 'string' },
  },
};

/** The path parameters of a path template, e.g. `/api/accessories/{accessoryId}`. */
export function pathParametersOf(path: string): object[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    ...pathParameters[name!],
  }));
}

/**
 * The security requirements of an operation: a bearer token with any one of the scopes (none:
 * any valid token).
 */
export const anyScope = (scopePrefix: string, scopes: readonly ScopeName[]) =>
  scopes.length === 0
    ? [{ bearer: [] }]
    : scopes.map((scope) => ({ bearer: [fullScopeName(scopePrefix, scope)] }));

// ------------------------------------------------------------------ the document

/** An operation served outside the JSON route table (media streaming), documented as given. */
export interface DocumentedOperation {
  method: 'get' | 'head' | 'put' | 'post' | 'delete';
  path: string;
  /** The OpenAPI operation; zod schemas in it become JSON Schemas (their `id`s components). */
  operation: Record<string, unknown>;
}

/** A route's query parameters, each described by its member of `route.query`. */
function queryParametersOf(route: RestRoute, schemas: Schemas): object[] {
  return Object.entries(route.query?.shape ?? {}).map(([name, member]) => {
    const { description, ...schema } = schemas.of(member as z.ZodType, 'input');
    return {
      name,
      in: 'query',
      required: !(member as z.ZodType).safeParse(undefined).success,
      ...(description !== undefined && { description }),
      schema,
    };
  });
}

function routeOperation(route: RestRoute, scopePrefix: string, schemas: Schemas): object {
  const hasParams = route.path.includes('{') || route.query !== undefined;
  const errors: ErrorResponse[] = [
    ...(route.body || hasParams ? (['BadRequest'] as const) : []),
    'Unauthenticated',
    'PermissionDenied',
    ...(hasParams ? (['NotFound'] as const) : []),
    ...(route.body ? (['PayloadTooLarge', 'UnsupportedMediaType'] as const) : []),
    'Error',
  ];
  const success = route.response
    ? {
        200: {
          description: route.response.description ?? 'OK',
          content: json(schemas.of(route.response, 'output')),
        },
      }
    : { 204: { description: 'Done; no body' } };
  return {
    operationId: route.operationId,
    summary: route.summary,
    security: anyScope(scopePrefix, route.scopes),
    parameters: [...pathParametersOf(route.path), ...queryParametersOf(route, schemas)],
    ...(route.body && {
      requestBody: {
        // An empty body reads as `{}`: required only where `{}` is not a valid body.
        required: !route.body.safeParse({}).success,
        content: {
          ...json(schemas.of(route.body, 'input')),
          ...(route.ndjson && {
            // One item of the array per line.
            'application/x-ndjson': { schema: schemas.of(route.body, 'input').items ?? {} },
          }),
        },
      },
    }),
    responses: { ...success, ...errorResponsesFor(...errors) },
  };
}

/**
 * The OpenAPI 3.1 description of the REST routes, built from the same route table they run on;
 * `webhooks` are the document's webhooks (path items whose zod schemas become JSON Schemas).
 */
export function openApiDocument(
  routes: RestRoute[],
  scopePrefix: string,
  extra: DocumentedOperation[] = [],
  webhooks: Record<string, object> = {},
): object {
  const schemas = new Schemas();
  const errorSchema = schemas.of(errorBody, 'output');
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    (paths[route.path] ??= {})[route.method.toLowerCase()] = routeOperation(
      route,
      scopePrefix,
      schemas,
    );
  }
  for (const { method, path, operation } of extra) {
    (paths[path] ??= {})[method] = schemas.resolve(operation);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'clipgate REST API',
      version: '1',
      description:
        'The REST part of the API; GraphQL (queries, mutations, subscriptions) is at /graphql. docs/api.md describes both.',
    },
    paths,
    webhooks: schemas.resolve(webhooks),
    components: {
      schemas: schemas.components,
      responses: Object.fromEntries(
        Object.entries(errorResponses).map(([name, r]) => [
          name,
          {
            description: r.description,
            ...('headers' in r && { headers: r.headers }),
            content: json(errorSchema),
          },
        ]),
      ),
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description: `An OAuth 2.0 access token: \`Authorization: Bearer <token>\`. An operation needs one of the scopes its security lists: ${scopeNames
            .map((s) => `\`${fullScopeName(scopePrefix, s)}\``)
            .join(', ')}.`,
        },
      },
    },
  };
}
