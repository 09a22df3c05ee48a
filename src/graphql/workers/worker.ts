// A GraphQL worker thread (pool.ts): executes the queries its instance hands it, with read-side
// services of its own (database connections, caches and loaders), and answers with the data as JSON and
// the errors in the contract's codes, so that the instance only writes them out.
import os from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { parse, type ExecutionResult } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import { requestContext } from '../../context.ts';
import { Disposables } from '../../lifecycle.ts';
import { callerOf } from '../../limits/rate.ts';
import { createLogger } from '../../logger.ts';
import { buildReadServices } from '../../services.ts';
import { asCaller, meteredCaller, stayingCaller } from '../../storage/tenancy.ts';
import { continueTrace, fail } from '../../telemetry/tracing.ts';
import { graphqlContext } from '../builder.ts';
import { toGraphQLError } from '../errors.ts';
import { schema } from '../schema.ts';
import type { ExecuteMessage, FromWorker, ToWorker, WorkerData } from './protocol.ts';

/** Compiled documents kept, the oldest dropped first. */
const MAX_COMPILED = 1000;

const port = parentPort!;
const { config, index } = workerData as WorkerData;
const logger = createLogger(config.logLevel).child({ graphqlWorker: index });
// The costly queries yield the cores to the instance's event loop (GRAPHQL_WORKER_NICE). Linux
// keeps a nice value per thread, so this lowers this thread's alone; elsewhere it would lower
// the whole process, and is left. Lowering needs no privilege.
if (process.platform === 'linux') {
  os.setPriority(Math.min(19, os.getPriority() + config.graphqlWorkers.nice));
}
const disposables = new Disposables();
if (config.telemetry) {
  // Before the services, whose SQL is traced from their start (telemetry/database.ts).
  const { startTelemetry } = await import('../../telemetry/start.ts');
  disposables.defer('tracing', startTelemetry(config.telemetry));
}
// The read side only: no webhook dispatcher, pub/sub or rate limiter (the instance runs them).
const services = await buildReadServices(
  config,
  { logger, migrate: false, announce: false, processMetrics: false },
  disposables,
);
const compiled = new Map<string, CompiledQuery | ExecutionResult>();

/** The document compiled once (graphql-jit, as on the instance), or why it cannot run. */
function compile(query: string, operationName: string | undefined) {
  const key = `${operationName ?? ''}\n${query}`;
  let entry = compiled.get(key);
  if (!entry) {
    entry = compileQuery(schema, parse(query), operationName);
    if (compiled.size >= MAX_COMPILED) compiled.delete(compiled.keys().next().value!);
    compiled.set(key, entry);
  }
  return entry;
}

/**
 * Executes one query: its reply, whatever happens (an error of its own fails only it). Traced as
 * `graphql.worker` inside the instance's `graphql.execute` span, with its SQL inside it.
 */
function execute(message: ExecuteMessage): Promise<FromWorker> {
  return continueTrace('graphql.worker', message.traceparent, async (span) => {
    let result: Result;
    let databaseMs = 0;
    try {
      const entry = compile(message.query, message.operationName);
      const context = graphqlContext(requestContext(services, message.principal));
      // The caller's turns on this thread's pools (storage/fair-pool.ts), and their time.
      const caller = meteredCaller(
        stayingCaller(callerOf(message.principal)),
        (ms) => (databaseMs += ms),
      );
      result = isCompiledQuery(entry)
        ? await asCaller(caller, () => entry.query(undefined, context, message.variables ?? {}))
        : entry;
    } catch (err) {
      result = { errors: [err] };
    }
    if (span && result.errors?.length) fail(span, result.errors[0]);
    return reply(message.id, result, databaseMs);
  });
}

/** What an execution ends with: a result, or the error it threw. */
type Result = { data?: unknown; errors?: readonly unknown[] };

/**
 * The result with its data as JSON and its errors as the instance's maskError gives them, and its
 * statements' time.
 */
function reply(id: number, result: Result, databaseMs: number): FromWorker {
  return {
    type: 'result',
    id,
    databaseMs,
    data: result.data === undefined ? undefined : JSON.stringify(result.data),
    errors: result.errors?.map((error) => {
      const masked = toGraphQLError(error, logger);
      return {
        message: masked.message,
        positions: masked.positions,
        path: masked.path,
        extensions: masked.extensions,
      };
    }),
  };
}

port.on('message', (message: ToWorker) => {
  if (message.type === 'execute') {
    void execute(message).then((answer) => port.postMessage(answer));
    return;
  }
  if (message.type === 'forget') {
    services.accounts.forgetAccount(message.accountId);
    services.accessories.forgetAccount(message.accountId);
    services.media.lookup.forgetAccount(message.accountId);
    return;
  }
  // The instance sends nothing more: close what the services opened, and the thread ends.
  void disposables.dispose(logger).finally(() => port.close());
});
port.postMessage({ type: 'ready' } satisfies FromWorker);
