import { parse, type ExecutionArgs } from 'graphql';
import { describe, expect, it } from 'vitest';
import { operationLimits } from '../../src/graphql/limits.ts';
import { schema } from '../../src/graphql/schema.ts';
import { CostShares } from '../../src/limits/shares.ts';
import { settled } from '../helpers/settled.ts';

describe('cost shares', () => {
  it("runs a caller's operations together while their cost fits, then one by one in arrival order", async () => {
    const shares = new CostShares(100);
    const first = await shares.acquire('a', 60);
    const second = await shares.acquire('a', 40);
    const third = shares.acquire('a', 30);
    const fourth = shares.acquire('a', 10);
    expect(await settled(third)).toBe(false);
    // The fourth fits beside the first two, but does not overtake the third.
    expect(await settled(fourth)).toBe(false);
    second();
    expect(await settled(third)).toBe(true);
    expect(await settled(fourth)).toBe(true);
    first();
    (await third)();
    (await fourth)();
    expect(shares.callers).toBe(0);
  });

  it('runs an operation costlier than the capacity alone, and other callers beside it', async () => {
    const shares = new CostShares(100);
    const big = await shares.acquire('a', 150);
    const next = shares.acquire('a', 1);
    expect(await settled(next)).toBe(false);
    expect(await settled(shares.acquire('b', 100))).toBe(true);
    big();
    expect(await settled(next)).toBe(true);
  });

  it('counts a release once, however often it is called', async () => {
    const shares = new CostShares(100);
    const first = await shares.acquire('a', 100);
    const second = shares.acquire('a', 100);
    const third = shares.acquire('a', 100);
    first();
    first();
    expect(await settled(second)).toBe(true);
    expect(await settled(third)).toBe(false);
  });
});

describe('the cost plugin', () => {
  const document = parse('{ viewer { clientId } }');

  /** Runs the plugin's onExecute with `run` as the executor, as envelop would. */
  async function execute(
    shares: CostShares,
    run: () => Promise<unknown>,
  ): Promise<{ result?: unknown; error?: unknown }> {
    const { plugins } = operationLimits(
      {
        maxAliases: 30,
        maxDepth: 12,
        maxTokens: 2000,
        maxCost: 5000,
        maxCostInFlight: 1,
        unpricedDatabaseMs: 50,
      },
      {
        refused: () => undefined,
        charge: () => Promise.resolve(undefined),
        settle: () => undefined,
        again: () => Promise.resolve(),
        begin: (_, cost) => shares.acquire('caller', cost),
      },
    );
    const args = { schema, document, contextValue: {} } as ExecutionArgs;
    let executor: (args: ExecutionArgs) => unknown = run;
    for (const plugin of plugins) {
      await plugin.onExecute?.({
        args,
        executeFn: executor,
        setExecuteFn: (fn: typeof executor) => (executor = fn),
        setResultAndStopExecution: () => undefined,
        extendContext: () => undefined,
        context: {},
      } as never);
    }
    try {
      return { result: await executor(args) };
    } catch (error) {
      return { error };
    }
  }

  it("holds a caller's next operation until the one executing has ended, even by throwing", async () => {
    const shares = new CostShares(1);
    let finish!: () => void;
    const first = execute(shares, () => new Promise<void>((resolve) => (finish = resolve)));
    let secondRan = false;
    const second = execute(shares, () => {
      secondRan = true;
      return Promise.reject(new Error('executor failed'));
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(secondRan).toBe(false);
    finish();
    await first;
    expect((await second).error).toBeInstanceOf(Error);
    expect(secondRan).toBe(true);
    // The failed execution gave its share back.
    expect((await execute(shares, () => Promise.resolve('third'))).result).toBe('third');
    expect(shares.callers).toBe(0);
  });
});
