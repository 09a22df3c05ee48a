/**
 * Every execution's scope checks (Pothos' RequestCache, kept per context) are forgotten once it
 * is done (src/graphql/scope-cache.ts): a page by a plain POST, the first time (Yoga whole) and
 * again (its prepared operation), a request Yoga answers whole, and a live query's first result
 * and its updates. One left behind keeps its request in memory until a full collection.
 */
import { RequestCache } from '@pothos/plugin-scope-auth';
import { print } from 'graphql';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createActivities, waitFor, wsClient } from '../events/live-helpers.ts';
import { graphql } from '../generated/index.ts';
import { startApp, type TestApp } from '../helpers/app.ts';
import { postGraphQL } from '../helpers/client.ts';
import { seedAccessory } from '../helpers/fixtures.ts';

const ScopedPage = graphql(`
  query ScopedPage($id: ID!) {
    accessory(id: $id) {
      activities(first: 5) {
        edges {
          node {
            activityId
          }
        }
      }
    }
  }
`);

const LiveScopedTimeline = graphql(`
  query LiveScopedTimeline @live {
    viewer {
      activities(first: 5) {
        edges {
          node {
            activityId
          }
        }
      }
    }
  }
`);

/** What keptScopes reads of a spy: its calls' arguments and their order among all spies'. */
type Spy = { mock: { calls: unknown[][]; invocationCallOrder: number[] } };

/** The contexts whose scope checks were kept after the last time they were forgotten. */
function keptScopes(from: Spy, clear: Spy): number {
  const last = (spy: Spy) => {
    const at = new Map<unknown, number>();
    spy.mock.calls.forEach(([context], i) => at.set(context, spy.mock.invocationCallOrder[i]!));
    return at;
  };
  const cleared = last(clear);
  return [...last(from)].filter(([context, at]) => (cleared.get(context) ?? 0) < at).length;
}

describe('scope checks', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp('pglite', { LIVE_QUERY_MIN_INTERVAL_MS: '100' });
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    await t?.close();
  });

  it('are forgotten once each execution is done, a live query update’s too', async () => {
    const s = await seedAccessory(t, 'scopes-user', 'cam');
    const reader = await t.token(['activities_basic'], 'scopes-user');
    await createActivities(t, s.ingest, s.accessoryId, 1);
    const from = vi.spyOn(RequestCache, 'fromContext');
    const clear = vi.spyOn(RequestCache, 'clearForContext');

    // A plain POST twice (Yoga whole, then prepared), and one with an Origin (Yoga whole).
    const origin = { origin: 'http://dashboard.example' };
    for (const headers of [{}, {}, origin] as Record<string, string>[]) {
      const res = await postGraphQL(
        t.url,
        reader,
        print(ScopedPage),
        { id: s.accessoryId },
        headers,
      );
      expect(res.status).toBe(200);
      expect(JSON.stringify(await res.json())).not.toContain('"errors"');
    }
    expect(from).toHaveBeenCalled();
    expect(keptScopes(from, clear)).toBe(0);

    // A live query, its first result and two updates.
    const ws = wsClient(t.url, `Bearer ${reader}`);
    const results: unknown[] = [];
    const stop = ws.client.subscribe(
      { query: print(LiveScopedTimeline) },
      { next: (r) => void results.push(r), error: () => {}, complete: () => {} },
    );
    await waitFor(() => results.length === 1, 'the first result');
    for (const n of [2, 3]) {
      await createActivities(t, s.ingest, s.accessoryId, 1);
      await waitFor(() => results.length >= n, `update ${n - 1}`);
    }
    const calls = from.mock.calls.length;
    stop();
    await ws.dispose();
    await waitFor(() => t.app.services.live.activeSubscriptions === 0, 'the live query to end');
    expect(from.mock.calls.length).toBe(calls);
    expect(keptScopes(from, clear)).toBe(0);
  });
});
