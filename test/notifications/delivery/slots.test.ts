import { describe, expect, it } from 'vitest';
import {
  GoneReceivers,
  PREFETCH_MAX_AGE_MS,
  Slots,
  type ClaimLimits,
} from '../../../src/notifications/delivery/slots.ts';
import { claimBackoffMs, untilNextDue } from '../../../src/notifications/delivery/wakeups.ts';

interface Item {
  id: number;
  origin: string;
  account_id: string;
  client_id: string;
}

const A = 'https://a.example';
const B = 'https://b.example:8443';
const limits = { perOrigin: 4, total: 10 };
let ids = 0;
/** A delivery of `origin` for `account`'s registration (one account unless told). */
const item = (origin: string, account = 'acct-1'): Item => ({
  id: ++ids,
  origin,
  account_id: account,
  client_id: 'client-1',
});
/** What a claim may take of each origin (its turns aside). */
const roomOf = ({ saturated, room }: ClaimLimits) => ({ saturated, room });
const never = () => false;

/** Admits `n` new items of `origin` at `claimedAt`; returns those started. */
function admit(slots: Slots<Item>, origin: string, n: number, claimedAt = 0): Item[] {
  return Array.from({ length: n }, () => item(origin)).filter((i) => slots.admit(i, claimedAt));
}

describe('slots', () => {
  it('start up to perOrigin attempts per origin and prefetch the rest', () => {
    const slots = new Slots<Item>(limits);
    expect(admit(slots, A, 6)).toHaveLength(4);
    expect(admit(slots, B, 2)).toHaveLength(2);
    expect(slots.held()).toBe(8);
    // The claim may take up to twice `total`, less what is held.
    expect(slots.room()).toBe(12);
    expect(slots.full()).toBe(false);
    admit(slots, B, 2);
    expect(slots.full()).toBe(true);
  });

  it('a freed slot starts the next prefetched delivery of its origin, oldest first', () => {
    const slots = new Slots<Item>(limits);
    admit(slots, A, 4);
    const [first, second] = [item(A), item(A)];
    expect(slots.admit(first, 10)).toBe(false);
    expect(slots.admit(second, 20)).toBe(false);
    slots.release(item(A));
    expect(slots.next(A, 100, never)).toEqual({ start: first, expired: [] });
    expect(slots.held()).toBe(5);
    // The slot was taken for it: one more release, one more start, then nothing is left.
    slots.release(item(A));
    expect(slots.next(A, 100, never)).toEqual({ start: second, expired: [] });
    slots.release(item(A));
    expect(slots.next(A, 100, never)).toEqual({ expired: [] });
    expect(slots.held()).toBe(3);
  });

  it("freed slots start the prefetched deliveries of an origin's registrations in turn", () => {
    const slots = new Slots<Item>(limits);
    admit(slots, A, 4);
    const bobs = [item(A, 'bob'), item(A, 'bob'), item(A, 'bob')];
    for (const d of bobs) slots.admit(d, 10);
    const alice = item(A, 'alice');
    slots.admit(alice, 20);
    const started = [];
    for (let i = 0; i < 4; i++) {
      slots.release(item(A));
      started.push(slots.next(A, 100, never).start);
    }
    // Alice's, claimed after all of Bob's, starts second, not last.
    expect(started).toEqual([bobs[0], alice, bobs[1], bobs[2]]);
  });

  it('tell the claim what each registration holds of the origins it may claim for', () => {
    const slots = new Slots<Item>(limits);
    admit(slots, A, 2);
    slots.admit(item(A, 'bob'), 0);
    for (let i = 0; i < 4; i++) slots.admit(item(B, 'bob'), 0);
    // B is saturated: the claim takes nothing of it, so its turns are left out.
    expect(slots.claimLimits()).toEqual({
      saturated: [B],
      room: { [A]: 1 },
      held: { [`${A} acct-1 client-1`]: 2, [`${A} bob client-1`]: 1 },
    });
  });

  it('a saturated origin is left out of the claim; others get the room they have left', () => {
    const slots = new Slots<Item>(limits);
    admit(slots, A, 4);
    admit(slots, B, 1);
    expect(slots.saturated()).toEqual([A]);
    expect(roomOf(slots.claimLimits())).toEqual({ saturated: [A], room: { [B]: 3 } });
    slots.release(item(A));
    expect(roomOf(slots.claimLimits())).toEqual({ saturated: [], room: { [A]: 1, [B]: 3 } });
    for (let i = 0; i < 3; i++) slots.release(item(A));
    slots.release(item(B));
    // Nothing held: no limits named, every origin may get perOrigin.
    expect(roomOf(slots.claimLimits())).toEqual({ saturated: [], room: {} });
  });

  it('prefetched deliveries count against their origin', () => {
    const slots = new Slots<Item>(limits);
    admit(slots, A, 3);
    slots.prefetch(item(A), 0);
    expect(slots.saturated()).toEqual([A]);
    expect(slots.held()).toBe(4);
  });
});

