import { maxAliasesPlugin } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthPlugin } from '@escape.tech/graphql-armor-max-depth';
import { maxTokensPlugin } from '@escape.tech/graphql-armor-max-tokens';
import {
  GraphQLError,
  Kind,
  visit,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type GraphQLSchema,
  type ValidationContext,
} from 'graphql';
import { getComplexity, type ComplexityEstimatorArgs } from 'graphql-query-complexity';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import type { LimitsConfig } from '../config.ts';
import { pointsOfDatabaseTime, type ThrottleStatus } from '../limits/cost.ts';
import { asCaller, currentCaller, meteredCaller } from '../storage/tenancy.ts';

/**
 * What one GraphQL operation may ask for, checked before anything runs (over HTTP, SSE and
 * WebSocket alike, since all three go through Yoga's envelop): aliases, depth and tokens by the
 * graphql-armor plugins, and a cost by graphql-query-complexity where a field with page
 * arguments multiplies the cost of its selection by `first`/`last`/`limit` (or its default page
 * size when absent), and one with an `ids` list (`nodes`) by the number of ids. Over a limit: INVALID_ARGUMENT naming the limit, its value and what was
 * measured, answered like a validation error. Within the limit, the cost is then taken from the
 * caller's cost budget (`refusals.charge`), and a query or mutation executes once the caller's
 * share of the instance has room for it (`refusals.begin`), here or where `refusals.elsewhere`
 * sends it.
 */
export interface LimitRefusals {
  refused(): void;
  /**
   * Takes an operation's cost (within the limit) from its caller's budget: an error when the
   * budget has not that much left, and then nothing runs.
   */
  charge(context: unknown, cost: number): Promise<GraphQLError | undefined>;
  /**
   * Settles a charged operation once it ran: `actual` (its requested cost with each metered
   * field's estimate replaced by what it measured, `meterWork`) against the `requested` cost
   * taken. What is left of the caller's budget; undefined at once when it has none (the answer
   * then goes out as it came).
   */
  settle(
    context: unknown,
    requested: number,
    actual: number,
  ): Promise<ThrottleStatus | undefined> | undefined;
  /**
   * Resolves once the caller may start executing a charged operation (src/limits/shares.ts),
   * with the function to call when it has ended.
   */
  begin(context: unknown, cost: number): Promise<() => void>;
  /**
   * Takes a live query's next execution's cost from its caller's budget, resolving once the
   * budget had it (a caller out of budget gets its next update later, not an error); it stops
   * waiting, rejecting, once the context's signal aborts (the live query's clients have left).
   */
  again(context: unknown, cost: number): Promise<void>;
  /**
   * Where a charged operation executes when not on this event loop (GraphQL worker threads):
   * its result, or undefined to execute it here.
   */
  elsewhere?(execution: ExecutionArgs, cost: number): Promise<ExecutionResult> | undefined;
}

/**
 * A field whose work the database does in proportion to its arguments (a count over a range)
 * says so with `extensions.workCost`: the points its arguments ask for, added to its cost (and
 * multiplied as any field's, by aliases and pages). Its resolver reports what it estimated and
 * what it measured (`meterWork`), and the operation settles the difference once it ran.
 */
export type WorkCost = (args: Record<string, unknown>) => number;

/**
 * What an execution's metered fields estimated and measured, and the time its statements took
 * (`databaseMs`, told by the pools as the caller's, storage/tenancy.ts), in points but the last.
 */
interface Meter {
  estimated: number;
  measured: number;
  databaseMs: number;
}

/** The meter of each execution, by its context. */
const meters = new WeakMap<object, Meter>();

/**
 * What an operation cost, in points: its requested cost with each metered field's estimate
 * replaced by what it measured; or, when its statements took longer than that pays for by more
 * than `unpricedMs` (GRAPHQL_UNPRICED_DATABASE_MS), their time. A page whose filter matches few
 * rows reads many to fill it, and pays for what it read.
 */
export function actualCost(requested: number, meter: Meter, unpricedMs: number): number {
  const priced = requested - meter.estimated + meter.measured;
  const database = pointsOfDatabaseTime(meter.databaseMs);
  return database > priced + pointsOfDatabaseTime(unpricedMs) ? database : priced;
}

/** Reports a metered field's work: its `workCost` estimate and what it measured, in points. */
export function meterWork(context: object, estimated: number, measured: number): void {
  const meter = meters.get(context);
  if (!meter) return;
  meter.estimated += estimated;
  meter.measured += measured;
}

/** A field's default page size, for the cost of a page asked for without `first`/`last`. */
export const DEFAULT_PAGE_SIZE = 20;
/** The largest page of a field, unless it says otherwise (`extensions.maxPageSize`). */
const MAX_PAGE_SIZE = 100;
const PAGE_ARGS = ['first', 'last', 'limit'] as const;

function limitError(limit: string, max: number, message: string, measured?: number) {
  return new GraphQLError(message, {
    extensions: {
      code: 'INVALID_ARGUMENT',
      details: { limit, max, ...(measured !== undefined && { measured }) },
      // Like Yoga's own request errors: 400 with application/graphql-response+json, 200 with
      // plain JSON (GraphQL over HTTP).
      http: { status: 400, spec: true },
    },
  });
}

