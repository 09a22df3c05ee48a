import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { print } from 'graphql';
import { createClient, type Client } from 'graphql-ws';
import { vi } from 'vitest';
import WebSocket from 'ws';
import { loadConfig, type RedisTarget } from '../../src/config.ts';
import { graphql } from '../generated/index.ts';
import { serversRequired, type TestApp } from '../helpers/app.ts';
import { checkReceived, liveEventProblems } from '../helpers/catalog.ts';
import { CreateActivity, ok } from '../helpers/fixtures.ts';

export const AccessoryEvents = graphql(`
  subscription AccessoryEvents($accessoryId: ID!, $after: String) {
    accessoryEvents(accessoryId: $accessoryId, after: $after) {
      eventId
      accountId
      accessoryId
      eventType
      eventData
      occurredAt
    }
  }
`);

export const AccountEvents = graphql(`
  subscription AccountEvents($accountId: ID!, $eventTypes: [EventType!], $after: String) {
    accountEvents(accountId: $accountId, eventTypes: $eventTypes, after: $after) {
      eventId
      accountId
      accessoryId
      eventType
      eventData
      occurredAt
    }
  }
`);

/** Redis-backed suites run when TEST_REDIS_URL is set; CI must set it. */
export const redisUrl = process.env.TEST_REDIS_URL;
if (serversRequired && !redisUrl) {
  throw new Error('CI must set TEST_REDIS_URL: the live-event suites run with Redis as well');
}
if (!redisUrl) {
  console.warn('TEST_REDIS_URL is not set: the Redis live-event tests do not run');
}

/**
 * Redis Cluster suites run when TEST_REDIS_CLUSTER_NODES (host:port,...) is set; CI sets it to
 * the three masters of scripts/redis-cluster-local.sh.
 */
export const redisClusterNodes = process.env.TEST_REDIS_CLUSTER_NODES;
if (serversRequired && !redisClusterNodes) {
  throw new Error('CI must set TEST_REDIS_CLUSTER_NODES: the Redis suites run on a cluster too');
}
if (!redisClusterNodes) {
  console.warn('TEST_REDIS_CLUSTER_NODES is not set: the Redis Cluster tests do not run');
}

/** A Redis the suites share live events and limits through: one server, or a cluster. */
export interface RedisVariant {
  name: 'redis' | 'cluster';
  /** The app's settings that point it there. */
  env: Record<string, string>;
  target: RedisTarget;
}

const variant = (name: RedisVariant['name'], env: Record<string, string>): RedisVariant => ({
  name,
  env,
  target: loadConfig(env).redis!,
});

/** Every Redis the environment names: TEST_REDIS_URL, TEST_REDIS_CLUSTER_NODES. */
export const redisVariants: RedisVariant[] = [
  ...(redisUrl ? [variant('redis', { REDIS_URL: redisUrl })] : []),
  ...(redisClusterNodes ? [variant('cluster', { REDIS_CLUSTER_NODES: redisClusterNodes })] : []),
];

export interface Received {
  eventId: string;
  eventType: string;
  accessoryId?: string | null;
  eventData?: unknown;
}

export interface Closed {
  code: number;
  reason: string;
}

export interface WsClient {
  client: Client;
  /** Resolves with the close event once the socket closed. */
  closed: Promise<Closed>;
  dispose(): Promise<void>;
}