describe('prefetch modes', () => {
  it('unmeasured, then fast or slow by the average attempt duration', () => {
    const slots = new Slots<Item>(limits);
    expect(slots.mode(A)).toBe('unmeasured');
    expect(slots.capacity(A)).toBe(4);
    slots.observe(A, 100);
    expect(slots.mode(A)).toBe('fast');
    expect(slots.capacity(A)).toBe(16); // its slots and three slots' worth prefetched
    slots.observe(B, 250);
    expect(slots.mode(B)).toBe('slow');
    expect(slots.capacity(B)).toBe(4);
  });

  it('a faster receiver has more prefetched: what it answers in 250 ms, 3 to 24 slots worth', () => {
    const slots = new Slots<Item>(limits);
    slots.observe(A, 50); // five slots' worth answered in 250 ms
    expect(slots.capacity(A)).toBe(4 * 6);
    slots.observe(B, 1);
    expect(slots.capacity(B)).toBe(4 * 25);
    const C = 'https://c.example';
    slots.observe(C, 200);
    expect(slots.capacity(C)).toBe(4 * 4);
    // B is claimed for while half of its 96 prefetched are free, and then for all its room.
    admit(slots, B, 4 + 48);
    expect(roomOf(slots.claimLimits())).toEqual({ saturated: [], room: { [B]: 48 } });
    admit(slots, B, 1);
    expect(roomOf(slots.claimLimits())).toEqual({ saturated: [B], room: {} });
  });

  it('fast and slow swap as the average crosses 250 ms', () => {
    const slots = new Slots<Item>(limits);
    slots.observe(A, 100);
    slots.observe(A, 1000); // 0.8 * 100 + 0.2 * 1000 = 280
    expect(slots.mode(A)).toBe('slow');
    slots.observe(A, 100); // 244
    expect(slots.mode(A)).toBe('fast');
  });

  it('a fast origin is saturated only once its prefetch is full too', () => {
    const slots = new Slots<Item>(limits);
    slots.observe(A, 100);
    expect(admit(slots, A, 10)).toHaveLength(4);
    expect(roomOf(slots.claimLimits())).toEqual({ saturated: [], room: { [A]: 6 } });
    admit(slots, A, 6);
    expect(slots.saturated()).toEqual([A]);
    // Turning slow, it may hold no more than its slots: still saturated, nothing prefetched more.
    for (let i = 0; i < 20; i++) slots.observe(A, 2000);
    expect(slots.mode(A)).toBe('slow');
    expect(slots.saturated()).toEqual([A]);
  });

  it('a fast origin is claimed for again once half its prefetch is free, for all its room', () => {
    const slots = new Slots<Item>(limits);
    slots.observe(A, 100); // capacity 16: 4 slots and 12 prefetched; refilled by 6 at least
    admit(slots, A, 16);
    for (let i = 0; i < 5; i++) {
      slots.release(item(A));
      slots.next(A, 0, never);
    }
    expect(slots.held()).toBe(11);
    expect(slots.claimable(A)).toBe(false);
    expect(roomOf(slots.claimLimits())).toEqual({ saturated: [A], room: {} });
    slots.release(item(A));
    slots.next(A, 0, never);
    expect(slots.claimable(A)).toBe(true);
    expect(roomOf(slots.claimLimits())).toEqual({ saturated: [], room: { [A]: 6 } });
  });

  it('slots freed during a claim call for another only where the queue may hold more', () => {
    /** Slots freed while a claim ran: `n` attempts of `origin` end, and prefetched ones start. */
    const free = (slots: Slots<Item>, origin: string, n: number) => {
      for (let i = 0; i < n; i++) {
        slots.release(item(origin));
        slots.next(origin, 0, never);
      }
    };
    const slots = new Slots<Item>(limits);
    slots.observe(A, 100); // capacity 16, refilled by 6 at least
    admit(slots, A, 10);
    let since = slots.mark();
    let asked = slots.claimLimits();
    expect(roomOf(asked)).toEqual({ saturated: [], room: { [A]: 6 } });
    // It got all its room: claimable again after six ended meanwhile, so more may be queued.
    const claimed = Array.from({ length: 6 }, () => item(A));
    free(slots, A, 6);
    for (const i of claimed) slots.admit(i, 0);
    slots.settled(asked, claimed, true, since);
    expect(slots.claimAgain()).toBe(true);
    // It got less than its room: its queue is empty, however many ended meanwhile.
    since = slots.mark();
    asked = slots.claimLimits();
    expect(asked.room[A]).toBe(6);
    free(slots, A, 10);
    const two = admit(slots, A, 2);
    expect(slots.claimable(A)).toBe(true);
    slots.settled(asked, two, true, since);
    expect(slots.claimAgain()).toBe(false);
    // Left out as saturated, it has room now: the claim did not look for it.
    admit(slots, A, 9);
    since = slots.mark();
    asked = slots.claimLimits();
    expect(roomOf(asked)).toEqual({ saturated: [A], room: {} });
    slots.settled(asked, [], true, since);
    free(slots, A, 6);
    expect(slots.claimAgain()).toBe(true);
    // An origin the instance held none of got `perOrigin`, and one of those ended meanwhile.
    admit(slots, A, 6);
    since = slots.mark();
    asked = slots.claimLimits();
    expect(roomOf(asked)).toEqual({ saturated: [A], room: {} });
    const b = [item(B), item(B), item(B), item(B)];
    for (const i of b) slots.admit(i, 0);
    slots.settled(asked, b, true, since);
    expect(slots.claimAgain()).toBe(false);
    slots.release(item(B));
    expect(slots.claimAgain()).toBe(true);
  });

  it('an origin is behind while a claim may find due deliveries of it, and only then', () => {
    const slots = new Slots<Item>(limits);
    expect(slots.behind(A)).toBe(false);
    // A commit queued deliveries while the origin had no room.
    admit(slots, A, 4);
    slots.queued([A]);
    expect(slots.behind(A)).toBe(true);
    // Left out of a claim as saturated: still behind.
    let since = slots.mark();
    let asked = slots.claimLimits();
    expect(asked.saturated).toEqual([A]);
    slots.settled(asked, [], true, since);
    expect(slots.behind(A)).toBe(true);
    // Claimed for, it got all its room: there may be more.
    slots.release(item(A));
    since = slots.mark();
    asked = slots.claimLimits();
    expect(asked.room[A]).toBe(1);
    const one = [item(A)];
    for (const i of one) slots.admit(i, 0);
    slots.settled(asked, one, true, since);
    expect(slots.behind(A)).toBe(true);
    // It got less than its room: nothing more was due.
    slots.release(item(A));
    slots.release(item(A));
    since = slots.mark();
    asked = slots.claimLimits();
    expect(asked.room[A]).toBe(2);
    slots.settled(asked, [], true, since);
    expect(slots.behind(A)).toBe(false);
    // A claim that stopped at its batch size clears nothing.
    slots.queued([A]);
    since = slots.mark();
    slots.settled(slots.claimLimits(), [], false, since);
    expect(slots.behind(A)).toBe(true);
    // Nor does one whose snapshot may predate a commit queued while it ran.
    since = slots.mark();
    asked = slots.claimLimits();
    slots.queued([A]);
    slots.settled(asked, [], true, since);
    expect(slots.behind(A)).toBe(true);
    // An origin held of nothing got `perOrigin`: all it was claimed for.
    const b = [item(B), item(B), item(B), item(B)];
    for (const i of b) slots.admit(i, 0);
    slots.settled(asked, b, true, since);
    expect(slots.behind(B)).toBe(true);
  });

  it('a slow origin is claimed for as soon as one slot is free', () => {
    const slots = new Slots<Item>(limits);
    slots.observe(A, 1000);
    admit(slots, A, 4);
    expect(slots.claimable(A)).toBe(false);
    slots.release(item(A));
    expect(roomOf(slots.claimLimits())).toEqual({ saturated: [], room: { [A]: 1 } });
  });

  it('the least recently measured origins are forgotten beyond 10,000', () => {
    const slots = new Slots<Item>(limits);
    slots.observe(A, 10);
    slots.observe(B, 10);
    for (let i = 0; i < 9998; i++) slots.observe(`https://o${i}.example`, 10);
    slots.observe(A, 10); // measured again: now the most recent
    slots.observe('https://one-more.example', 10);
    expect(slots.mode(B)).toBe('unmeasured');
    expect(slots.mode(A)).toBe('fast');
  });
});

