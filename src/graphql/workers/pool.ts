import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import {
  GraphQLError,
  print,
  type ExecutionArgs,
  type ExecutionResult,
  type Source,
} from 'graphql';
import type { Principal } from '../../accounts/auth.ts';
import type { Config } from '../../config.ts';
import type { Metrics } from '../../metrics.ts';
import type { Logger } from '../../logger.ts';
import { AppError } from '../../errors.ts';
import { requestError } from '../errors.ts';
import { currentCaller } from '../../storage/tenancy.ts';
import { currentTraceparent } from '../../telemetry/tracing.ts';
import type { FromWorker, ToWorker, WorkerData } from './protocol.ts';

/** A thread that stopped less than this after it started is started again only after it. */
const RESTART_DELAY_MS = 1000;
/** How long a closing thread may take to close its connections before it is terminated. */
const CLOSE_TIMEOUT_MS = 5000;

interface Thread {
  worker: Worker;
  ready: boolean;
  startedAt: number;
  /** Resolves once the thread has stopped, for whatever reason. */
  exited: Promise<unknown>;
  /** The executions sent to it, by id: each settles with the thread's reply, or none. */
  pending: Map<number, (reply: Reply | undefined) => void>;
}

type Reply = Extract<FromWorker, { type: 'result' }>;

/**
 * Worker threads that execute GraphQL queries (GRAPHQL_WORKERS), so that a costly query (three
 * pages of a hundred activities take about 7 ms of CPU) does not hold up, on the instance's one
 * event loop, the light requests that arrive meanwhile. Each thread has the services of an
 * instance (worker.ts) on the same database, as a second instance would; it executes what it is
 * given, already authenticated, rate limited and priced here, and answers with the data as
 * JSON. A query goes to the thread with the fewest in flight; with none ready (all starting
 * again after one stopped) `run` returns undefined and the query runs here. A thread that stops
 * fails its queries in flight as UNAVAILABLE (503, retry) and is started again.
 */
export class GraphQLWorkers {
  readonly #threads: (Thread | undefined)[];
  readonly #config: Config;
  #nextId = 0;
  #closing = false;

  private constructor(
    config: Config,
    private readonly logger: Logger,
    private readonly metrics: Metrics,
  ) {
    // A thread traces to the instance's OTLP endpoint itself; an in-process exporter (tests')
    // stays here. It builds the read side only (worker.ts), which opens no Redis connection.
    const telemetry = config.telemetry?.exporter ? undefined : config.telemetry;
    // A thread does not see the instance's writes, which read-your-writes on a read replica
    // needs (storage/replica.ts): its listings read the primary.
    this.#config = { ...config, telemetry, databaseReadUrl: undefined };
    this.#threads = Array.from({ length: config.graphqlWorkers.threads }, () => undefined);
  }

