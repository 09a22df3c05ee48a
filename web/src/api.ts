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

/** Runs a query or mutation; the first GraphQL error is thrown as an ApiError. */
export async function request<R, V>(
  document: TypedDocumentString<R, V>,
  variables: V,
  signal?: AbortSignal,
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
      body: JSON.stringify({ query: document.toString(), variables }),
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
