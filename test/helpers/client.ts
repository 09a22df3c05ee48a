import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { print } from 'graphql';

export interface GraphQLResponse<T> {
  status: number;
  data?: T | null;
  errors?: {
    message: string;
    path?: string[];
    extensions?: { code?: string; details?: Record<string, unknown> };
  }[];
}

/** Runs a typed GraphQL document over HTTP the way a client does. */
export async function gql<T, V>(
  baseUrl: string,
  token: string | undefined,
  document: TypedDocumentNode<T, V>,
  variables?: V,
): Promise<GraphQLResponse<T>> {
  const res = await fetch(`${baseUrl}/graphql`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/graphql-response+json, application/json',
      ...(token && { authorization: `Bearer ${token}` }),
    },
    body: JSON.stringify({ query: print(document), variables }),
  });
  return { status: res.status, ...((await res.json()) as object) };
}

/**
 * A GraphQL request written by hand, accepting GraphQL over HTTP's media type (with it, a
 * request error is a 400; with plain JSON, a 200).
 */
export function postGraphQL(
  baseUrl: string,
  token: string,
  query: string,
  variables?: object,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${baseUrl}/graphql`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/graphql-response+json',
      ...headers,
    },
    body: JSON.stringify({ query, variables }),
  });
}

/** A REST call; the body is sent as JSON when given. */
export async function rest(
  baseUrl: string,
  token: string | undefined,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; headers: Headers; body: any }> {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: {
      ...(token && { authorization: `Bearer ${token}` }),
      ...(body !== undefined && { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}
