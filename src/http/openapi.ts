import { z } from 'zod';
import { scopeNames } from '../accounts/scopes.ts';
import { errorStatus } from '../errors.ts';
import type { RestRoute } from './rest.ts';

const errorBody = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message', 'details'],
      properties: {
        code: { type: 'string', enum: Object.keys(errorStatus) },
        message: { type: 'string' },
        details: {
          type: 'object',
          properties: { field: { type: 'string' }, position: { type: 'integer' } },
        },
      },
    },
  },
};

/** An operation served outside the JSON route table (media streaming), documented as given. */
export interface DocumentedOperation {
  method: 'get' | 'head' | 'put' | 'post' | 'delete';
  path: string;
  operation: Record<string, unknown>;
}

/** The OpenAPI 3.1 description of the REST routes, built from the same route table they run on. */
export function openApiDocument(
  routes: RestRoute[],
  scopePrefix: string,
  extra: DocumentedOperation[] = [],
): object {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const parameters = [...route.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
      name,
      in: 'path',
      required: true,
      schema: { type: 'string' },
    }));
    (paths[route.path] ??= {})[route.method.toLowerCase()] = {
      summary: route.summary,
      security: [{ oauth2: route.scopes.map((s) => `${scopePrefix}:${s}`) }],
      parameters,
      ...(route.body && {
        requestBody: {
          required: false,
          content: { 'application/json': { schema: z.toJSONSchema(route.body, { io: 'input' }) } },
        },
      }),
      responses: {
        default: {
          description: 'An error',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
        },
      },
    };
  }
  for (const { method, path, operation } of extra) (paths[path] ??= {})[method] = operation;
  return {
    openapi: '3.1.0',
    info: {
      title: 'clipgate REST API',
      version: '1',
      description: 'The REST part of the contract; GraphQL is at /graphql.',
    },
    paths,
    components: {
      schemas: { Error: errorBody },
      securitySchemes: {
        oauth2: {
          type: 'oauth2',
          description: 'Authorization: Bearer <access token>',
          flows: {
            clientCredentials: {
              tokenUrl: '/oauth/token',
              scopes: Object.fromEntries(scopeNames.map((s) => [`${scopePrefix}:${s}`, s])),
            },
          },
        },
      },
    },
  };
}