/**
 * Each field costs 1, plus its selection's cost times its page size when it has page arguments,
 * or times the number of ids it fetches.
 */
export function fieldCost({ field, args, childComplexity }: ComplexityEstimatorArgs): number {
  // A page larger than the field allows is refused by the field itself, with its own message:
  // price it at the largest page it could return.
  const max = Number(field.extensions?.maxPageSize ?? MAX_PAGE_SIZE);
  const work = field.extensions?.workCost as WorkCost | undefined;
  if (work) return 1 + childComplexity + work(args);
  // Objects fetched by their ids (`nodes`): the selection once per id.
  if (Array.isArray(args.ids)) return 1 + Math.min(args.ids.length, max) * childComplexity;
  if (!field.args.some((a) => (PAGE_ARGS as readonly string[]).includes(a.name))) {
    return 1 + childComplexity;
  }
  const given = PAGE_ARGS.map((name) => args[name]).find((v) => typeof v === 'number');
  const pageSize =
    typeof given === 'number'
      ? Math.min(Math.max(0, given), max)
      : Number(field.extensions?.defaultPageSize ?? DEFAULT_PAGE_SIZE);
  return 1 + pageSize * childComplexity;
}

/** The cost of an operation, or undefined when it cannot be computed (e.g. bad variables). */
export function operationCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  variables: Record<string, unknown> | undefined,
  operationName: string | undefined,
): number | undefined {
  try {
    return getComplexity({
      schema,
      query: document,
      variables: variables ?? {},
      operationName,
      estimators: [fieldCost],
    });
  } catch {
    // Execution reports what is wrong with the operation itself.
    return undefined;
  }
}

/**
 * The arguments whose values the cost depends on: page sizes and `ids` (fieldCost), and
 * @skip/@include's `if` (which selections count at all). Every other variable, e.g. an
 * accessory id or a cursor, changes nothing in the cost.
 */
const COST_ARGS: ReadonlySet<string> = new Set([...PAGE_ARGS, 'ids', 'if']);
/** Costs kept per document, one per combination of its cost variables' values. */
const COSTS_PER_DOCUMENT = 64;

interface CostCache {
  schema: GraphQLSchema;
  /** The variables used anywhere inside a COST_ARGS argument. */
  variables: readonly string[];
  costs: Map<string, number>;
}

/**
 * operationCost, computed once per document, operation and values of the variables the cost
 * depends on: a page asked for again and again with other ids and cursors is priced once. Only
 * costs within `max` are kept, and only computed ones, so a request with other (even invalid)
 * variables is refused, or let through to execution, exactly as without the cache.
 */
export function costCache(max: number): typeof operationCost {
  const byDocument = new WeakMap<DocumentNode, CostCache>();
  return (schema, document, variables, operationName) => {
    let cache = byDocument.get(document);
    if (cache?.schema !== schema) {
      const names = new Set<string>();
      visit(document, {
        Argument(node) {
          if (!COST_ARGS.has(node.name.value)) return;
          visit(node.value, {
            [Kind.VARIABLE]: (variable) => void names.add(variable.name.value),
          });
        },
      });
      cache = { schema, variables: [...names], costs: new Map() };
      byDocument.set(document, cache);
    }
    // An absent variable takes its default, a null one does not: [] and [value] tell them apart.
    const key = JSON.stringify([
      operationName ?? null,
      ...cache.variables.map((v) => (variables && v in variables ? [variables[v]] : [])),
    ]);
    const known = cache.costs.get(key);
    if (known !== undefined) return known;
    const cost = operationCost(schema, document, variables, operationName);
    if (cost !== undefined && cost <= max) {
      if (cache.costs.size >= COSTS_PER_DOCUMENT) cache.costs.clear();
      cache.costs.set(key, cost);
    }
    return cost;
  };
}

/** What an operation's arguments say of its price (envelop's `args` of onExecute). */
export interface PricedArgs {
  schema: GraphQLSchema;
  document: DocumentNode;
  variableValues?: Record<string, unknown> | null;
  operationName?: string | null;
  contextValue?: unknown;
}

/**
 * An operation's price: its cost, taken from its caller's budget; its refusal (over the limit or
 * the budget), which is its result; or undefined when its cost cannot be computed (execution
 * reports what is wrong with it).
 */
export type Priced = { cost: number } | { refused: { errors: GraphQLError[] } } | undefined;

type Executor = (
  execution: ExecutionArgs,
) => Promise<ExecutionResult | AsyncIterable<ExecutionResult>> | ExecutionResult;

/**
 * The limits of GraphQL operations: the plugins of Yoga's envelop (graphql-armor's checks, and the
 * cost: priced before it runs, executed in its caller's share, settled after), and the two steps
 * of the cost for the prepared plain POSTs (./prepared.ts), which run them without envelop.
 */