describe('prefetch max age', () => {
  it('a prefetched delivery starts before PREFETCH_MAX_AGE_MS and is expired from then', () => {
    const slots = new Slots<Item>(limits);
    admit(slots, A, 4);
    const [old, older, fresh] = [item(A), item(A), item(A)];
    slots.prefetch(older, 0);
    slots.prefetch(old, 1);
    slots.prefetch(fresh, 500);
    slots.release(item(A));
    const now = 1 + PREFETCH_MAX_AGE_MS;
    expect(slots.next(A, now, never)).toEqual({ start: fresh, expired: [older, old] });
    expect(slots.held()).toBe(4);
    slots.prefetch(old, 0);
    slots.release(item(A));
    expect(slots.next(A, PREFETCH_MAX_AGE_MS - 1, never)).toEqual({ start: old, expired: [] });
  });

  it('skipped deliveries (their receiver is gone) are neither started nor expired', () => {
    const slots = new Slots<Item>(limits);
    admit(slots, A, 4);
    const [gone, kept] = [item(A), item(A)];
    slots.prefetch(gone, 0);
    slots.prefetch(kept, 0);
    slots.release(item(A));
    expect(slots.next(A, 10, (i, claimedAt) => i === gone && claimedAt === 0)).toEqual({
      start: kept,
      expired: [],
    });
    expect(slots.held()).toBe(4);
  });

  it('drain gives up every prefetched delivery', () => {
    const slots = new Slots<Item>(limits);
    admit(slots, A, 5);
    admit(slots, B, 6);
    expect(slots.drain().map((i) => i.origin)).toEqual([A, B, B]);
    expect(slots.held()).toBe(8);
    expect(slots.drain()).toEqual([]);
  });
});