  /** Starts the threads and resolves once each can execute. */
  static async start(config: Config, logger: Logger, metrics: Metrics): Promise<GraphQLWorkers> {
    const workers = new GraphQLWorkers(config, logger, metrics);
    try {
      await Promise.all(workers.#threads.map((_, index) => workers.#start(index)));
    } catch (err) {
      await workers.close();
      throw err;
    }
    return workers;
  }

  #start(index: number): Promise<void> {
    const workerData: WorkerData = { config: this.#config, index };
    const { filename, source } = entry();
    const worker = new Worker(filename, { eval: source, workerData });
    const thread: Thread = {
      worker,
      ready: false,
      startedAt: Date.now(),
      exited: new Promise((resolve) => worker.once('exit', resolve)),
      pending: new Map(),
    };
    this.#threads[index] = thread;
    return new Promise((resolve, reject) => {
      worker.on('message', (message: FromWorker) => {
        if (message.type === 'ready') {
          thread.ready = true;
          resolve();
          return;
        }
        const settle = thread.pending.get(message.id);
        thread.pending.delete(message.id);
        settle?.(message);
      });
      worker.on('error', (err) => {
        this.logger.error({ err, graphqlWorker: index }, 'GraphQL worker thread failed');
        reject(err);
      });
      worker.on('exit', (code) => {
        reject(new Error(`GraphQL worker thread ${index} stopped before it was ready (${code})`));
        thread.ready = false;
        for (const settle of thread.pending.values()) settle(undefined);
        thread.pending.clear();
        if (this.#closing) return;
        this.logger.warn(
          { graphqlWorker: index, code },
          'GraphQL worker thread stopped; starting it again',
        );
        const delay = Math.max(0, thread.startedAt + RESTART_DELAY_MS - Date.now());
        setTimeout(() => {
          if (!this.#closing) this.#start(index).catch(() => undefined);
        }, delay).unref();
      });
    });
  }

  /**
   * Executes a query of `principal` on the thread with the fewest in flight, or returns
   * undefined when none is ready.
   */
  run(execution: ExecutionArgs, principal: Principal): Promise<ExecutionResult> | undefined {
    let thread: Thread | undefined;
    for (const candidate of this.#threads) {
      if (candidate?.ready && (!thread || candidate.pending.size < thread.pending.size)) {
        thread = candidate;
      }
    }
    if (!thread || this.#closing) return undefined;
    const { document } = execution;
    const id = ++this.#nextId;
    const message: ToWorker = {
      type: 'execute',
      id,
      query: document.loc?.source.body ?? print(document),
      operationName: execution.operationName ?? undefined,
      variables: execution.variableValues ?? undefined,
      principal,
      traceparent: currentTraceparent() ?? undefined,
    };
    const { pending, worker } = thread;
    // Told the time of the thread's statements, as of those run here (graphql/limits.ts).
    const caller = currentCaller();
    return new Promise((resolve) => {
      pending.set(id, (reply) => {
        this.metrics.graphqlWorkerOperations.inc({ outcome: reply ? 'ok' : 'failed' });
        if (!reply) {
          resolve({ errors: [stopped()] });
          return;
        }
        caller?.spent?.(reply.databaseMs);
        resolve(result(reply, document.loc?.source));
      });
      worker.postMessage(message);
    });
  }

  /** An account was deleted: each thread's caches forget it (protocol.ts). */
  forgetAccount(accountId: string): void {
    for (const thread of this.#threads) {
      thread?.worker.postMessage({ type: 'forget', accountId } satisfies ToWorker);
    }
  }

  /** Lets each thread close its connections, then ends it. */
  async close(): Promise<void> {
    this.#closing = true;
    await Promise.all(
      this.#threads.map(async (thread) => {
        if (!thread) return;
        thread.worker.postMessage({ type: 'close' } satisfies ToWorker);
        const timer = setTimeout(() => {
          this.logger.warn('a GraphQL worker thread did not close in time: terminated');
          void thread.worker.terminate();
        }, CLOSE_TIMEOUT_MS);
        await thread.exited;
        clearTimeout(timer);
      }),
    );
  }
}

/**
 * A thread's reply as Yoga takes an execution result. Without errors, the data the thread
 * serialized is written out as it is (`stringify`, which Yoga calls instead of JSON.stringify):
 * parsing it here only to serialize it again would put a parse and a stringify of up to a few
 * hundred KB per costly query back on this event loop. With errors, the errors are GraphQL errors again, which Yoga masks
 * and turns into an HTTP status as on this thread.
 */
function result(reply: Reply, source: Source | undefined): ExecutionResult {
  const { data, errors } = reply;
  if (!errors) {
    const json = data ?? 'null';
    let parsed: Record<string, unknown> | undefined;
    const written: ExecutionResult & { stringify(result: ExecutionResult): string } = {
      // For whoever reads it (nothing on the way out does).
      get data() {
        return (parsed ??= JSON.parse(json) as Record<string, unknown>);
      },
      // Yoga hands it the result to write, with the extensions added since (its cost).
      stringify: ({ extensions }: ExecutionResult) =>
        extensions
          ? `{"data":${json},"extensions":${JSON.stringify(extensions)}}`
          : `{"data":${json}}`,
    };
    return written;
  }
  return {
    ...(data !== undefined && { data: JSON.parse(data) as Record<string, unknown> }),
    errors: errors.map(({ message, positions, path: at, extensions }) => {
      return new GraphQLError(message, { source, positions, path: at, extensions });
    }),
  };
}

/**
 * The thread's module: built, worker.js; from the sources (npm start, the tests), worker.ts,
 * imported through tsx's API as the instance's own modules are (a worker thread does not take
 * the loader of its parent, nor one given as `--import` on Node 20).
 */
function entry(): { filename: string | URL; source: boolean } {
  const url = new URL(`./worker${path.extname(fileURLToPath(import.meta.url))}`, import.meta.url);
  if (!url.pathname.endsWith('.ts')) return { filename: url, source: false };
  // tsx's CommonJS API registers its loader at a wrong path: its ES module, beside it.
  const esm = createRequire(import.meta.url)
    .resolve('tsx/esm/api')
    .replace(/\.cjs$/, '.mjs');
  const [api, module] = [JSON.stringify(pathToFileURL(esm).href), JSON.stringify(url.href)];
  return {
    filename: `import(${api}).then((tsx) => tsx.tsImport(${module}, ${module}))`,
    source: true,
  };
}

/** A query whose thread stopped before it answered: retry it. */
const stopped = () =>
  requestError(
    new AppError(
      'UNAVAILABLE',
      'the thread executing the operation stopped; retry',
      { retryAfterSeconds: 1 },
      { 'Retry-After': '1' },
    ),
  );
