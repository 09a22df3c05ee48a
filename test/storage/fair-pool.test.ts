import { describe, expect, it } from 'vitest';
import { FairTurns } from '../../src/storage/fair-turns.ts';

/** Starts what `tenant` asks for, or queues it: the names of the work started at once. */
function ask(turns: FairTurns<string>, tenant: string | undefined, work: string): string[] {
  if (turns.tryStart(tenant)) return [work];
  turns.wait(tenant, work);
  return [];
}

describe('turns on a shared pool', () => {
  it("holds a tenant to its share, and others go past its burst's waiting work", () => {
    const turns = new FairTurns<string>(4, 2);
    const started = ['m1', 'm2', 'm3', 'm4', 'm5'].flatMap((w) => ask(turns, 'mallory', w));
    expect(started).toEqual(['m1', 'm2']);
    expect(turns.shareFull('mallory')).toBe(true);
    // Two connections are free, and Mallory's three waiting ones cannot take them.
    expect(ask(turns, 'bob', 'b1')).toEqual(['b1']);
    expect(ask(turns, 'alice', 'a1')).toEqual(['a1']);
    expect(turns.running).toBe(4);
  });

  it('hands a freed connection to the tenant served least recently, not to the oldest waiter', () => {
    const turns = new FairTurns<string>(2, 2);
    for (const w of ['m1', 'm2', 'm3', 'm4']) ask(turns, 'mallory', w);
    ask(turns, 'bob', 'b1');
    ask(turns, 'bob', 'b2');
    // Mallory waited first, but was served last: Bob goes first, then they alternate.
    expect(turns.end('mallory')).toEqual(['b1']);
    expect(turns.end('mallory')).toEqual(['m3']);
    expect(turns.end('bob')).toEqual(['b2']);
    expect(turns.end('mallory')).toEqual(['m4']);
    expect(turns.end('bob')).toEqual([]);
    expect(turns.end('mallory')).toEqual([]);
    expect(turns.running).toBe(0);
  });

  it('orders turns fairly on a pool of one connection (the embedded database)', () => {
    const turns = new FairTurns<string>(1, 1);
    const order = ['m1', 'm2', 'm3'].flatMap((w) => ask(turns, 'mallory', w));
    ask(turns, 'bob', 'b1');
    ask(turns, 'alice', 'a1');
    ask(turns, 'bob', 'b2');
    let last = 'mallory';
    for (let i = 0; i < 5; i++) {
      const [next] = turns.end(last);
      order.push(next!);
      last = next!.startsWith('m') ? 'mallory' : next!.startsWith('b') ? 'bob' : 'alice';
    }
    expect(order).toEqual(['m1', 'b1', 'a1', 'm2', 'b2', 'm3']);
  });

  it("keeps a tenant's own work in the order it asked", () => {
    const turns = new FairTurns<string>(1, 1);
    ask(turns, 'bob', 'b1');
    for (const w of ['b2', 'b3', 'b4']) ask(turns, 'bob', w);
    expect([turns.end('bob'), turns.end('bob'), turns.end('bob')].flat()).toEqual([
      'b2',
      'b3',
      'b4',
    ]);
  });

  it('gives work without a tenant no share: it may take the whole pool, in its turn', () => {
    const turns = new FairTurns<string>(3, 1);
    expect(['j1', 'j2', 'j3'].flatMap((w) => ask(turns, undefined, w))).toEqual(['j1', 'j2', 'j3']);
    expect(turns.shareFull(undefined)).toBe(false);
    ask(turns, undefined, 'j4');
    ask(turns, 'bob', 'b1');
    // The jobs were served more recently than Bob, who has never been.
    expect(turns.end(undefined)).toEqual(['b1']);
    expect(turns.end(undefined)).toEqual(['j4']);
  });

  it('forgets waiting work that gave up, and a tenant that has nothing left', () => {
    const turns = new FairTurns<string>(1, 1);
    ask(turns, 'mallory', 'm1');
    ask(turns, 'mallory', 'm2');
    ask(turns, 'bob', 'b1');
    expect(turns.withdraw('bob', 'b1')).toBe(true);
    expect(turns.withdraw('bob', 'b1')).toBe(false);
    expect(turns.end('mallory')).toEqual(['m2']);
    expect(turns.end('mallory')).toEqual([]);
    expect(turns.running).toBe(0);
    // Nothing of Mallory's is remembered: she starts at once, like anyone new.
    expect(ask(turns, 'mallory', 'm3')).toEqual(['m3']);
  });
});
