import { AsyncLocalStorage } from 'node:async_hooks';
import { describe, expect, it } from 'vitest';
import { GroupCommit } from '../../src/activities/group-commit.ts';

/** A write that records its batches and answers each when the test says so. */
function writer(fail?: (items: string[]) => unknown) {
  const batches: string[][] = [];
  const pending: (() => void)[] = [];
  const write = (items: string[]) => {
    batches.push(items);
    return new Promise<string[]>((resolve, reject) =>
      pending.push(() => {
        const err = fail?.(items);
        if (err) reject(err);
        else resolve(items.map((i) => `done ${i}`));
      }),
    );
  };
  /** Answers every write under way, then lets the next ones start. */
  const answerAll = async () => {
    for (const answer of pending.splice(0)) answer();
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { write, batches, answerAll };
}

const statementError = Object.assign(new Error('value out of range'), { code: '22003' });
const isStatementError = (err: unknown) => err === statementError;

describe('group commit', () => {
  it('writes an item at once while writes are free, and batches what waits for them, in order', async () => {
    const w = writer();
    const group = new GroupCommit(w.write, isStatementError, { maxInFlight: 1, maxBatch: 3 });
    const first = group.submit('a');
    expect(w.batches).toEqual([['a']]);
    const rest = ['b', 'c', 'd', 'e'].map((item) => group.submit(item));
    expect(w.batches).toHaveLength(1);
    await w.answerAll();
    expect(await first).toBe('done a');
    expect(w.batches).toEqual([['a'], ['b', 'c', 'd']]);
    await w.answerAll();
    await w.answerAll();
    expect(await Promise.all(rest)).toEqual(['done b', 'done c', 'done d', 'done e']);
    expect(w.batches).toEqual([['a'], ['b', 'c', 'd'], ['e']]);
  });

  it('batches only items of the same key, and writes a batch with its key, in its first item context', async () => {
    const w = writer();
    const request = new AsyncLocalStorage<string>();
    const seen: [string | undefined, string | undefined][] = [];
    const group = new GroupCommit(
      (items: string[], key: string | undefined) => {
        seen.push([request.getStore(), key]);
        return w.write(items);
      },
      isStatementError,
      { maxInFlight: 1, maxBatch: 10 },
    );
    const all = [
      request.run('r0', () => group.submit('a', 'k0')),
      request.run('r1', () => group.submit('b', 'k1')),
      request.run('r2', () => group.submit('c', 'k2')),
      request.run('r3', () => group.submit('d', 'k1')),
    ];
    for (let i = 0; i < 3; i++) await w.answerAll();
    await Promise.all(all);
    expect(w.batches).toEqual([['a'], ['b', 'd'], ['c']]);
    expect(seen).toEqual([
      ['r0', 'k0'],
      ['r1', 'k1'],
      ['r2', 'k2'],
    ]);
  });

  it("writes each item of a batch the database refused alone, so that only the culprit's fails", async () => {
    const w = writer((items) => (items.includes('bad') ? statementError : undefined));
    const group = new GroupCommit(w.write, isStatementError, { maxInFlight: 1, maxBatch: 10 });
    const first = group.submit('a');
    const batch = ['b', 'bad', 'c'].map((item) => group.submit(item).catch((err: unknown) => err));
    for (let i = 0; i < 3; i++) await w.answerAll();
    await first;
    expect(await Promise.all(batch)).toEqual(['done b', statementError, 'done c']);
    expect(w.batches).toEqual([['a'], ['b', 'bad', 'c'], ['b'], ['bad'], ['c']]);
  });

  it('fails every item of a batch with an error that may follow a commit, and writes none again', async () => {
    const lost = Object.assign(new Error('Connection terminated'), { code: 'ECONNRESET' });
    const w = writer((items) => (items.length > 1 ? lost : undefined));
    const group = new GroupCommit(w.write, isStatementError, { maxInFlight: 1, maxBatch: 10 });
    const first = group.submit('a');
    const batch = ['b', 'c'].map((item) => group.submit(item).catch((err: unknown) => err));
    for (let i = 0; i < 2; i++) await w.answerAll();
    await first;
    expect(await Promise.all(batch)).toEqual([lost, lost]);
    expect(w.batches).toEqual([['a'], ['b', 'c']]);
  });
});
