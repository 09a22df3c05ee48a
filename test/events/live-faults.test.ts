import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { backends, freshPostgres, startApp, type Backend, type TestApp } from '../helpers/app.ts';
import { CreateActivity, ok, seedAccessory } from '../helpers/fixtures.ts';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.ts';
import { accessorySubscriber, loggedIds, redisUrl, waitFor } from './live-helpers.ts';

/**
 * A database cut at the moment a write commits, on a quiet camera. The write's answer is lost
 * (503); once the database is back the client sends it again with the same Idempotency-Key and
 * gets the stored answer, which applies (and publishes) nothing. Nobody published the committed
 * events, and no later event of the stream came to show the gap: they must reach the live
 * subscriber all the same, without waiting for the next event.
 *
 * The instances reach the database through a TCP proxy the test owns (PostgreSQL, or the
 * loopback socket the embedded PGlite is served on). On PostgreSQL with Redis, the subscriber is
 * on a second instance; PGlite cannot be shared, so there it is one instance with each bus.
 */
const variants: { backend: Backend; bus: 'in-process' | 'Redis' }[] = backends.flatMap(
  (backend) => [
    { backend, bus: 'in-process' as const },
    ...(redisUrl ? [{ backend, bus: 'Redis' as const }] : []),
  ],
);

describe.each(variants)(
  'a write whose answer a database cut lost, on $backend with the $bus bus',
  (v) => {
    const undo: (() => Promise<void>)[] = [];
    afterEach(async () => {
      for (const step of undo.splice(0).reverse()) await step();
    });

    /** The instance that commits (a) and the one with the subscriber (b), behind one proxy. */
    async function instances(): Promise<{ a: TestApp; b: TestApp; proxy: TcpProxy }> {
      const env: Record<string, string> = v.bus === 'Redis' ? { REDIS_URL: redisUrl! } : {};
      if (v.backend === 'postgres') {
        const db = await freshPostgres({ migrated: true });
        undo.push(db.drop);
        const target = new URL(db.url);
        const proxy = await startTcpProxy(target.hostname, Number(target.port || 5432));
        undo.push(proxy.close);
        const shared: Record<string, string> = { ...env, DATABASE_URL: proxy.via(db.url) };
        const a = await startApp('postgres', shared);
        undo.push(a.close);
        const b = v.bus === 'Redis' ? await startApp('postgres', shared) : a;
        if (b !== a) undo.push(b.close);
        return { a, b, proxy };
      }
      let proxy: TcpProxy | undefined;
      const a = await startApp('pglite', env, undefined, {
        routeEmbedded: async (served) => {
          const target = new URL(served);
          proxy = await startTcpProxy(target.hostname, Number(target.port));
          return proxy.via(served);
        },
      });
      undo.push(async () => {
        await a.close();
        await proxy!.close();
      });
      return { a, b: a, proxy: proxy! };
    }

    const ingest = (t: TestApp, token: string, key: string, items: unknown[]) =>
      fetch(`${t.url}/api/ingest`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'idempotency-key': key,
        },
        body: JSON.stringify(items),
      });

    it('reaches the subscriber without waiting for a later event', async () => {
      const { a, b, proxy } = await instances();
      const s = await seedAccessory(a, 'quiet-1', 'cam');
      const reader = await a.token(['activities_basic'], 'quiet-1');
      const { ws, sub } = accessorySubscriber(b.url, reader, s.accessoryId);
      undo.push(ws.dispose);
      await waitFor(() => b.app.services.live.activeSubscriptions === 1, 'the subscription');
      // The camera's last activity before the fault arrives live, as usual.
      await ok(a, s.ingest, CreateActivity, { accessoryId: s.accessoryId, input: {} });
      await waitFor(() => sub.items.length === 1, 'the event before the fault');

      // The batch runs and commits, its answer is lost, then the connection is cut.
      const key = randomUUID();
      const items = [
        {
          op: 'createActivity',
          accessoryId: s.accessoryId,
          input: { createdAt: new Date().toISOString(), relevanceLevel: 2 },
        },
      ];
      const committed = proxy.loseAnswer('clipgate_ingest_settled');
      const lost = ingest(a, s.ingest, key, items);
      await committed;
      proxy.cut();
      expect((await lost).status).toBe(503);
      proxy.restore();
      for (const t of new Set([a, b])) {
        await expect
          .poll(async () => (await fetch(`${t.url}/readyz`)).status, { timeout: 15_000 })
          .toBe(200);
      }

      // Sent again with its key: the stored answer, nothing applied twice, nothing published.
      const again = await ingest(a, s.ingest, key, items);
      expect(again.status).toBe(200);
      const { results } = (await again.json()) as { results: { ok: boolean }[] };
      expect(results).toMatchObject([{ ok: true }]);
      const logged = await loggedIds(a, s.accessoryId);
      expect(logged).toHaveLength(3); // created; then the previous one finished and the new one created

      // The camera stays quiet: the events arrive all the same.
      await waitFor(() => sub.items.length === logged.length, 'the events of the lost answer');
      expect(sub.items.map((e) => e.eventId)).toEqual(logged);
      const metrics = await (await fetch(`${b.url}/metrics`)).text();
      expect(metrics).toMatch(/clipgate_live_events_repaired_total\{cause="check"\} [1-9]/);

      // The next event follows them, without a gap or a repeat.
      await ok(a, s.ingest, CreateActivity, { accessoryId: s.accessoryId, input: {} });
      const all = await loggedIds(a, s.accessoryId);
      await waitFor(() => sub.items.length === all.length, 'the next event');
      expect(sub.items.map((e) => e.eventId)).toEqual(all);
      expect(sub.errors).toEqual([]);
    }, 90_000);
  },
);
