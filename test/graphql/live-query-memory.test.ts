import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signDevToken } from '../../src/accounts/auth.ts';
import { waitFor, wsClient, type WsClient } from '../events/live-helpers.ts';
import { backends, freshPostgres, TEST_SECRET } from '../helpers/app.ts';
import { gql, rest } from '../helpers/client.ts';
import { AssociateAccessory, UpsertAccount } from '../helpers/fixtures.ts';
import { startServiceProcess, type ServiceProcess } from '../helpers/process.ts';

/**
 * Live queries under a small heap, end to end: the service runs as its own process with
 * `--max-old-space-size=110`, and one tenant opens many live queries with large results (counts
 * by hour grouped by accessory, relevance and zone, twenty times in one operation, each with
 * other variables so that none shares another's result). Without a bound on what they keep,
 * thirty of them took the heap and the process with every tenant's connections; with the
 * defaults of LIVE_QUERY_MAX_*, the tenant is refused past its share and another is served (the
 * cost budget lifted, so that the flood is not refused by its cost first).
 */

const HOUR = 3_600_000;
const ALIASES = 10;

/** Every bucket of a range by hour, grouped by all three: about 110 bytes a bucket. */
const LargeCounts = `query LargeCounts($from: DateTime!, $to: DateTime!) @live {
  viewer {
${Array.from(
  { length: ALIASES },
  (_, i) =>
    `    c${i}: activityCounts(from: $from, to: $to, bucket: HOUR, groupBy: [ACCESSORY, RELEVANCE, ZONE]) { buckets { start count accessoryId relevanceLevel zoneId } }`,
).join('\n')}
  }
}`;

