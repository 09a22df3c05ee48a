import type { Cluster } from './cluster.ts';

/** A 5xx answer an instance gave, and when. */
export interface ServerError {
  at: number;
  status: number;
  path: string;
}

/** The data of a GraphQL answer: each root field's object of scalar fields. */
export type GraphQLData = Record<string, Record<string, string>>;

interface GraphQLBody {
  data?: GraphQLData;
  errors?: { extensions?: { code?: string } }[];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** How long a client keeps retrying one request over instances that die or are unavailable. */
const GIVE_UP_MS = 60_000;

/**
 * A client of the cluster as a load balancer sees it: each request goes to a running instance
 * and is retried on another when the connection fails (the instance was killed) or on a 503
 * (after its Retry-After, at most a second). Every 5xx is recorded.
 */
export class ClusterClient {
  readonly serverErrors: ServerError[] = [];
  requests = 0;
  retries = 0;
  constructor(readonly cluster: Cluster) {}

  /**
   * A request that must end in a 2xx or `allow`ed status; resolves with its status, JSON body and
   * how many times it was sent (every attempt with the same `headers`, e.g. an Idempotency-Key).
   */
  async request(
    token: string,
    method: string,
    path: string,
    body?: unknown,
    allow: number[] = [],
    headers: Record<string, string> = {},
  ): Promise<{ status: number; body: unknown; attempts: number }> {
    const giveUp = Date.now() + GIVE_UP_MS;
    for (let attempts = 1; ; attempts++) {
      const base = this.cluster.pick();
      let res: Response | undefined;
      if (base) {
        this.requests++;
        try {
          res = await fetch(`${base}${path}`, {
            method,
            headers: {
              authorization: `Bearer ${token}`,
              accept: 'application/json',
              ...(body !== undefined && { 'content-type': 'application/json' }),
              ...headers,
            },
            body: body === undefined ? undefined : JSON.stringify(body),
            signal: AbortSignal.timeout(30_000),
          });
        } catch {
          res = undefined; // killed under the request, or refused while restarting
        }
      }
      if (res && res.status >= 500) {
        this.serverErrors.push({ at: Date.now(), status: res.status, path });
      }
      if (res && res.status !== 503) {
        const text = await res.text();
        const json = text ? JSON.parse(text) : undefined;
        if (res.ok || allow.includes(res.status))
          return { status: res.status, body: json, attempts };
        throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
      }
      const retryAfterS = Number(res?.headers.get('retry-after') ?? 0.1);
      await res?.body?.cancel();
      if (Date.now() > giveUp) throw new Error(`${method} ${path}: no instance answered`);
      this.retries++;
      await sleep(Math.min(1000, retryAfterS * 1000));
    }
  }

  /**
   * A GraphQL operation that must succeed; resolves with its data. An UNAVAILABLE error (the
   * database unreachable, answered 200 with the error as GraphQL over JSON does) is retried like
   * a 503 and recorded as one; an INTERNAL one is recorded as a 500.
   */
  async graphql(
    token: string,
    query: string,
    variables: Record<string, unknown>,
  ): Promise<GraphQLData> {
    const giveUp = Date.now() + GIVE_UP_MS;
    for (;;) {
      const res = await this.request(token, 'POST', '/graphql', { query, variables });
      const body = res.body as GraphQLBody;
      const codes: unknown[] = (body.errors ?? []).map((e) => e.extensions?.code);
      if (codes.length === 0) return body.data!;
      const status = codes.includes('INTERNAL') ? 500 : codes.includes('UNAVAILABLE') ? 503 : 0;
      if (status) this.serverErrors.push({ at: Date.now(), status, path: '/graphql' });
      if (status !== 503 || Date.now() > giveUp) {
        throw new Error(`GraphQL: ${JSON.stringify(body.errors).slice(0, 300)}`);
      }
      this.retries++;
      await sleep(500);
    }
  }

  /** One scalar of a GraphQL operation that must succeed: `data[root][field]`. */
  async value(
    token: string,
    query: string,
    variables: Record<string, unknown>,
    root: string,
    field: string,
  ): Promise<string> {
    const value = (await this.graphql(token, query, variables))[root]?.[field];
    if (value === undefined) throw new Error(`GraphQL: no ${root}.${field}`);
    return value;
  }
}
