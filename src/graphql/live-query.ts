import jsonPatch, { type Operation } from 'fast-json-patch';
import {
  DirectiveLocation,
  getDirectiveValues,
  getOperationAST,
  GraphQLBoolean,
  GraphQLDirective,
  GraphQLError,
  GraphQLNonNull,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { AppError, invalidArgument } from '../errors.ts';
import type { LiveMetrics } from '../events/live/metrics.ts';
import type { LiveQueryHolding, LiveQueryMemory } from '../events/live/query-memory.ts';
import type { LiveEvent } from '../events/live/stream.ts';
import { StreamEnd, type LiveSubscription } from '../events/live/subscription.ts';
import { callerOf } from '../limits/rate.ts';
import { renewedContext, type GraphQLContext } from './builder.ts';
import { requestError } from './errors.ts';
import type { LiveCarrier } from './live.ts';
import { forgetScopes } from './scope-cache.ts';
import { resultJson, SharedExecution, type SharedResult } from './shared-execution.ts';

/**
 * Live queries: `query @live { ... }` over WebSocket or SSE answers the query's result, then
 * again whenever an event of the caller's account has committed (on any instance: the live
 * events' bus), at most once per LIVE_QUERY_MIN_INTERVAL_MS and only when the result changed.
 * Each update is the whole result, or with `@live(patch: true)` a JSON Patch (RFC 6902) of the
 * previous one, in the format of @n1ru4l/graphql-live-query-patch-json-patch: `{data, revision:
 * 1}`, then `{patch, revision: n}`.
 *
 * A live query follows its account's event stream as a live subscription does (opened through
 * the operation's transport, `openLive`: it counts against the same limits, and ends as a
 * subscription does when its token expires, or its account is deleted). It does not stream the
 * events: the stream's filter (`accepts`) takes each one as it is delivered and marks the query
 * stale, so that no event waits in a queue. Each re-execution runs as the operation's first
 * did (the executor given to this plugin: graphql-jit, the caller's share of the instance, a
 * worker thread for a costly one), with the same caller and scopes and fresh loaders. Live
 * queries of the same document and variables by the same caller (subject, client and scopes:
 * all a result depends on) share their re-executions on an instance: one per change, whatever
 * their number.
 *
 * Each live query keeps its last result, so its caller owns that memory (`memory`,
 * LiveQueryMemory): a new live query is refused past the caller's number or bytes, or the
 * instance's bytes, and a result that grows past them ends its own live query.
 */

export const liveDirective = new GraphQLDirective({
  name: 'live',
  description:
    'A live query (over WebSocket or SSE): the result, then again each time an event of the account changes it, at most once per LIVE_QUERY_MIN_INTERVAL_MS.',
  locations: [DirectiveLocation.QUERY],
  args: {
    patch: {
      type: new GraphQLNonNull(GraphQLBoolean),
      defaultValue: false,
      description:
        'Updates after the first as JSON Patches of the previous result (`{patch, revision}`), instead of whole results.',
    },
  },
});

/** Events that change nothing a query reads: motion is recorded as events only. */
const unseen: ReadonlySet<string> = new Set(['motion_started', 'motion_ended']);

export interface LiveQueryOptions {
  /** LIVE_QUERY_MIN_INTERVAL_MS. */
  minIntervalMs: number;
  /** What live queries keep, per caller and in all (LIVE_QUERY_MAX_*). */
  memory: LiveQueryMemory;
  metrics: Pick<LiveMetrics, 'liveQueries' | 'liveQueryInvalidations' | 'liveQueryExecutions'>;
}

type Execute = (args: ExecutionArgs) => unknown;

/** Runs `query @live` operations as live queries; after the plugins that wrap the executor. */
export function liveQueries(options: LiveQueryOptions): Plugin<GraphQLContext & LiveCarrier> {
  const shares = new Shares(options.minIntervalMs);
  return {
    onExecute({ args, executeFn, setExecuteFn }) {
      const operation = getOperationAST(args.document, args.operationName);
      if (operation?.operation !== 'query') return;
      const live = getDirectiveValues(liveDirective, operation, args.variableValues ?? undefined);
      if (!live) return;
      const execute = executeFn as Execute;
      setExecuteFn((execution) =>
        startLiveQuery(execution, execute, live.patch === true, shares, options),
      );
    },
  };
}

/** The shared executions of the instance's live queries, by query and caller. */
class Shares {
  readonly #byKey = new Map<string, SharedExecution>();
  /** Parsed documents by identity (Yoga hands the same one for the same text). */
  readonly #documents = new WeakMap<DocumentNode, number>();
  #nextDocument = 0;

  constructor(private readonly minIntervalMs: number) {}

  /** The share of `execution`'s query and caller, taken by one more live query. */
  take(execution: ExecutionArgs): { share: SharedExecution; release(): void } {
    const { principal } = execution.contextValue as GraphQLContext;
    let document = this.#documents.get(execution.document);
    if (document === undefined) {
      document = this.#nextDocument++;
      this.#documents.set(execution.document, document);
    }
    const key = JSON.stringify([
      document,
      execution.operationName ?? null,
      execution.variableValues ?? null,
      principal.subject,
      principal.clientId,
      [...principal.scopes].sort(),
    ]);
    let share = this.#byKey.get(key);
    if (!share) {
      share = new SharedExecution(this.minIntervalMs);
      this.#byKey.set(key, share);
    }
    share.users++;
    const taken = share;
    return {
      share: taken,
      release: () => {
        if (--taken.users > 0) return;
        taken.abandon();
        if (this.#byKey.get(key) === taken) this.#byKey.delete(key);
      },
    };
  }
}

/** True when the operation came over a stream: a WebSocket, or SSE. */
function streamed(context: GraphQLContext & LiveCarrier & { request?: Request }): boolean {
  if (context.liveTransport === 'websocket') return true;
  return context.request?.headers.get('accept')?.includes('text/event-stream') ?? false;
}

/**
 * The live query's first result and its updates, or the errors it is refused with (a result of
 * its own, which an SSE request is answered with as an HTTP status: yoga.ts).
 */
async function startLiveQuery(
  execution: ExecutionArgs,
  execute: Execute,
  patch: boolean,
  shares: Shares,
  options: LiveQueryOptions,
): Promise<ExecutionResult | AsyncIterableIterator<ExecutionResult>> {
  const context = execution.contextValue as GraphQLContext & LiveCarrier;
  const run = async (contextValue: unknown) => {
    try {
      return (await execute({ ...execution, contextValue })) as ExecutionResult;
    } catch (err) {
      return { errors: [asGraphQLError(err)] };
    }
  };
  // An update's context carries its share's signal: an update that waits for its caller's
  // budget (limits.ts) stops waiting when no live query wants it any more. Its scope checks are
  // forgotten once it ran, as a request's are (the first result's when the stream ends).
  const update = async (signal: AbortSignal) => {
    const updateContext = { ...renewedContext(context), signal };
    try {
      return await run(updateContext);
    } finally {
      forgetScopes(updateContext);
    }
  };
  const query = new LiveQuery(update, patch, options);
  let events: LiveSubscription;
  let holding: LiveQueryHolding;
  try {
    if (!streamed(context)) {
      throw invalidArgument(
        '@live',
        'a live query needs a stream: a WebSocket (graphql-transport-ws), or SSE (Accept: text/event-stream)',
      );
    }
    // The stream of the account's events, as accountEvents needs.
    context.require('activities_basic');
    const account = await context.ownAccount();
    holding = options.memory.open(callerOf(context.principal));
    try {
      events = await context.openLive({
        stream: { kind: 'account', accountId: account.accountId },
        accepts: (event) => query.take(event),
      });
    } catch (err) {
      holding.close();
      throw err;
    }
  } catch (err) {
    return { errors: [refusal(err)] };
  }
  // After the stream opened: what commits from now on makes this result stale.
  const first = await run(context);
  const refused = async (result: ExecutionResult) => {
    holding.close();
    await events.return();
    return result;
  };
  if (first.data == null) return refused(first);
  const json = resultJson(first);
  try {
    holding.keep(Buffer.byteLength(json));
  } catch (err) {
    return refused({ errors: [refusal(err)] });
  }
  query.begin(events, { result: first, json }, shares.take(execution), holding);
  return query;
}

function refusal(err: unknown): GraphQLError {
  return err instanceof AppError ? requestError(err) : asGraphQLError(err);
}

function asGraphQLError(err: unknown): GraphQLError {
  if (err instanceof GraphQLError) return err;
  const error = err instanceof Error ? err : new Error(String(err));
  return new GraphQLError(error.message, { originalError: error });
}

const DONE: IteratorReturnResult<undefined> = { done: true, value: undefined };

/** A result in the patch format: the first whole, then patches of the previous data. */
interface Revision extends ExecutionResult {
  revision: number;
  patch?: Operation[];
}

/**
 * One live query's results: the first, then, whenever it is stale (an event came), the result of
 * an execution that started after the event: its share's (another live query of the same query
 * and caller ran it), or one it runs itself once the share's last started `minIntervalMs` ago. A
 * result like the last one sent is not sent. It takes a result only when its consumer asks for
 * the next one, so that a consumer that reads slowly gets fewer updates, never a queue of them.
 * `return()` ends it at once, also while it waits.
 */
class LiveQuery implements AsyncIterableIterator<ExecutionResult> {
  #events: LiveSubscription | undefined;
  #first: SharedResult | undefined;
  #share: ReturnType<Shares['take']> | undefined;
  /** Its place in LiveQueryMemory: the size of the last result it took. */
  #holding: LiveQueryHolding | undefined;
  /** When the last event not yet reflected in a result came; undefined: none. */
  #changedAt: number | undefined;
  /** The account's stream ended: with an error to end with, or none. */
  #closing: { error: AppError | undefined } | undefined;
  #done = false;
  #wake: (() => void) | undefined;
  /** The last result sent, for telling a change: its JSON, or (patches) its data and errors. */
  #sent: string | undefined;
  #sentData: unknown;
  #revision = 0;

  constructor(
    private readonly execute: (signal: AbortSignal) => Promise<ExecutionResult>,
    private readonly patch: boolean,
    private readonly options: LiveQueryOptions,
  ) {}

  [Symbol.asyncIterator](): this {
    return this;
  }

  /** Takes an event of the account as it is delivered; streams none but account_deleted. */
  take(event: LiveEvent): boolean {
    if (this.#done || unseen.has(event.eventType)) return false;
    this.options.metrics.liveQueryInvalidations.inc();
    this.#changedAt = performance.now();
    this.#wake?.();
    // It ends the account's stream (the subscription's own rule), and so the live query.
    return event.eventType === 'account_deleted';
  }

  /**
   * Starts with the first result, following the account's events, sharing `share`, keeping its
   * results in `holding`.
   */
  begin(
    events: LiveSubscription,
    first: SharedResult,
    share: ReturnType<Shares['take']>,
    holding: LiveQueryHolding,
  ): void {
    this.#events = events;
    this.#first = first;
    this.#share = share;
    this.#holding = holding;
    this.options.metrics.liveQueries.inc();
    void this.#follow(events);
  }

  async next(): Promise<IteratorResult<ExecutionResult>> {
    const first = this.#first;
    if (first) {
      this.#first = undefined;
      return { done: false, value: this.#update(first.result, first.json) ?? first.result };
    }
    const share = this.#share!.share;
    while (!this.#done) {
      const closing = this.#closing;
      if (closing?.error) {
        this.#finish();
        return { done: false, value: { errors: [requestError(closing.error)] } };
      }
      const changedAt = this.#changedAt;
      if (changedAt === undefined) {
        if (closing) break;
        await this.#sleep();
        continue;
      }
      let pending = share.covering(changedAt);
      const ran = !pending;
      if (!pending) {
        const wait = share.wait();
        if (wait > 0) {
          await this.#sleep(wait);
          continue;
        }
        pending = share.run(this.execute);
      }
      const { result, json } = await pending;
      if (this.#done) break;
      if (this.#changedAt === changedAt) this.#changedAt = undefined;
      // The live query that ran it counts the execution.
      const executions = ran ? this.options.metrics.liveQueryExecutions : undefined;
      if (result.data == null) {
        executions?.inc({ outcome: 'failed' });
        this.#finish();
        return { done: false, value: result };
      }
      try {
        this.#holding!.keep(Buffer.byteLength(json));
      } catch (err) {
        // Past the caller's or the instance's bytes: this live query ends, not another.
        executions?.inc({ outcome: 'failed' });
        this.#finish();
        return { done: false, value: { errors: [requestError(err as AppError)] } };
      }
      const update = this.#update(result, json);
      executions?.inc({ outcome: update ? 'changed' : 'unchanged' });
      if (update) return { done: false, value: update };
    }
    this.#finish();
    return DONE;
  }

  return(): Promise<IteratorResult<ExecutionResult>> {
    this.#finish();
    return Promise.resolve(DONE);
  }

  throw(error?: unknown): Promise<IteratorResult<ExecutionResult>> {
    this.#finish();
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }

  /** Waits for the account's stream to end (it streams account_deleted at most). */
  async #follow(events: LiveSubscription): Promise<void> {
    let error: AppError | undefined;
    try {
      for (let item = await events.next(); !item.done; item = await events.next()) {
        if (item.value instanceof StreamEnd) error = item.value.error;
      }
    } catch {
      error = new AppError('UNAVAILABLE', 'live events were interrupted; run the query again');
    }
    this.#closing = { error };
    this.#wake?.();
  }

  /** What to send for `result` (`json`: its JSON): undefined when it is the last one sent. */
  #update(result: ExecutionResult, json: string): ExecutionResult | undefined {
    const { data, errors, extensions } = result;
    const rest = { ...(errors && { errors }), ...(extensions && { extensions }) };
    if (!this.patch) {
      if (json === this.#sent) return undefined;
      this.#sent = json;
      return result;
    }
    const errorsJson = JSON.stringify(rest);
    if (this.#revision === 0) {
      this.#sent = errorsJson;
      this.#sentData = data;
      const whole: Revision = { data, ...rest, revision: ++this.#revision };
      return whole;
    }
    const patch = jsonPatch.compare(this.#sentData as object, data as object);
    if (patch.length === 0 && errorsJson === this.#sent) return undefined;
    this.#sent = errorsJson;
    this.#sentData = data;
    const update: Revision = { patch, ...rest, revision: ++this.#revision };
    return update;
  }

  /** Resolves after `ms`, or when woken (an event, the stream's end, `return()`). */
  #sleep(ms?: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = ms === undefined ? undefined : setTimeout(() => wake(), ms);
      const wake = () => {
        clearTimeout(timer);
        if (this.#wake === wake) this.#wake = undefined;
        resolve();
      };
      this.#wake = wake;
    });
  }

  #finish(): void {
    if (this.#done) return;
    this.#done = true;
    this.#wake?.();
    if (this.#events) {
      this.options.metrics.liveQueries.dec();
      this.#share?.release();
      this.#holding?.close();
      void this.#events.return();
    }
  }
}
