import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedActivities as bulkSeed } from '../../src/activities/seed.ts';
import { backends, startApp, type TestApp } from '../helpers/app.ts';
import { rest } from '../helpers/client.ts';
import { seedAccessory, seedActivities } from '../helpers/fixtures.ts';

const DAY = 86_400_000;

/**
 * One tenant's costly requests on PostgreSQL's pools, beside another tenant's page: Mallory
 * sends GraphQL requests of 30 aliased `activityCounts` over her 100,000 activities, several at
 * once, each running 30 statements at the same moment; Bob reads the first page of his
 * activities meanwhile. A pool of 4 connections, so that Mallory's share is one of them.
 */
describe.runIf(backends.includes('postgres'))('a noisy neighbour on the database pools', () => {
  let t: TestApp;
  let mallory: string;
  let bob: string;
  let bobCamera: string;

  beforeAll(async () => {
    // The cost limit lifted: Mallory's counts reach the database, where her share holds them
    // (test/limits/cost.test.ts refuses them by their cost).
    t = await startApp('postgres', { DATABASE_POOL_SIZE: '4', GRAPHQL_MAX_COST: '100000000' });
    await bulkSeed(t.app.services.db, {
      subject: 'mallory',
      accessories: 4,
      activities: 25_000,
      spacingSeconds: 60,
      retentionDays: 3650,
    });
    const { ingest, accessoryId } = await seedAccessory(t, 'bob');
    await seedActivities(t, ingest, accessoryId, 3);
    bobCamera = accessoryId;
    mallory = await t.token(['activities_basic'], 'mallory', 'mallory-app');
    bob = await t.token(['activities_basic'], 'bob', 'bob-app');
  }, 120_000);
  afterAll(() => t?.close());

  const from = new Date(Date.now() - 40 * DAY).toISOString();
  const to = new Date(Date.now() + DAY).toISOString();
  const counts = Array.from(
    { length: 30 },
    (_, i) =>
      `c${i}: activityCounts(from: "${from}", to: "${to}", bucket: HOUR, groupBy: [ACCESSORY, RELEVANCE, ZONE]) { buckets { count } }`,
  ).join('\n');
  const attack = async () => {
    const res = await fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${mallory}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: `{ viewer { ${counts} } }` }),
    });
    const body = (await res.json()) as {
      errors?: { extensions: { code: string } }[];
    };
    return { status: res.status, codes: (body.errors ?? []).map((e) => e.extensions.code) };
  };

  it("serves Bob's page in turn while Mallory's requests wait for her own share", async () => {
    const attacks: Promise<{ status: number; codes: string[] }>[] = [];
    let attacking = true;
    const attacker = async () => {
      while (attacking) {
        const done = attack();
        attacks.push(done);
        await done;
      }
    };
    const attackers = Array.from({ length: 4 }, attacker);
    // Mallory's first statements hold their connections before Bob asks.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const probes: { status: number; code?: string; ms: number }[] = [];
    const until = Date.now() + 8000;
    while (Date.now() < until) {
      const started = performance.now();
      const page = await rest(t.url, bob, 'POST', `/api/accessories/${bobCamera}/activities`, {});
      probes.push({
        status: page.status,
        code: page.body?.error?.code,
        ms: performance.now() - started,
      });
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    attacking = false;
    await Promise.all(attackers);
    const answers = await Promise.all(attacks);

    // Bob: every page, each within a couple of Mallory's statements, never "unavailable".
    expect(probes.filter((p) => p.status !== 200)).toEqual([]);
    expect(Math.max(...probes.map((p) => p.ms))).toBeLessThan(2500);
    // Mallory: her statements beyond her share waited, and past the wait she was told to slow down.
    const codes = answers.flatMap((a) => a.codes);
    expect(codes).toContain('RATE_LIMITED');
    expect(codes).not.toContain('INTERNAL');
    expect(answers.some((a) => a.status === 429)).toBe(true);
  }, 60_000);
});
