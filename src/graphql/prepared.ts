import type { JITCache } from '@envelop/graphql-jit';
import type { GraphQLError } from 'graphql';
import { parse, type DocumentNode, type ExecutionArgs, type ExecutionResult } from 'graphql';
import type { GraphQLParams } from 'graphql-yoga';
import { TtlCache } from '../cache.ts';
import { asCaller, type Caller } from '../storage/tenancy.ts';
import type { OperationLimits } from './limits.ts';
import { forgetScopes } from './scope-cache.ts';
import { schema } from './schema.ts';
import type { UnstorableCheck } from './unstorable.ts';

/** What graphql-jit compiled of a document: its query function and its result's serializer. */
type Compiled = NonNullable<ReturnType<JITCache['get']>>;

/** A result as graphql-jit's plugin leaves it: with its compiled query's serializer. */
export type SerializedResult = ExecutionResult & { stringify?: (result: unknown) => string };

/** An operation a plain POST ran through Yoga whole, ready to run again without it. */
interface Prepared {
  document: DocumentNode;
  compiled: Compiled;
}

/** As many as Yoga's parser cache keeps, for as long (its defaults). */
const MAX_ENTRIES = 1024;
const TTL_MS = 60 * 60 * 1000;

/**
 * What a prepared operation runs instead of Yoga's hooks, each the function its plugin runs
 * (yoga.ts): the same code, called in the same order, composed once here instead of per request.
 */
export interface PreparedSteps {
  /** Yoga's parameter hooks: the document of a hash, the trusted documents (documents.ts). */
  params(params: GraphQLParams, context: object): GraphQLParams;
  /** Yoga's `context` option: what the operation's context adds to the server's. */
  context(initial: object): object;
  /** refuseUnstorableStrings (unstorable.ts). */
  unstorable: UnstorableCheck;
  /** The cost (limits.ts): priced and charged, then executed in its share and settled. */
  limits: Pick<OperationLimits, 'price' | 'execute'>;
  /** Yoga's masking of errors (maskedErrors), as its useMaskedErrors applies it. */
  mask(error: unknown): GraphQLError;
}

/**
 * Plain JSON POSTs of operations Yoga has run before, run again without Yoga's request pipeline
 * and envelop's per-request composition (decision 0157). The first plain POST of a document (by
 * its text and operation name) goes through Yoga whole; once it executed without errors, its
 * document is known to parse and validate (the schema, the rules and the limits do not change),
 * and graphql-jit has compiled it. The next ones run the hooks an operation of it goes through,
 * in envelop's order, each by the function its plugin calls: the parameter hooks (persisted and
 * trusted documents), the context, the unstorable strings, the cost (charged, then executed in
 * the caller's share, metered and settled), as its caller's work, on graphql-jit's compiled
 * query, and the masking of its errors. Parsing and validating are what Yoga's caches answer.
 * With tracing on, every request goes through Yoga whole, whose instrumentation makes the spans.
 */
export class PreparedOperations {
  readonly #steps: PreparedSteps;
  readonly #operations = new TtlCache<string, Prepared>(TTL_MS, MAX_ENTRIES);
  readonly #compiled = new TtlCache<string, Compiled>(TTL_MS, MAX_ENTRIES);

  /** graphql-jit's compiled queries by their document's text (its plugin's `cache`). */
  readonly compiled: JITCache = {
    get: (text) => this.#compiled.get(text),
    set: (text, compiled) => this.#compiled.set(text, compiled),
  };

  constructor(steps: PreparedSteps) {
    this.#steps = steps;
  }

  /** The prepared operation of a document's text and operation name, if there is one. */
  find(text: string, operationName: string | null | undefined): Prepared | undefined {
    return this.#operations.get(key(text, operationName));
  }

  /**
   * Prepares the operation of `text` and `operationName` once Yoga whole has executed it, with
   * graphql-jit (a result without errors): the next plain POST of it runs without Yoga.
   */
  learn(text: string, operationName: string | null | undefined): void {
    const at = key(text, operationName);
    if (this.#operations.get(at)) return;
    const compiled = this.#compiled.get(text);
    // Not executed here (a worker thread ran it): nothing compiled to run it with.
    if (!compiled) return;
    this.#operations.set(at, { document: parse(text), compiled });
  }

  /**
   * Runs a prepared operation for a plain POST of `params`, with the answer's `request` (what
   * Yoga's hooks read of it) and server `context`, as Yoga's getResultForParams would: what its
   * parameter hooks throw is thrown, anything else is in the result.
   */
  async run(
    operation: Prepared,
    given: GraphQLParams,
    request: unknown,
    context: { storageCaller?: Caller },
  ): Promise<SerializedResult> {
    const steps = this.#steps;
    const params = steps.params(given, context);
    // As Yoga's handleParams, then its context factory (useExtendContext).
    Object.assign(context, { request, params });
    try {
      Object.assign(context, steps.context(context));
      const args: ExecutionArgs = {
        schema,
        document: operation.document,
        contextValue: context,
        variableValues: params.variables,
        operationName: params.operationName,
      };
      // A refusal before execution stops envelop before the masking hook: unmasked.
      const unstorable = steps.unstorable(args);
      if (unstorable) return { errors: [unstorable] };
      const priced = await steps.limits.price(args);
      if (priced && 'refused' in priced) return priced.refused;
      // graphql-jit's compiled query, as its envelop plugin runs it.
      const jit = ({ rootValue, contextValue, variableValues }: ExecutionArgs) =>
        operation.compiled.query(rootValue, contextValue, variableValues) as
          ExecutionResult | Promise<ExecutionResult>;
      const execute = (): unknown =>
        priced ? steps.limits.execute(args, priced.cost, jit) : jit(args);
      const { storageCaller } = context;
      const result = (await (storageCaller
        ? asCaller(storageCaller, execute)
        : execute())) as SerializedResult;
      if (result.errors) return { ...result, errors: result.errors.map(steps.mask) };
      // Its serializer, as graphql-jit's envelop plugin hands it with the result.
      result.stringify = operation.compiled.stringify;
      return result;
    } catch (err) {
      return { errors: thrownErrors(err, steps.mask) };
    } finally {
      forgetScopes(context);
    }
  }
}

const key = (text: string, operationName: string | null | undefined) =>
  `${operationName ?? ''}\n${text}`;

/** The errors of a thrown error as Yoga's handleParams answers them (its handleError). */
function thrownErrors(err: unknown, mask: (error: unknown) => GraphQLError): GraphQLError[] {
  if (typeof err !== 'object' || err === null) return [mask(err)];
  // Anything with `errors` is an aggregate to Yoga; an abort is left out (logged at debug).
  if ('errors' in err)
    return [...(err.errors as Iterable<unknown>)].flatMap((e) => thrownErrors(e, mask));
  const aborted =
    err.constructor?.name === 'DOMException' &&
    ((err as Error).name === 'AbortError' || (err as Error).name === 'TimeoutError');
  return aborted ? [] : [mask(err)];
}
