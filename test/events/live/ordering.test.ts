import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LiveEvents, type SubscribeOptions } from '../../../src/events/live/live-events.ts';
import { streamTopic } from '../../../src/events/live/stream.ts';
import { StreamEnd } from '../../../src/events/live/subscription.ts';
import {
  accountStream,
  cameraStream,
  consume,
  countingObserver,
  FakeBus,
  FakeLog,
  fakeSink,
  settle,
} from './fakes.ts';

// The ordering core of live events on a fake bus and a fake log: no database, no sockets.
describe('live events: ordering and catch-up', () => {
  let bus: FakeBus;
  let log: FakeLog;
  let counts: ReturnType<typeof countingObserver>['counts'];
  let live: LiveEvents;
  const topic = streamTopic(cameraStream);
  // The periodic check runs when a test calls it; the other bounds are short.
  const bounds = { checkMs: 60_000, checkGraceMs: 10, logReadMs: 50, listenMs: 20 };

  beforeEach(() => {
    bus = new FakeBus();
    log = new FakeLog();
    const observed = countingObserver();
    counts = observed.counts;
    live = new LiveEvents({
      bus,
      log,
      observer: observed.observer,
      bufferEvents: 3,
      retentionHours: 24,
      pageSize: 2,
      bounds,
    });
  });
  afterEach(() => live.close());

  const subscribe = (options: Partial<SubscribeOptions> = {}) =>
    live.subscribe({ stream: cameraStream, sink: fakeSink('ws').sink, ...options });
  /** Commits events, each in a transaction of its own, and publishes them as committers do. */
  const commit = (count = 1) => {
    for (let i = 0; i < count; i++) live.publish([log.commit()]);
  };

  it('delivers each stream in order, with one listener per topic for all its subscribers', async () => {
    log.commit(); // before the subscription: not delivered
    const camera = [consume(await subscribe()), consume(await subscribe())];
    const account = consume(await subscribe({ stream: accountStream }));
    expect(bus.listeners.get(topic)?.size).toBe(1);
    expect(live.topicCount).toBe(2);

    commit(3);
    log.commit('motion_started', 'camera-2');
    live.publish(log.events.slice(-1));
    await settle();
    for (const c of camera) expect(c.ids()).toEqual(['2', '3', '4']);
    expect(account.ids()).toEqual(['2', '3', '4', '5']);
    expect(counts.delivered).toBe(10);
    expect(log.reads).toEqual([]);
  });

  it('serves a large topic a slice of subscribers per turn of the event loop, each all its events in order', async () => {
    const subs = await Promise.all(Array.from({ length: 250 }, () => subscribe()));
    const consumers = subs.map(consume);
    commit(2);
    for (let i = 0; i < 20; i++) await Promise.resolve();
    // Before the event loop turns: the first slice has its event, the others wait.
    expect(consumers.filter((c) => c.items.length > 0)).toHaveLength(100);
    // One that leaves meanwhile is skipped.
    await subs[249]!.return();
    await settle();
    for (const c of consumers.slice(0, 249)) expect(c.ids()).toEqual(['1', '2']);
    expect(consumers[249]!.ids()).toEqual([]);
    expect(counts.delivered).toBe(498);
  });

  it('fetches the gap of a message that overtook others, in id order, and drops repeats', async () => {
    const sub = consume(await subscribe());
    bus.paused = true;
    commit(3);
    const [first, second, third] = bus.held.filter((h) => h.topic === topic);
    bus.deliver(topic, third!.message);
    await settle();
    expect(sub.ids()).toEqual(['1', '2', '3']);
    expect(log.reads[0]).toMatchObject({ after: '0', before: '3' });
    const reads = log.reads.length;

    bus.deliver(topic, first!.message);
    bus.deliver(topic, second!.message);
    bus.paused = false;
    commit();
    await settle();
    expect(sub.ids()).toEqual(['1', '2', '3', '4']);
    expect(log.reads).toHaveLength(reads);
  });

  it('repairs a lost message from the log when the next one arrives', async () => {
    const sub = consume(await subscribe());
    log.commit(); // committed, never published
    commit();
    await settle();
    expect(sub.ids()).toEqual(['1', '2']);
  });

  it('reads an event that was never published at the next check, without waiting for another', async () => {
    const sub = consume(await subscribe());
    commit();
    log.commit(); // committed, never published: its committer lost its connection first
    await settle();
    expect(sub.ids()).toEqual(['1']);
    await live.check();
    await sleep(bounds.checkGraceMs * 3);
    await settle();
    expect(sub.ids()).toEqual(['1', '2']);
    expect(log.reads).toEqual([expect.objectContaining({ after: '1', before: undefined })]);
    expect(counts.repaired).toEqual({ check: 1 });
    // Nothing new: the next check reads the heads only.
    await live.check();
    await sleep(bounds.checkGraceMs * 3);
    expect(log.reads).toHaveLength(1);
    commit();
    await settle();
    expect(sub.ids()).toEqual(['1', '2', '3']);
  });

  it('leaves to the bus what it brings within the grace after a check', async () => {
    const sub = consume(await subscribe());
    bus.paused = true;
    commit(); // on its way
    await live.check();
    for (const held of bus.held.splice(0)) bus.deliver(held.topic, held.message);
    await sleep(bounds.checkGraceMs * 3);
    await settle();
    expect(sub.ids()).toEqual(['1']);
    expect(log.reads).toEqual([]);
    expect(counts.repaired).toEqual({});
  });

  it('reports a check that cannot read the log once until one succeeds again', async () => {
    consume(await subscribe());
    log.failHeads = true;
    await live.check();
    await live.check();
    expect(counts.checkFailures).toBe(1);
    log.failHeads = false;
    await live.check();
    log.failHeads = true;
    await live.check();
    expect(counts.checkFailures).toBe(2);
    expect(live.activeSubscriptions).toBe(1);
  });

  it('counts a check whose read runs past its bound, and checks again at its next round', async () => {
    const sub = consume(await subscribe());
    log.commit(); // never published
    const release = log.hold('heads');
    await live.check();
    expect(counts.timeouts).toEqual(['check']);
    expect(counts.checkFailures).toBe(1);
    release();
    await live.check();
    await sleep(bounds.checkGraceMs * 3);
    await settle();
    expect(sub.ids()).toEqual(['1']);
    expect(live.activeSubscriptions).toBe(1);
  });

  it('goes live when the bus does not confirm the channel in time; the check brings what it missed', async () => {
    bus.confirming = false;
    const sub = consume(await subscribe());
    expect(counts.timeouts).toEqual(['listen']);
    log.commit(); // the bus did not carry it
    await live.check();
    await sleep(bounds.checkGraceMs * 3);
    await settle();
    expect(sub.ids()).toEqual(['1']);
  });

  it("ends a topic's subscribers with UNAVAILABLE when a catch-up read runs past its bound", async () => {
    const subs = [consume(await subscribe()), consume(await subscribe())];
    const release = log.hold();
    log.commit(); // never published
    commit(); // its message shows the gap: the read of the log hangs
    await sleep(bounds.logReadMs * 3);
    await settle();
    for (const sub of subs) {
      expect(sub.items).toMatchObject([{ error: { code: 'UNAVAILABLE' } }]);
      expect(sub.done()).toBe(true);
    }
    expect(counts.timeouts).toEqual(['log']);
    expect(counts.failures).toEqual(['live-event topic failed']);
    expect(live.topicCount).toBe(0);
    release();
    // A subscriber that comes back resumes after the last event it got.
    const resumed = consume(await subscribe({ after: '1' }));
    commit();
    await settle();
    expect(resumed.ids()).toEqual(['2', '3']);
  });

  it('catches up after the bus reconnected, without waiting for a new event', async () => {
    const sub = consume(await subscribe());
    commit();
    // Lost while the bus was away; more than a page.
    for (let i = 0; i < 3; i++) log.commit();
    await settle();
    expect(sub.ids()).toEqual(['1']);
    bus.reconnect();
    await settle();
    expect(sub.ids()).toEqual(['1', '2', '3', '4']);
    commit();
    await settle();
    expect(sub.ids()).toEqual(['1', '2', '3', '4', '5']);
  });

  it('resumes with after: replays the log, then goes live, with no gap or repeat at the seam', async () => {
    commit(5);
    const release = log.hold();
    const sub = consume(await subscribe({ after: '2' }));
    // Committed while the replay reads: arrives live and is in the log as well.
    commit(2);
    await settle();
    expect(sub.ids()).toEqual([]);
    release();
    await settle();
    expect(sub.ids()).toEqual(['3', '4', '5', '6', '7']);
    expect(log.reads.map((r) => r.after)).toEqual(['2', '4', '6']);
    commit();
    await settle();
    expect(sub.ids()).toEqual(['3', '4', '5', '6', '7', '8']);
  });

  it('filters by type in the replay and live, and ends an account stream at its deletion', async () => {
    log.commit('activity_created');
    log.commit('motion_started');
    log.commit('activity_created');
    const sub = consume(
      await subscribe({
        stream: accountStream,
        after: '1',
        eventTypes: ['activity_created', 'account_deleted'],
      }),
    );
    log.commit('motion_started');
    live.publish(log.events.slice(-1));
    live.publish([log.commit('account_deleted')]);
    await settle();
    expect(sub.ids()).toEqual(['3', '5']);
    expect(sub.done()).toBe(true);
    expect(live.activeSubscriptions).toBe(0);
  });

  it('refuses an after that is not in the log', async () => {
    commit();
    await expect(subscribe({ after: '7' })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      details: { field: 'after' },
    });
    await expect(subscribe({ after: '01' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(live.topicCount).toBe(0);
  });

  it('cuts a subscriber whose queue overflows: a WebSocket closes, SSE ends with the error', async () => {
    const ws = fakeSink('ws');
    const slow = await subscribe({ sink: ws.sink });
    const sse = fakeSink('sse');
    const slowToo = await subscribe({ sink: sse.sink });
    commit(4);
    await settle();
    expect(ws.cuts).toEqual([expect.stringMatching(/slow consumer.*resume with after/)]);
    expect(sse.cuts).toHaveLength(1);
    expect(counts.slowConsumers).toBe(2);
    expect(live.activeSubscriptions).toBe(0);
    expect(live.topicCount).toBe(0);
    expect(await slow.next()).toEqual({ done: true, value: undefined });
    const end = await slowToo.next();
    expect(end.value).toBeInstanceOf(StreamEnd);
    expect((end.value as StreamEnd).error.code).toBe('RATE_LIMITED');
    expect(await slowToo.next()).toMatchObject({ done: true });
  });

  it('counts a congested connection as slow as soon as an event has to wait', async () => {
    const { sink, cuts } = fakeSink('ws', () => true);
    await subscribe({ sink });
    commit();
    expect(cuts).toHaveLength(1);
    expect(live.queuedEvents()).toBe(0);
  });

  it('ends the stream with UNAVAILABLE when the log cannot be read', async () => {
    commit(2);
    log.failReads = true;
    const sub = consume(await subscribe({ after: '1' }));
    await settle();
    expect(sub.items).toMatchObject([{ error: { code: 'UNAVAILABLE' } }]);
    expect(sub.done()).toBe(true);
    expect(counts.failures).toEqual(['replaying the event log failed']);
    expect(live.activeSubscriptions).toBe(0);
  });

  it('frees the topic when its last subscriber leaves, and refuses subscribers once drained', async () => {
    const one = await subscribe();
    const two = await subscribe();
    expect(counts.subscriptions).toBe(2);
    await one.return();
    expect(live.topicCount).toBe(1);
    await two.return();
    expect(live.topicCount).toBe(0);
    expect(bus.listeners.size).toBe(0);
    expect(counts.subscriptions).toBe(0);
    const open = await subscribe();
    live.close();
    expect(await open.next()).toMatchObject({ done: true });
    await expect(subscribe()).rejects.toMatchObject({ code: 'UNAVAILABLE' });
  });
});
