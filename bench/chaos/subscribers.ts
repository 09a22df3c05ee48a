import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import type { Cluster } from './cluster.ts';
import type { ChaosAccount } from './load.ts';

/** One event as a live subscriber got it. */
export interface LiveReceipt {
  eventId: string;
  occurredAt: number;
  at: number;
  /** Received within the first seconds of a (re)subscription: likely a replay of the log. */
  replay: boolean;
}

/** A live subscriber of an account's events that resumes with `after` wherever it reconnects. */
export interface ChaosSubscriber {
  transport: 'ws' | 'sse';
  account: ChaosAccount;
  received: LiveReceipt[];
  /** Subscriptions made (the first and every resume). */
  subscriptions: number;
  errors: string[];
  stop(): Promise<void>;
}

const QUERY = `subscription($a: ID!, $after: String) {
  accountEvents(accountId: $a, after: $after) { eventId occurredAt } }`;

/** Events within this long of a (re)subscription count as replayed (for the fan-out figure). */
const REPLAY_WINDOW_MS = 2000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Sink = (event: { eventId: string; occurredAt: string }) => void;

/** One subscription over WebSocket until it ends (error, completion or the socket closing). */
async function overWebSocket(
  url: string,
  token: string,
  variables: object,
  sink: Sink,
  stop: AbortSignal,
) {
  const client = createClient({
    url: `${url.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${token}` },
    retryAttempts: 0,
    lazy: true,
  });
  try {
    await new Promise<void>((resolve, reject) => {
      const unsubscribe = client.subscribe(
        { query: QUERY, variables: variables as Record<string, unknown> },
        {
          next: (r) => {
            const d = r.data as { accountEvents?: { eventId: string; occurredAt: string } } | null;
            if (d?.accountEvents) sink(d.accountEvents);
            if (r.errors) reject(new Error(JSON.stringify(r.errors)));
          },
          error: (err) => reject(err instanceof Error ? err : new Error(JSON.stringify(err))),
          complete: () => resolve(),
        },
      );
      const onStop = () => {
        unsubscribe();
        resolve();
      };
      stop.addEventListener('abort', onStop, { once: true });
      client.on('closed', () => stop.removeEventListener('abort', onStop));
    });
  } finally {
    await client.dispose();
  }
}

/** One subscription over SSE (graphql-sse's distinct connections mode) until the stream ends. */
async function overSse(
  url: string,
  token: string,
  variables: object,
  sink: Sink,
  stop: AbortSignal,
) {
  const res = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'text/event-stream',
      authorization: `Bearer ${token}`,
    },
    body: JSON.stringify({ query: QUERY, variables }),
    signal: stop,
  });
  if (res.status !== 200 || !res.body) {
    await res.body?.cancel();
    throw new Error(`SSE answered ${res.status}`);
  }
  const decoder = new TextDecoder();
  let buffer = '';
  const reader = res.body.getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    buffer += decoder.decode(read.value, { stream: true });
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event = /^event: ?(.*)$/m.exec(block)?.[1];
      const data = block
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trimStart())
        .join('\n');
      if (event === 'complete') return;
      if (event !== 'next' || !data) continue;
      const payload = JSON.parse(data) as {
        data?: { accountEvents?: { eventId: string; occurredAt: string } };
        errors?: unknown[];
      };
      if (payload.errors) throw new Error(JSON.stringify(payload.errors));
      if (payload.data?.accountEvents) sink(payload.data.accountEvents);
    }
  }
}

/**
 * Subscribes to the account's events on a random running instance after `account.since`,
 * and after every end (the instance killed, Redis lost, an error) subscribes again on whichever
 * instance runs, after the last event it got.
 */
export function startSubscriber(
  cluster: Cluster,
  transport: 'ws' | 'sse',
  account: ChaosAccount,
): ChaosSubscriber {
  const controller = new AbortController();
  const subscriber: ChaosSubscriber = {
    transport,
    account,
    received: [],
    subscriptions: 0,
    errors: [],
    stop: async () => {
      controller.abort();
      await loop;
    },
  };
  const once = transport === 'ws' ? overWebSocket : overSse;
  const loop = (async () => {
    while (!controller.signal.aborted) {
      const url = cluster.pick();
      if (!url) {
        await sleep(100);
        continue;
      }
      const last = subscriber.received.at(-1)?.eventId;
      const since = Date.now();
      subscriber.subscriptions++;
      try {
        await once(
          url,
          account.token,
          { a: account.accountId, after: last ?? account.since },
          (e) => {
            const at = Date.now();
            subscriber.received.push({
              eventId: e.eventId,
              occurredAt: Date.parse(e.occurredAt),
              at,
              replay: at - since < REPLAY_WINDOW_MS,
            });
          },
          controller.signal,
        );
      } catch (err) {
        if (!controller.signal.aborted) subscriber.errors.push((err as Error).message);
      }
      await sleep(50 + Math.random() * 200);
    }
  })();
  return subscriber;
}
