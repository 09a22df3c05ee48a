import { describe, expect, it } from 'vitest';
import type { Principal, ScopeName } from '../../src/accounts/auth.ts';
import { loadConfig } from '../../src/config.ts';
import { Admission } from '../../src/limits/admission.ts';
import { backends, startApp, TEST_SECRET } from '../helpers/app.ts';
import { seedAccessory } from '../helpers/fixtures.ts';
import { lockActivities } from '../helpers/locks.ts';
import { settled } from '../helpers/settled.ts';

const principal = (clientId: string, scopes: ScopeName[] = ['activities_basic']): Principal => ({
  subject: 'user-1',
  clientId,
  scopes: new Set(scopes),
  rawScopes: [],
  expiresAt: undefined,
});

const limits = (env: Record<string, string>) =>
  loadConfig({ AUTH_DEV_SECRET: TEST_SECRET, ...env }).limits;

describe('fair admission', () => {
  it('lets RATE_LIMIT_CONCURRENCY requests of a caller run, queues the next in order, and lets other callers past', async () => {
    const admission = new Admission(limits({ RATE_LIMIT_CONCURRENCY: '2' }));
    const a = principal('client-a');
    const first = await admission.enter(a);
    await admission.enter(a);
    const third = admission.enter(a);
    const fourth = admission.enter(a);
    expect(await settled(third)).toBe(false);
    expect(await settled(admission.enter(principal('client-b')))).toBe(true);
    first();
    expect(await settled(third)).toBe(true);
    expect(await settled(fourth)).toBe(false);
  });

  it('scales the share of ingest tokens as their request rate, and has no bound when limits are off', async () => {
    const ingest = principal('pipeline', ['ingest']);
    const scaled = new Admission(
      limits({ RATE_LIMIT_CONCURRENCY: '2', RATE_LIMIT_RPS: '50', RATE_LIMIT_INGEST_RPS: '200' }),
    );
    // 2 x 200 / 50 = 8 at once.
    for (let i = 0; i < 8; i++) expect(await settled(scaled.enter(ingest))).toBe(true);
    expect(await settled(scaled.enter(ingest))).toBe(false);
    const off: Record<string, string>[] = [
      { RATE_LIMIT_RPS: '0' },
      { RATE_LIMIT_CONCURRENCY: '0' },
    ];
    for (const env of off) {
      const unbounded = new Admission(limits(env));
      for (let i = 0; i < 100; i++) {
        expect(await settled(unbounded.enter(principal('client-a')))).toBe(true);
      }
    }
  });
});

// Only a server with a connection per query can show it: PGlite runs one statement at a time.
describe.runIf(backends.includes('postgres'))('fair admission on postgres', () => {
  it("runs a caller's REST and GraphQL requests beyond RATE_LIMIT_CONCURRENCY after its earlier ones, other callers' beside them", async () => {
    const t = await startApp('postgres', {
      RATE_LIMIT_RPS: '1000',
      RATE_LIMIT_BURST: '1000',
      RATE_LIMIT_CONCURRENCY: '1',
      GRAPHQL_MAX_COST_IN_FLIGHT: '0',
    });
    try {
      const { accessoryId } = await seedAccessory(t);
      const [a, b] = [
        await t.token(['activities_basic'], 'user-1', 'client-a'),
        await t.token(['activities_basic'], 'user-1', 'client-b'),
      ];
      const list = (token: string) =>
        fetch(`${t.url}/api/accessories/${accessoryId}/activities`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: '{"limit": 5}',
        }).then(async (res) => ({ status: res.status, body: (await res.json()) as object }));
      const page = (token: string) =>
        fetch(`${t.url}/graphql`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            query: `{ accessory(id: "${accessoryId}") { activities(first: 5) { edges { cursor } } } }`,
          }),
        }).then(async (res) => ({ status: res.status, body: (await res.json()) as object }));
      const lock = await lockActivities(t);
      try {
        const answers = [list(a), list(a), page(a), list(b), page(b)];
        // client-a's first; client-b's two (its own share is 1, so only one of them); client-a's
        // other two wait for its first to end.
        expect(await lock.settle(2)).toBe(2);
        await lock.release();
        const [aList, aList2, aPage, bList, bPage] = await Promise.all(answers);
        for (const answer of [aList, aList2, bList]) {
          expect(answer).toMatchObject({ status: 200, body: { activities: [] } });
        }
        for (const answer of [aPage, bPage]) {
          expect(answer).toMatchObject({ status: 200, body: { data: { accessory: {} } } });
        }
      } finally {
        await lock.end();
      }
    } finally {
      await t.close();
    }
  });
});
