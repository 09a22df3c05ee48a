import {
  createSourceEventStream,
  execute,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { callerOf } from '../limits/rate.ts';
import type { GraphQLContext } from './builder.ts';
import type { LiveCarrier } from './live.ts';

type Result = ExecutionResult | Promise<ExecutionResult>;

/**
 * Subscriptions over WebSocket execute each live event once per selection, not once per
 * subscriber (what Hasura calls multiplexing). A topic hands the same event object to every
 * subscriber of its stream on the instance; the result of executing one operation over it is
 * kept beside the event (a WeakMap: it goes with the event) under a key of everything the
 * result may depend on: the document, operation name and variables, and the caller (OAuth
 * client and subject) with its scopes. Other subscribers with that key are handed the same
 * result object, which nothing after execution changes (error masking copies a result before
 * rewriting its errors).
 *
 * The fields of a live event resolve from the event alone; one that read a connection's own
 * context (beyond the caller and scopes above) would need its part of the key. Events replayed
 * from the log are read per subscriber, so they are executed per subscriber.
 */
export function sharedEventResults(): Plugin<GraphQLContext & LiveCarrier> {
  const results = new WeakMap<object, Map<string, Result>>();
  const documents = new WeakMap<DocumentNode, number>();
  let documentCount = 0;
  const documentId = (document: DocumentNode): number => {
    let id = documents.get(document);
    if (id === undefined) documents.set(document, (id = ++documentCount));
    return id;
  };
  return {
    onSubscribe({ args, setSubscribeFn }) {
      const context = args.contextValue;
      // SSE answers a subscription per request; sharing is for the sockets of a fan-out.
      if (context.liveTransport !== 'websocket') return;
      const { principal } = context;
      const key = [
        documentId(args.document),
        args.operationName ?? '',
        JSON.stringify(args.variableValues ?? {}),
        callerOf(principal),
        [...principal.scopes].sort().join(' '),
      ].join('\n');
      setSubscribeFn(async (args: ExecutionArgs) => {
        const source = await createSourceEventStream(args);
        if (!(Symbol.asyncIterator in source)) return source;
        return mapEvents(source, (payload) => {
          const run = () => execute({ ...args, rootValue: payload });
          if (typeof payload !== 'object' || payload === null) return run();
          let byKey = results.get(payload);
          if (!byKey) results.set(payload, (byKey = new Map()));
          let result = byKey.get(key);
          if (!result) byKey.set(key, (result = run()));
          return result;
        });
      });
    },
  };
}

/**
 * The source stream's events as results. `return()` goes straight to the source, also while a
 * `next()` waits for an event, so that a completed subscription leaves its topic at once.
 */
function mapEvents(
  source: AsyncIterable<unknown>,
  map: (payload: unknown) => Result,
): AsyncIterableIterator<ExecutionResult> {
  const events = source[Symbol.asyncIterator]();
  return {
    [Symbol.asyncIterator]() {
      return this;
    },
    async next() {
      const event = await events.next();
      if (event.done) return { done: true, value: undefined };
      return { done: false, value: await map(event.value) };
    },
    async return() {
      await events.return?.();
      return { done: true, value: undefined };
    },
    async throw(error: unknown) {
      await events.return?.();
      throw error;
    },
  };
}
