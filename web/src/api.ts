/** GraphQL over HTTP (queries, mutations) and graphql-ws (live events), with the page's token. */
import { createClient, type Client } from 'graphql-ws';
import type { TypedDocumentString } from './generated/graphql.ts';

export interface ApiErrorShape {
  message: string;
  extensions?: { code?: string; details?: { field?: string } };
}

export class ApiError extends Error {
  readonly code: string | undefined;
  readonly field: string | undefined;
  constructor(message: string, code?: string, field?: string) {
    super(message);
    this.code = code;
    this.field = field;
  }
  /** The message with the field it names, for display. */
  describe(): string {
    return this.field ? `${this.message} (${this.field})` : this.message;
  }
}

let token = '';
export const setToken = (value: string) => (token = value);

/**
 * How a document goes to the service: by its SHA-256 (Apollo's persisted queries), which the
 * service knows from the dashboard's build (persisted-documents.json, `npm run codegen`), so
 * that a client id held to known documents (GRAPHQL_TRUSTED_DOCUMENTS) runs the dashboard.
 * `text`: the document itself, if the service does not know the hash.
 */
export function operation(
  document: { toString(): string; __meta__?: Record<string, unknown> },
  text = false,
): { query: string; extensions?: { persistedQuery: { version: 1; sha256Hash: string } } } {
  const hash = document.__meta__?.hash;
  if (text || typeof hash !== 'string') return { query: document.toString() };
  const sha256Hash = hash.replace(/^sha256:/, '');
  return { query: '', extensions: { persistedQuery: { version: 1, sha256Hash } } };
}

/**
 * Runs a query or mutation, by its hash; the first GraphQL error is thrown as an ApiError. A
 * service that does not know the hash (PERSISTED_QUERY_NOT_FOUND) is sent the text.
 */
export async function request<R, V>(
  document: TypedDocumentString<R, V>,
  variables: V,
  signal?: AbortSignal,
): Promise<R> {
  try {
    return await send(document, variables, signal, false);
  } catch (err) {
    if (!(err instanceof ApiError) || err.code !== 'PERSISTED_QUERY_NOT_FOUND') throw err;
    return send(document, variables, signal, true);
  }
}

async function send<R, V>(
  document: TypedDocumentString<R, V>,
  variables: V,
  signal: AbortSignal | undefined,
  text: boolean,
): Promise<R> {
  let res: Response;
  try {
    res = await fetch('/graphql', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/graphql-response+json, application/json',
        authorization: `Bearer ${token}`,
      },
      body: JSON.stringify({ ...operation(document, text), variables }),
      signal,
    });
  } catch (err) {
    if (signal?.aborted) throw err;
    throw new ApiError('The service cannot be reached', 'UNAVAILABLE');
  }
  let body: { data?: R | null; errors?: ApiErrorShape[] };
  try {
    body = (await res.json()) as typeof body;
  } catch {
    throw new ApiError(`HTTP ${res.status}`, res.status === 401 ? 'UNAUTHENTICATED' : undefined);
  }
  const first = body.errors?.[0];
  if (first) {
    throw new ApiError(first.message, first.extensions?.code, first.extensions?.details?.field);
  }
  if (!body.data) throw new ApiError(`HTTP ${res.status} without data`);
  return body.data;
}

/** A WebSocket client on /graphql that authenticates in connection_init; it does not retry. */
export function liveClient(onConnected: () => void): Client {
  const url = new URL('/graphql', location.href);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  return createClient({
    url: url.toString(),
    connectionParams: { authorization: `Bearer ${token}` },
    // The caller resubscribes itself, with `after` = the last event id it saw.
    retryAttempts: 0,
    lazy: true,
    on: { connected: onConnected },
  });
}
