import type { Principal } from '../../accounts/auth.ts';
import type { Config } from '../../config.ts';

/** What a worker thread starts with. */
export interface WorkerData {
  /**
   * The instance's configuration, without Redis (a thread neither rate limits nor publishes) and
   * without an in-process span exporter (tests'), which cannot cross threads.
   */
  config: Config;
  index: number;
}

/** From the instance to a thread: execute one query of an authenticated caller. */
export interface ExecuteMessage {
  type: 'execute';
  id: number;
  /** The operation's document as the client sent it (validated and priced already). */
  query: string;
  operationName: string | undefined;
  variables: Record<string, unknown> | undefined;
  principal: Principal;
  /** The W3C trace context of the instance's `graphql.execute` span, while tracing is on. */
  traceparent: string | undefined;
}

/**
 * `forget`: an account was deleted on the instance, whose own caches forgot it: so do the
 * thread's, as a query executed there must not find what one executed on the instance would not.
 */
export type ToWorker = ExecuteMessage | { type: 'forget'; accountId: string } | { type: 'close' };

/** A GraphQL error as the contract gives it (`extensions.code`), with where it happened. */
export interface SerializedError {
  message: string;
  positions: readonly number[] | undefined;
  path: readonly (string | number)[] | undefined;
  extensions: Record<string, unknown>;
}

/** From a thread: it can execute now, or the result of one `execute`. */
export type FromWorker =
  | { type: 'ready' }
  | {
      type: 'result';
      id: number;
      /** `data` as JSON, if the result has any. */
      data: string | undefined;
      errors: SerializedError[] | undefined;
      /** Its statements' time on the thread's pools, in milliseconds: what it is charged. */
      databaseMs: number;
    };
