import { afterEach, describe, expect, it, vi } from 'vitest';
import { createMetrics } from '../../src/metrics.ts';
import { Jobs } from '../../src/jobs/scheduler.ts';
import { Disposables } from '../../src/lifecycle.ts';
import { createLogger } from '../../src/logger.ts';

const logger = createLogger('silent');

function deferred() {
  let resolve!: (n: number) => void;
  const promise = new Promise<number>((r) => (resolve = r));
  return { promise, resolve };
}

describe('Jobs', () => {
  afterEach(() => void vi.useRealTimers());

  it('runs each job at start, then every interval after the previous round ended', async () => {
    vi.useFakeTimers();
    const metrics = createMetrics();
    const jobs = new Jobs(logger, metrics);
    const rounds: number[] = [];
    jobs.add({ name: 'test.tick', everyMs: 1000, run: async () => rounds.push(Date.now()) });
    jobs.start();
    await vi.advanceTimersByTimeAsync(3500);
    expect(rounds).toHaveLength(4);
    await jobs.stop();
    await vi.advanceTimersByTimeAsync(5000);
    expect(rounds).toHaveLength(4);
    const runs = await metrics.jobRuns.get();
    expect(runs.values).toMatchObject([{ labels: { job: 'test.tick', result: 'ok' }, value: 4 }]);
  });

  it('never overlaps rounds: calls during a round share the next one', async () => {
    const jobs = new Jobs(logger, createMetrics());
    let running = 0;
    let overlapped = false;
    const gates = [deferred(), deferred()];
    let round = 0;
    jobs.add({
      name: 'test.slow',
      everyMs: 0,
      run: async () => {
        running++;
        overlapped ||= running > 1;
        const n = await gates[round++]!.promise;
        running--;
        return n;
      },
    });
    const first = jobs.runNow('test.slow');
    const second = jobs.runNow('test.slow');
    const third = jobs.runNow('test.slow');
    expect(second).toBe(third);
    gates[0]!.resolve(1);
    expect(await first).toBe(1);
    gates[1]!.resolve(2);
    expect(await second).toBe(2);
    expect(round).toBe(2);
    expect(overlapped).toBe(false);
  });

  it('counts a failed round and keeps the schedule', async () => {
    vi.useFakeTimers();
    const metrics = createMetrics();
    const jobs = new Jobs(logger, metrics);
    let calls = 0;
    jobs.add({
      name: 'test.flaky',
      everyMs: 100,
      run: async () => {
        if (++calls === 1) throw new Error('database away');
        return 3;
      },
    });
    jobs.start();
    await vi.advanceTimersByTimeAsync(150);
    expect(calls).toBe(2);
    await jobs.stop();
    const runs = (await metrics.jobRuns.get()).values.map((v) => [v.labels.result, v.value]);
    expect(Object.fromEntries(runs)).toEqual({ failed: 1, ok: 1 });
    expect((await metrics.jobItems.get()).values[0]!.value).toBe(3);
  });

  it('runs a round when woken between rounds, until it stops', async () => {
    vi.useFakeTimers();
    const jobs = new Jobs(logger, createMetrics());
    const listeners = new Set<() => void>();
    const signal = () => listeners.forEach((l) => l());
    let rounds = 0;
    jobs.add({
      name: 'test.woken',
      everyMs: 60_000,
      run: async () => ++rounds,
      wakeOn: (wake) => {
        listeners.add(wake);
        return () => listeners.delete(wake);
      },
    });
    jobs.start();
    await vi.advanceTimersByTimeAsync(10);
    expect(rounds).toBe(1);
    signal();
    await vi.advanceTimersByTimeAsync(10);
    expect(rounds).toBe(2);
    await jobs.stop();
    expect(listeners.size).toBe(0);
    signal();
    await vi.advanceTimersByTimeAsync(120_000);
    expect(rounds).toBe(2);
  });

  it('stop waits for the round in progress', async () => {
    const jobs = new Jobs(logger, createMetrics());
    const gate = deferred();
    jobs.add({ name: 'test.long', everyMs: 60_000, run: () => gate.promise });
    jobs.start();
    let stopped = false;
    const stopping = jobs.stop().then(() => (stopped = true));
    await new Promise((r) => setTimeout(r, 10));
    expect(stopped).toBe(false);
    gate.resolve(0);
    await stopping;
    expect(stopped).toBe(true);
  });
});

describe('Disposables', () => {
  it('undoes last first, runs every step even after a failure, then throws the first', async () => {
    const order: string[] = [];
    const d = new Disposables();
    d.defer('database', () => void order.push('database'));
    d.defer('broken', () => {
      order.push('broken');
      throw new Error('boom');
    });
    d.defer('server', async () => void order.push('server'));
    await expect(d.dispose(logger)).rejects.toThrow('boom');
    expect(order).toEqual(['server', 'broken', 'database']);
  });
});