describe('gone receivers', () => {
  const receiver = (url: string) => ({ account_id: 'acc', client_id: 'cli', url });

  it('skip what was claimed before the 410, for a minute', () => {
    const gone = new GoneReceivers();
    gone.add(receiver('https://a.example/x'), 100);
    expect(gone.has(receiver('https://a.example/x'), 50)).toBe(true);
    expect(gone.has(receiver('https://a.example/x'), 100)).toBe(true);
    expect(gone.has(receiver('https://a.example/y'), 50)).toBe(false);
    gone.add(receiver('https://b.example/'), 60_101);
    expect(gone.has(receiver('https://a.example/x'), 50)).toBe(false);
    expect(gone.has(receiver('https://b.example/'), 60_000)).toBe(true);
  });

  it('send what was claimed after it: queued for a registration made again', () => {
    const gone = new GoneReceivers();
    gone.add(receiver('https://a.example/x'), 100);
    expect(gone.has(receiver('https://a.example/x'), 101)).toBe(false);
  });
});

describe('wake-up timing', () => {
  it('sleeps until the next delivery falls due, at most a poll interval', () => {
    expect(untilNextDue(null, false, 1000)).toBeUndefined();
    expect(untilNextDue(10.2, false, 1000)).toBe(11);
    expect(untilNextDue(5000, false, 1000)).toBe(1000);
    // Due yet not claimed (locked by another instance): soon again, unless full anyway.
    expect(untilNextDue(0, false, 1000)).toBe(25);
    expect(untilNextDue(-3, true, 1000)).toBeUndefined();
  });

  it('new work calls for a claim only for an origin with room, while the instance has room', () => {
    const slots = new Slots<Item>(limits);
    admit(slots, A, 4);
    expect(slots.roomFor([A])).toBe(false);
    // One it holds nothing of may be claimed for.
    expect(slots.roomFor([A, B])).toBe(true);
    expect(slots.roomFor([])).toBe(false);
    slots.release(item(A));
    expect(slots.roomFor([A])).toBe(true);
    // The instance holds as much as it may: nothing until it frees some.
    admit(slots, B, 17);
    expect(slots.room()).toBe(0);
    expect(slots.roomFor(['https://c.example'])).toBe(false);
  });

  it('backs off after failed claims, up to 5 s', () => {
    expect([1, 2, 3, 4, 5, 9].map(claimBackoffMs)).toEqual([500, 1000, 2000, 4000, 5000, 5000]);
  });
});