export interface OperationLimits {
  plugins: Plugin[];
  /** Prices an operation and takes its cost from its caller's budget. */
  price(args: PricedArgs): Promise<Priced>;
  /**
   * Executes a priced operation with `executeFn` once its caller's share has room for it (or
   * where `elsewhere` sends it), metered, and settles what it cost (in `extensions.cost`); a live
   * query's `update` takes its cost again first.
   */
  execute(
    execution: ExecutionArgs,
    cost: number,
    executeFn: Executor,
    update?: boolean,
  ): Promise<ExecutionResult | AsyncIterable<ExecutionResult>>;
}

export function operationLimits(
  config: LimitsConfig['graphql'],
  refusals: LimitRefusals,
): OperationLimits {
  // graphql-armor reports "limit of N exceeded, found M": keep its wording, add the details.
  const reject =
    (limit: string, max: number) => (ctx: ValidationContext | null, error: GraphQLError) => {
      refusals.refused();
      const message = error.message.replace(/^Syntax Error: /, '');
      const found = /found (\d+)/.exec(message)?.[1];
      const ours = limitError(
        limit,
        max,
        `${limit}: ${message}`,
        found === undefined ? undefined : Number(found),
      );
      if (!ctx) throw ours;
      ctx.reportError(ours);
    };
  const armor = (limit: string, max: number) => ({
    n: max,
    exposeLimits: true,
    propagateOnRejection: false,
    onReject: [reject(limit, max)],
  });

  const cachedCost = costCache(config.maxCost);
  const price = (args: PricedArgs): Promise<Priced> => {
    const cost = cachedCost(
      args.schema,
      args.document,
      args.variableValues ?? undefined,
      args.operationName ?? undefined,
    );
    // Unknown: execution reports what is wrong with the operation.
    if (cost === undefined) return Promise.resolve(undefined);
    if (cost <= config.maxCost) {
      return refusals
        .charge(args.contextValue, cost)
        .then((overBudget) => (overBudget ? { refused: { errors: [overBudget] } } : { cost }));
    }
    refusals.refused();
    return Promise.resolve({
      refused: {
        errors: [
          limitError(
            'GRAPHQL_MAX_COST',
            config.maxCost,
            `GRAPHQL_MAX_COST: the operation costs ${cost}, more than ${config.maxCost}; ask for smaller pages (first/last) or fewer fields`,
            cost,
          ),
        ],
      },
    });
  };

  const execute = async (
    execution: ExecutionArgs,
    cost: number,
    executeFn: Executor,
    update = false,
  ): Promise<ExecutionResult | AsyncIterable<ExecutionResult>> => {
    const context = execution.contextValue as object;
    if (update) await refusals.again(context, cost);
    const meter: Meter = { estimated: 0, measured: 0, databaseMs: 0 };
    meters.set(context, meter);
    const end = await refusals.begin(context, cost);
    const caller = currentCaller();
    const run = () => refusals.elsewhere?.(execution, cost) ?? executeFn(execution);
    let result;
    try {
      result = await (caller
        ? asCaller(
            meteredCaller(caller, (ms) => (meter.databaseMs += ms)),
            run,
          )
        : run());
    } finally {
      end();
    }
    if (isAsyncIterable(result)) return result;
    const actual = actualCost(cost, meter, config.unpricedDatabaseMs);
    if (update) {
      // A live query's update carries no cost: only a difference is settled.
      if (actual !== cost) await refusals.settle(context, cost, actual);
      return result;
    }
    const settling = refusals.settle(context, cost, actual);
    const left = settling && (await settling);
    if (!left) return result;
    return {
      ...result,
      extensions: {
        ...result.extensions,
        cost: { requestedQueryCost: cost, actualQueryCost: actual, throttleStatus: left },
      },
    };
  };

  return {
    price,
    execute,
    plugins: [
      maxTokensPlugin(armor('GRAPHQL_MAX_TOKENS', config.maxTokens)),
      maxAliasesPlugin(armor('GRAPHQL_MAX_ALIASES', config.maxAliases)),
      maxDepthPlugin({ ...armor('GRAPHQL_MAX_DEPTH', config.maxDepth), ignoreIntrospection: true }),
      {
        // After graphql-jit's hook (yoga.ts), so that `executeFn` is the one that will run.
        onExecute: async ({ args, executeFn, setExecuteFn, setResultAndStopExecution }) => {
          const priced = await price(args);
          if (priced === undefined) return;
          if ('refused' in priced) return setResultAndStopExecution(priced.refused);
          // A live query executes again through this function: the first execution was charged
          // with the operation, each later one takes its cost again. Each settles what it cost.
          let first = true;
          setExecuteFn((execution) => {
            const update = !first;
            first = false;
            return execute(execution, priced.cost, executeFn as Executor, update);
          });
        },
        // A subscription runs for as long as it is subscribed: it takes no share.
        onSubscribe: async ({ args, setResultAndStopExecution }) => {
          const priced = await price(args);
          if (priced && 'refused' in priced) setResultAndStopExecution(priced.refused);
        },
      },
    ],
  };
}