// On PostgreSQL: what live queries keep is the GraphQL layer's, whatever the database; on the
// embedded one, with its one connection, the flood's counts take minutes to answer.
describe.runIf(backends.includes('postgres'))('live queries under a 110 MB heap', () => {
  let service: ServiceProcess;
  let dataDir: string;
  let dropDatabase: (() => Promise<void>) | undefined;
  const sockets: WsClient[] = [];

  const token = (subject: string, scope: string) =>
    signDevToken(TEST_SECRET, { sub: subject, clientId: 'client-1', scopes: [`service:${scope}`] });

  beforeAll(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'clipgate-live-memory-'));
    const db = await freshPostgres();
    dropDatabase = db.drop;
    service = await startServiceProcess(
      ['--max-old-space-size=110', '--import', 'tsx', 'src/main.ts'],
      // Counts cost what they scan (limits/cost.ts): within the default budgets the flood would
      // be refused by its cost before it kept any memory. An operator may lift the budget; what
      // live queries keep is bounded still, and that is what this test is about.
      { DATA_DIR: dataDir, GRAPHQL_MAX_COST: '10000000', RATE_LIMIT_COST: '0', ...db.env },
      { listenTimeoutMs: 150_000 },
    );
  }, 180_000);
  afterAll(async () => {
    await Promise.all(sockets.map((s) => s.dispose()));
    await service?.stop();
    await dropDatabase?.();
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  /** An account of `subject` with three cameras and `count` activities an hour apart. */
  async function seed(subject: string, count: number): Promise<void> {
    const ingest = await token('ingest', 'ingest');
    const account = await gql(service.url, ingest, UpsertAccount, { subject, retentionDays: 400 });
    const accountId = account.data!.upsertAccount.accountId;
    const accessories: string[] = [];
    for (const deviceId of ['cam-1', 'cam-2', 'cam-3']) {
      const associated = await gql(service.url, ingest, AssociateAccessory, {
        accountId,
        deviceId: `${subject}-${deviceId}`,
        name: deviceId,
      });
      accessories.push(associated.data!.associateAccessory.id);
    }
    const start = Math.floor(Date.now() / HOUR) * HOUR - count * HOUR;
    const items = Array.from({ length: count }, (_, i) => ({
      op: 'createActivity',
      accessoryId: accessories[i % 3],
      input: {
        createdAt: new Date(start + i * HOUR).toISOString(),
        relevanceLevel: i % 4,
        motionZones: [['z1'], ['z1', 'z2'], ['z3'], []][i % 4],
      },
    }));
    for (let i = 0; i < items.length; i += 250) {
      const res = await rest(service.url, ingest, 'POST', '/api/ingest', items.slice(i, i + 250));
      expect(res.status).toBe(200);
    }
  }

  it("survives one tenant's flood of large live queries, and serves another tenant", async () => {
    let exited = false;
    void service.exited.then(() => (exited = true));
    await seed('mallory', 600);
    await seed('bob', 3);
    const mallory = await token('mallory', 'activities_basic');
    const bob = await token('bob', 'activities_basic');

    // Sixty live queries, each over its own range (one hour more each), on three sockets.
    const flood = Array.from({ length: 3 }, () => wsClient(service.url, `Bearer ${mallory}`));
    sockets.push(...flood);
    const to = Math.floor(Date.now() / HOUR) * HOUR + HOUR;
    const outcomes = Array.from({ length: 60 }, () => ({
      results: 0,
      refusal: undefined as Record<string, unknown> | undefined,
      ended: false,
    }));
    outcomes.forEach((outcome, i) => {
      flood[i % 3]!.client.subscribe(
        {
          query: LargeCounts,
          variables: {
            from: new Date(to - 1000 * HOUR).toISOString(),
            to: new Date(to + i * HOUR).toISOString(),
          },
        },
        {
          next: (result) => {
            outcome.results++;
            const extensions = result.errors?.[0]?.extensions;
            if (extensions) outcome.refusal = extensions;
          },
          error: () => (outcome.ended = true),
          complete: () => (outcome.ended = true),
        },
      );
    });
    await waitFor(
      () => exited || outcomes.every((o) => o.results > 0),
      'an answer to every live query',
      150_000,
    );
    expect(exited).toBe(false);

    // Some run; the others were refused past the tenant's number or bytes, the instance's bytes,
    // or the tenant's share of the database's connections, each naming its limit.
    const limits = outcomes.flatMap((o) =>
      o.refusal ? [(o.refusal.details as { limit: string }).limit] : [],
    );
    expect(limits.length).toBeLessThan(outcomes.length);
    // Refused by bytes too, not by their number alone (which of the two depends on the heap).
    expect(limits.filter((limit) => limit !== 'LIVE_QUERY_MAX_PER_CALLER')).not.toEqual([]);
    for (const limit of limits) {
      expect([
        'LIVE_QUERY_MAX_PER_CALLER',
        'LIVE_QUERY_MAX_BYTES_PER_CALLER',
        'LIVE_QUERY_MAX_BYTES',
        'DATABASE_POOL_SHARE',
      ]).toContain(limit);
    }
    expect(outcomes.filter((o) => !o.refusal).every((o) => !o.ended)).toBe(true);

    // Another tenant is served, over HTTP and with a live query of its own.
    const timeline = await rest(service.url, bob, 'POST', '/api/activities', { limit: 10 });
    expect(timeline.status).toBe(200);
    expect(timeline.body.activities).toHaveLength(3);
    const bobs = wsClient(service.url, `Bearer ${bob}`);
    sockets.push(bobs);
    const first = await new Promise<unknown>((resolve, reject) => {
      bobs.client.subscribe(
        { query: 'query Mine @live { viewer { activities(first: 5) { edges { cursor } } } }' },
        { next: (result) => resolve(result), error: reject, complete: () => {} },
      );
    });
    expect(first).toMatchObject({ data: { viewer: { activities: { edges: expect.any(Array) } } } });
    expect((await fetch(`${service.url}/healthz`)).status).toBe(200);
    expect(exited).toBe(false);
  }, 180_000);
});
