import type { ExecutionResult } from 'graphql';
import { describe, expect, it } from 'vitest';
import { resultJson, SharedExecution } from '../../src/graphql/shared-execution.ts';

describe('SharedExecution', () => {
  let clock = 0;
  const now = () => clock;
  const answer = (data: unknown) => () => Promise.resolve({ data } as ExecutionResult);

  it('gives a change the execution that started at or after it, and runs one when none did', async () => {
    clock = 100;
    const share = new SharedExecution(1000, now);
    expect(share.covering(0)).toBeUndefined();
    expect(share.wait()).toBeLessThanOrEqual(0);
    const first = share.run(answer({ n: 1 }));
    // A change before the start, or at it, is covered; one after it is not.
    expect(share.covering(50)).toBe(first);
    expect(share.covering(100)).toBe(first);
    expect(share.covering(101)).toBeUndefined();
    expect(await first).toEqual({ result: { data: { n: 1 } }, json: '{"data":{"n":1}}' });
  });

  it('starts one at most once per interval', () => {
    clock = 0;
    const share = new SharedExecution(1000, now);
    void share.run(answer(1));
    clock = 400;
    expect(share.wait()).toBe(600);
    clock = 1000;
    expect(share.wait()).toBe(0);
    void share.run(answer(2));
    expect(share.wait()).toBe(1000);
  });

  it('writes the JSON a live query sends: data, then errors and extensions when there are', () => {
    expect(resultJson({ data: null })).toBe('{"data":null}');
    expect(
      resultJson({ data: { a: 1 }, errors: [], extensions: { x: 1 } } as ExecutionResult),
    ).toBe('{"data":{"a":1},"errors":[],"extensions":{"x":1}}');
  });
});
