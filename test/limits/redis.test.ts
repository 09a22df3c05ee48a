import { afterEach, describe, expect, it } from 'vitest';
import { backends, startApp, type TestApp } from '../helpers/app.ts';
import { rest } from '../helpers/client.ts';
import { seedAccessory } from '../helpers/fixtures.ts';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.ts';
import {
  accessorySubscriber,
  createActivities,
  loggedIds,
  redisUrl,
  waitFor,
} from '../events/live-helpers.ts';

/**
 * Redis goes away under running instances: a TCP proxy the test owns sits between an instance
 * and Redis, and the test cuts it (connections dropped, new ones refused) and restores it.
 */
describe.runIf(redisUrl).each(backends)('Redis cut off on %s', (backend) => {
  const undo: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const step of undo.splice(0).reverse()) await step();
  });

  async function redisProxy(options?: { connectDelayMs: number }): Promise<TcpProxy> {
    const target = new URL(redisUrl!);
    const proxy = await startTcpProxy(target.hostname, Number(target.port || 6379), options);
    undo.push(proxy.close);
    return proxy;
  }
  async function app(env: Record<string, string>): Promise<TestApp> {
    const t = await startApp(backend, env);
    undo.push(t.close);
    return t;
  }
  /**
   * Instance B reaches Redis through the proxy. PostgreSQL: A, where the events are committed,
   * reaches it directly, so B misses what A publishes while it is cut. PGlite cannot be shared
   * by two instances: one instance, all of its Redis connections through the proxy. `env` is
   * B's as well.
   */
  async function instances(
    proxy: TcpProxy,
    env: Record<string, string> = {},
  ): Promise<{ a: TestApp; b: TestApp }> {
    const b = await app({ ...env, REDIS_URL: proxy.via(redisUrl!) });
    const a =
      backend === 'postgres'
        ? await app({ REDIS_URL: redisUrl!, DATABASE_URL: b.config.databaseUrl! })
        : b;
    return { a, b };
  }
  const listOn = (t: TestApp, token: string, accessoryId: string) =>
    rest(t.url, token, 'POST', `/api/accessories/${accessoryId}/activities`, {});

  it('keeps serving, and live subscribers catch up without gap or repeat once Redis is back', async () => {
    const proxy = await redisProxy();
    // No check of the log within the test: what B misses comes when Redis is back, at once.
    const { a, b } = await instances(proxy, { LIVE_CHECK_MS: '60000' });
    const s = await seedAccessory(a);
    const reader = await a.token(['activities_basic']);
    const { ws, sub } = accessorySubscriber(b.url, reader, s.accessoryId);
    undo.push(ws.dispose);
    await waitFor(() => b.app.services.live.activeSubscriptions === 1, 'the subscription');
    await createActivities(a, s.ingest, s.accessoryId, 2);
    const before = await loggedIds(a, s.accessoryId);
    await waitFor(() => sub.items.length === before.length, 'the events before the cut');

    proxy.cut();
    // Writes and reads go on while Redis is away.
    await createActivities(a, s.ingest, s.accessoryId, 3);
    const list = await listOn(b, reader, s.accessoryId);
    expect(list.status).toBe(200);
    expect(list.body.activities).toHaveLength(5);
    if (a !== b) expect(sub.items).toHaveLength(before.length);

    // Back: the subscriber gets what it missed without waiting for a new event.
    proxy.restore();
    const all = await loggedIds(a, s.accessoryId);
    await waitFor(() => sub.items.length >= all.length, 'the missed events');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(sub.items.map((e) => e.eventId)).toEqual(all);
    expect(sub.errors).toEqual([]);
    if (a !== b) {
      // A published them while B was cut off: B read them from the log on reconnecting.
      const metrics = await (await fetch(`${b.url}/metrics`)).text();
      expect(metrics).toMatch(/clipgate_live_events_repaired_total\{cause="reconnect"\} [1-9]/);
    }
  });

  it('starts while Redis is away, serves, and streams live events once it is back', async () => {
    const proxy = await redisProxy();
    proxy.cut();
    const { a, b } = await instances(proxy);
    const s = await seedAccessory(a);
    const reader = await a.token(['activities_basic']);
    expect((await listOn(b, reader, s.accessoryId)).status).toBe(200);

    proxy.restore();
    const { ws, sub } = accessorySubscriber(b.url, reader, s.accessoryId);
    undo.push(ws.dispose);
    await waitFor(() => b.app.services.live.activeSubscriptions === 1, 'the subscription');
    const prior = await loggedIds(a, s.accessoryId);
    await createActivities(a, s.ingest, s.accessoryId, 2);
    const all = await loggedIds(a, s.accessoryId);
    await waitFor(() => sub.items.length >= all.length - prior.length, 'the events');
    expect(sub.items.map((e) => e.eventId)).toEqual(all.slice(prior.length));
    expect(sub.errors).toEqual([]);
  });

  it('opens a subscription while Redis is away, and streams the events from the log meanwhile', async () => {
    const proxy = await redisProxy();
    const { a, b } = await instances(proxy);
    const s = await seedAccessory(a);
    const reader = await a.token(['activities_basic']);
    proxy.cut();
    // Redis cannot confirm the channel: the subscription goes live without it.
    const { ws, sub } = accessorySubscriber(b.url, reader, s.accessoryId);
    undo.push(ws.dispose);
    await waitFor(() => b.app.services.live.activeSubscriptions === 1, 'the subscription');
    await createActivities(a, s.ingest, s.accessoryId, 2);
    const all = await loggedIds(a, s.accessoryId);
    await waitFor(() => sub.items.length >= all.length, 'the events, from the log');
    expect(sub.items.map((e) => e.eventId)).toEqual(all);
    expect(sub.errors).toEqual([]);
    const metrics = await (await fetch(`${b.url}/metrics`)).text();
    expect(metrics).toMatch(/clipgate_live_wait_timeouts_total\{wait="listen"\} 1/);
    proxy.restore();
  });

  it('falls back to per-instance buckets while Redis is away, never a 5xx', async () => {
    // Connections take a while: the first request must still be counted in Redis.
    const proxy = await redisProxy({ connectDelayMs: 300 });
    const env = { REDIS_URL: proxy.via(redisUrl!), RATE_LIMIT_RPS: '1', RATE_LIMIT_BURST: '3' };
    const t = await app(env);
    const token = await t.token(['activities_basic'], 'user-1', `cut-${crypto.randomUUID()}`);
    const statuses = async (n: number) => {
      const out = [];
      for (let i = 0; i < n; i++)
        out.push((await rest(t.url, token, 'GET', '/api/accessories')).status);
      return out;
    };
    // Shared bucket: one request taken from it in Redis.
    expect(await statuses(1)).toEqual([200]);
    proxy.cut();
    // The instance's own bucket is full: a burst of three, then 429s; answered at once.
    const started = performance.now();
    expect(await statuses(5)).toEqual([200, 200, 200, 429, 429]);
    expect(performance.now() - started).toBeLessThan(5000);
    proxy.restore();
    // Redis again: the shared bucket, which still holds two of its three.
    await expect
      .poll(async () => (await rest(t.url, token, 'GET', '/api/accessories')).status, {
        timeout: 10_000,
        interval: 200,
      })
      .toBe(200);
  });
});