/** A graphql-ws client on the app's /graphql over a real WebSocket (no retries). */
export function wsClient(
  url: string,
  authorization: string | undefined,
  options: { lazy?: boolean } = {},
): WsClient {
  let onClosed!: (closed: Closed) => void;
  const closed = new Promise<Closed>((resolve) => (onClosed = resolve));
  const client = createClient({
    url: `${url.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: authorization === undefined ? {} : { authorization },
    retryAttempts: 0,
    lazy: options.lazy ?? false,
    onNonLazyError: () => {},
    on: {
      closed: (event) => {
        const e = event as { code: number; reason: string | Buffer };
        onClosed({ code: e.code, reason: String(e.reason) });
      },
    },
  });
  return { client, closed, dispose: () => client.dispose() as Promise<void> };
}

export interface Subscription<T> {
  items: T[];
  errors: unknown[];
  /** Resolves when the server completes the operation or it errors. */
  ended: Promise<void>;
  unsubscribe(): void;
}

/**
 * Subscribes and collects the subscription's payloads (the field's value), each checked against
 * the event catalog (test/helpers/catalog.ts).
 */
export function subscribe<T, V>(
  client: Client,
  document: TypedDocumentNode<T, V>,
  variables: V,
  pick: (data: T) => Received,
): Subscription<Received> {
  const items: Received[] = [];
  const errors: unknown[] = [];
  let onEnd!: () => void;
  const ended = new Promise<void>((resolve) => (onEnd = resolve));
  const unsubscribe = client.subscribe<T>(
    { query: print(document), variables: variables as Record<string, unknown> },
    {
      next: (result) => {
        if (result.errors) errors.push(...result.errors);
        if (result.data) {
          const item = pick(result.data as T);
          checkReceived('live event', item, liveEventProblems);
          items.push(item);
        }
      },
      error: (err) => {
        errors.push(err);
        onEnd();
      },
      complete: () => onEnd(),
    },
  );
  return { items, errors, ended, unsubscribe };
}

export const accessoryEvent = (d: { accessoryEvents: Received }) => d.accessoryEvents;
export const accountEvent = (d: { accountEvents: Received }) => d.accountEvents;

/** A subscriber to an accessory's events on the instance at `url`, on a WebSocket of its own. */
export function accessorySubscriber(
  url: string,
  token: string,
  accessoryId: string,
): { ws: WsClient; sub: Subscription<Received> } {
  const ws = wsClient(url, `Bearer ${token}`);
  return { ws, sub: subscribe(ws.client, AccessoryEvents, { accessoryId }, accessoryEvent) };
}

/** Waits (vitest's `vi.waitFor`) until `check` holds; fails naming `what` after `ms`. */
export async function waitFor(check: () => boolean, what: string, ms = 15_000): Promise<void> {
  await vi.waitFor(
    () => {
      if (!check()) throw new Error(`timed out waiting for ${what}`);
    },
    { timeout: ms, interval: 10 },
  );
}

/** Creates `count` activities on the accessory (each finishes the previous one). */
export async function createActivities(
  t: TestApp,
  ingest: string,
  accessoryId: string,
  count: number,
): Promise<void> {
  for (let i = 0; i < count; i++) {
    await ok(t, ingest, CreateActivity, { accessoryId, input: { relevanceLevel: i % 3 } });
  }
}

/** The ids of the logged events of an accessory, in id order (after `after`). */
export async function loggedIds(t: TestApp, accessoryId: string, after = '0'): Promise<string[]> {
  const { rows } = await t.app.services.db.pool.query<{ id: string }>(
    'SELECT id::text AS id FROM events WHERE accessory_id = $1 AND id > $2 ORDER BY events.id',
    [accessoryId, after],
  );
  return rows.map((r) => r.id);
}

export interface SseEvent {
  event: string;
  data: string;
}

/** Checks the events of an SSE `next` result (each field's value) against the event catalog. */
function checkLiveResult(data: string): void {
  const result = JSON.parse(data) as { data?: Record<string, unknown> | null };
  for (const event of Object.values(result.data ?? {})) {
    checkReceived('live event over SSE', event, liveEventProblems);
  }
}

/**
 * A subscription over SSE with plain fetch, reading the event stream as it comes; each event's
 * payload is checked against the event catalog (test/helpers/catalog.ts).
 */
export async function sse<V>(
  url: string,
  token: string | undefined,
  document: TypedDocumentNode<unknown, V>,
  variables: V,
): Promise<{
  status: number;
  response: Response;
  events: SseEvent[];
  done: Promise<void>;
  abort(): void;
}> {
  const controller = new AbortController();
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'text/event-stream',
      ...(token && { authorization: `Bearer ${token}` }),
    },
    body: JSON.stringify({ query: print(document), variables }),
    signal: controller.signal,
  });
  const events: SseEvent[] = [];
  const done = (async () => {
    if (!response.body) return;
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      const reader = response.body.getReader();
      for (let read = await reader.read(); !read.done; read = await reader.read()) {
        buffer += decoder.decode(read.value, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          let event = 'message';
          const data: string[] = [];
          for (const line of block.split('\n')) {
            if (line.startsWith('event:')) event = line.slice(6).trim();
            else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
          }
          if (data.length > 0 || event !== 'message') {
            events.push({ event, data: data.join('\n') });
            if (event === 'next') checkLiveResult(data.join('\n'));
          }
        }
      }
    } catch (err) {
      if (!controller.signal.aborted) throw err;
    }
  })();
  return { status: response.status, response, events, done, abort: () => controller.abort() };
}
