import { setTimeout as sleep } from 'node:timers/promises';
import { print } from 'graphql';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { FairPool } from '../../src/storage/fair-pool.ts';
import { graphql } from '../generated/index.ts';
import { backends, startApp, type TestApp } from '../helpers/app.ts';
import { gql, rest } from '../helpers/client.ts';
import { CreateActivity, ok, seedAccessory } from '../helpers/fixtures.ts';
import { register, startReceiver, type Receiver } from './helpers.ts';

const ReplayNotifications = graphql(`
  mutation ReplayNotifications(
    $accountId: ID!
    $from: DateTime!
    $to: DateTime!
    $onlyFailed: Boolean
  ) {
    replayNotifications(accountId: $accountId, from: $from, to: $to, onlyFailed: $onlyFailed) {
      queued
      onlyFailed
    }
  }
`);

const ReplayLog = graphql(`
  query ReplayLog($accountId: ID!) {
    notificationDeliveries(accountId: $accountId, first: 50) {
      edges {
        node {
          id
          webhookId
          status
          replayOf
          createdAt
        }
      }
    }
  }
`);

const authKey = 'replay-receiver-key-0123456789';
const REPLAY = '/api/accounts/self/notifications/replay';

describe.each(backends)('replaying a time range on %s', (backend) => {
  let t: TestApp;
  let receiver: Receiver;
  let token: string;
  let accountId: string;
  /** The webhook-ids in the order they first arrived; the second is refused (500) until fixed. */
  const arrived: string[] = [];
  let fixed = false;
  let originals: { id: string; webhookId: string; status: string; createdAt: string }[];

  const log = async () =>
    (await ok(t, token, ReplayLog, { accountId })).notificationDeliveries!.edges.map((e) => e.node);

  beforeAll(async () => {
    t = await startApp(backend, {
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_RETRY_DELAYS_MS: '50',
      WEBHOOK_REPLAY_MAX: '3',
    });
    const seeded = await seedAccessory(t, 'replay-user');
    accountId = seeded.accountId;
    token = await t.token(['notifications'], 'replay-user');
    receiver = await startReceiver(authKey, (receipt, res) => {
      if (!arrived.includes(receipt.webhookId)) arrived.push(receipt.webhookId);
      res.writeHead(!fixed && arrived.indexOf(receipt.webhookId) === 1 ? 500 : 204).end();
    });
    await register(t, token, { url: receiver.url, authKey, eventTypes: ['activity_created'] });
    // One at a time, so that they arrive (and are queued) in order.
    for (let i = 1; i <= 4; i++) {
      await ok(t, seeded.ingest, CreateActivity, {
        accessoryId: seeded.accessoryId,
        input: { relevanceLevel: 1 },
      });
      await receiver.waitFor(() => arrived.length === i, `notification ${i}`);
    }
    await vi.waitFor(
      async () => {
        const states = (await log()).map((d) => d.status).sort();
        if (states.join() !== 'delivered,delivered,delivered,discarded')
          throw new Error(String(states));
      },
      { timeout: 15_000, interval: 50 },
    );
    originals = (await log()).reverse();
  });
  afterAll(async () => {
    await receiver.close();
    await t.close();
  });

  it('replays only the failed ones with their webhook-ids, marked as replays', async () => {
    const failed = originals[1]!;
    expect(failed).toMatchObject({ webhookId: arrived[1], status: 'discarded' });
    fixed = true;
    const before = receiver.byId(failed.webhookId).length;
    // The last three: the maximum counts them all, whatever onlyFailed takes of them.
    const res = await rest(t.url, token, 'POST', REPLAY, {
      from: failed.createdAt,
      to: new Date().toISOString(),
      onlyFailed: true,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ queued: 1, onlyFailed: true });
    await receiver.waitFor(
      () => receiver.byId(failed.webhookId).length > before,
      'the replayed notification',
    );
    const replay = (await log()).find((d) => d.replayOf !== null)!;
    expect(replay).toMatchObject({ replayOf: failed.id, webhookId: failed.webhookId });
    await expect
      .poll(async () => (await log()).find((d) => d.id === replay.id)!.status)
      .toBe('delivered');
    // Nothing failed any more: nothing to replay.
    const none = await ok(t, token, ReplayNotifications, {
      accountId,
      from: failed.createdAt,
      to: new Date().toISOString(),
      onlyFailed: true,
    });
    expect(none.replayNotifications).toEqual({ queued: 0, onlyFailed: true });
  });

  it('refuses a range holding more than the bound, and replays a smaller one in order', async () => {
    const whole = { from: originals[0]!.createdAt, to: new Date().toISOString() };
    // Four in the range, one of them failed: all four count.
    const tooMany = await rest(t.url, token, 'POST', REPLAY, { ...whole, onlyFailed: true });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error).toMatchObject({
      code: 'INVALID_ARGUMENT',
      details: { field: 'from', max: 3 },
    });
    expect(tooMany.body.error.message).toContain(whole.from.slice(0, 19));
    const replaysBefore = (await log()).filter((d) => d.replayOf !== null).length;
    expect(replaysBefore).toBe(1);

    // The first three (to: just after the third was queued).
    const to = new Date(Date.parse(originals[2]!.createdAt) + 1).toISOString();
    const { replayNotifications } = await ok(t, token, ReplayNotifications, {
      accountId,
      from: whole.from,
      to,
    });
    expect(replayNotifications.queued).toBe(3);
    const replays = (await log())
      .filter((d) => d.replayOf !== null)
      .slice(0, 3)
      .reverse();
    // Queued in the original order, each with its original's webhook-id.
    expect(replays.map((d) => d.replayOf)).toEqual(originals.slice(0, 3).map((d) => d.id));
    expect(replays.map((d) => d.webhookId)).toEqual(originals.slice(0, 3).map((d) => d.webhookId));
  });

  /** Waits until no delivery is pending: each event's latest delivery can be replayed again. */
  const settled = () =>
    vi.waitFor(
      async () => {
        if ((await log()).some((d) => d.status === 'pending')) throw new Error('pending');
      },
      { timeout: 15_000, interval: 50 },
    );
  const replays = async () => (await log()).filter((d) => d.replayOf !== null).length;

  /**
   * Holds up every replay of the registration until `release`: on PostgreSQL a transaction that
   * locks its row (replay reads it FOR SHARE); on the embedded database, a transaction holding
   * its one connection. `waiting` tells that a replay (or anything) waits behind it.
   */
  async function holdReplays() {
    const pool = t.app.services.db.pool;
    const held: pg.PoolClient = await pool.connect();
    await held.query('BEGIN');
    if (backend === 'postgres') {
      await held.query(
        `SELECT 1 FROM notification_registrations WHERE account_id = $1 FOR UPDATE`,
        [accountId],
      );
    }
    return {
      waiting: async () =>
        backend === 'postgres'
          ? (
              await held.query<{ n: number }>(
                `SELECT count(*)::int AS n FROM pg_stat_activity
                  WHERE wait_event_type = 'Lock' AND datname = current_database()`,
              )
            ).rows[0]!.n > 0
          : (pool as FairPool).waiting > 0,
      release: async () => {
        await held.query('COMMIT');
        held.release();
      },
    };
  }

  /** The last original alone: delivered, never replayed. */
  const lastOriginal = () => ({ from: originals[3]!.createdAt, to: new Date().toISOString() });

  it.each(['REST', 'GraphQL'])(
    'stops a replay whose %s request went away before it queued anything',
    async (via) => {
      await settled();
      const before = await replays();
      const hold = await holdReplays();
      const gone = new AbortController();
      const range = lastOriginal();
      const request =
        via === 'REST'
          ? fetch(`${t.url}${REPLAY}`, {
              method: 'POST',
              headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
              body: JSON.stringify(range),
              signal: gone.signal,
            })
          : fetch(`${t.url}/graphql`, {
              method: 'POST',
              headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
              body: JSON.stringify({
                query: print(ReplayNotifications),
                variables: { accountId, ...range },
              }),
              signal: gone.signal,
            });
      const settledRequest = request.catch((err: Error) => err.name);
      await vi.waitFor(async () => expect(await hold.waiting()).toBe(true), { timeout: 5000 });
      // The request has reached the service and waits there: the client goes away.
      await sleep(200);
      gone.abort();
      expect(await settledRequest).toBe('AbortError');
      await sleep(200);
      await hold.release();
      // Time for a replay that runs on regardless to commit.
      await sleep(1000);
      expect(await replays()).toBe(before);
    },
  );

  it('runs one replay of a registration at a time, on every instance: a second is a 409', async () => {
    await settled();
    // On PostgreSQL the second goes to another instance of the service on the same database.
    const other =
      backend === 'postgres'
        ? await startApp(backend, {
            DATABASE_URL: t.config.databaseUrl!,
            WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
            WEBHOOK_ALLOW_HTTP: 'true',
            WEBHOOK_REPLAY_MAX: '3',
          })
        : t;
    try {
      const hold = await holdReplays();
      const range = lastOriginal();
      const first = rest(t.url, token, 'POST', REPLAY, range);
      const second = rest(other.url, token, 'POST', REPLAY, range);
      // One is refused at once, while the other waits for what holds it.
      const early = await Promise.race([first, second, sleep(5000)]);
      await hold.release();
      const answers = await Promise.all([first, second]);
      expect(early, 'no answer while the first replay was held').toBeDefined();
      expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
      const refused = answers.find((a) => a.status === 409)!;
      expect(refused.body.error.code).toBe('CONFLICT');
      expect(refused.body.error.message).toContain('another replay');
      expect(answers.find((a) => a.status === 200)!.body.queued).toBe(1);
    } finally {
      if (other !== t) await other.close();
    }
  });

  it('refuses a range over the maximum at once, however many notifications it holds', async () => {
    // 40,000 delivered originals of this client, three hours before the others.
    const start = new Date(Date.parse(originals[0]!.createdAt) - 3 * 3600_000);
    await t.app.services.db.pool.query(
      `INSERT INTO deliveries (kind, event_id, account_id, client_id, event_type, event_data,
                               url, origin, auth_key, state, created_at)
       SELECT 'event', 1000000 + g, $1, 'client-1', 'activity_created', '{}',
              'http://127.0.0.1:9/', 'http://127.0.0.1:9', 'unused', 'delivered',
              $2::timestamptz + g * interval '50 milliseconds'
         FROM generate_series(1, 40000) g`,
      [accountId, start],
    );
    const range = {
      from: start.toISOString(),
      to: new Date(start.getTime() + 3600_000).toISOString(),
      onlyFailed: true,
    };
    const began = performance.now();
    const res = await rest(t.url, token, 'POST', REPLAY, range);
    const took = performance.now() - began;
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.error).toMatchObject({
      code: 'INVALID_ARGUMENT',
      details: { field: 'from', max: 3 },
    });
    // Reading the whole range, let alone comparing it with every delivery, takes seconds.
    expect(took).toBeLessThan(1000);
  });

  it.each([
    ['from', { from: 'yesterday', to: '2026-11-27T10:00:00Z' }],
    ['to', { from: '2026-11-27T10:00:00Z', to: '2026-11-27T10:00:00Z' }],
    ['to', { from: '2026-11-27T10:00:00Z' }],
    ['onlyFailed', { from: '2026-11-27T09:00:00Z', to: '2026-11-27T10:00:00Z', onlyFailed: 1 }],
    ['colour', { from: '2026-11-27T09:00:00Z', to: '2026-11-27T10:00:00Z', colour: 'red' }],
  ])('400 naming %s for %j', async (field, body) => {
    const res = await rest(t.url, token, 'POST', REPLAY, body);
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'INVALID_ARGUMENT', details: { field } });
  });

  it('answers 404 without a registration', async () => {
    const other = await seedAccessory(t, 'replay-nobody', 'camera-9');
    const nobody = await t.token(['notifications'], 'replay-nobody');
    const body = { from: '2026-11-27T09:00:00Z', to: '2026-11-27T10:00:00Z' };
    expect((await rest(t.url, nobody, 'POST', REPLAY, body)).status).toBe(404);
    const viaGraphQL = await gql(t.url, nobody, ReplayNotifications, {
      accountId: other.accountId,
      ...body,
    });
    expect(viaGraphQL.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
  });
});

describe.each(backends)('a replay paced on %s', (backend) => {
  const RATE = 20;
  let t: TestApp;
  let receiver: Receiver;
  let seeded: Awaited<ReturnType<typeof seedAccessory>>;
  let token: string;

  beforeAll(async () => {
    t = await startApp(backend, {
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_REPLAY_RATE: String(RATE),
    });
    seeded = await seedAccessory(t, 'paced-user');
    token = await t.token(['notifications'], 'paced-user');
    receiver = await startReceiver(authKey);
    await register(t, token, { url: receiver.url, authKey, eventTypes: ['activity_created'] });
  });
  afterAll(async () => {
    await receiver.close();
    await t.close();
  });

  const activity = () =>
    ok(t, seeded.ingest, CreateActivity, { accessoryId: seeded.accessoryId, input: {} });

  it('sends WEBHOOK_REPLAY_RATE a second, two replays one after the other, new notifications first', async () => {
    const from = new Date(Date.now() - 1000).toISOString();
    const earlier: string[] = [];
    for (let i = 0; i < 20; i++) earlier.push((await activity()).createActivity.activityId);
    const middle = new Date().toISOString();
    const later: string[] = [];
    for (let i = 0; i < 20; i++) later.push((await activity()).createActivity.activityId);
    await receiver.waitFor(() => receiver.receipts.length === 40, 'the originals');
    const to = new Date(Date.now() + 1000).toISOString();
    const first = receiver.receipts.length;

    // Two ranges back to back: the second's notifications fall due after the first's.
    const began = Date.now();
    for (const range of [
      { from, to: middle },
      { from: middle, to },
    ]) {
      const res = await rest(t.url, token, 'POST', REPLAY, range);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.queued).toBe(20);
    }
    // A new activity meanwhile is not held behind them.
    const created = await activity();
    const fresh = created.createActivity.activityId;
    await receiver.waitFor(
      () => receiver.receipts.some((r) => r.body.eventData?.activityId === fresh),
      'the new notification',
    );
    const freshAfter = Date.now() - began;
    await receiver.waitFor(() => receiver.receipts.length === 81, 'the replays', 30_000);
    const replays = receiver.receipts
      .slice(first)
      .filter((r) => r.body.eventData?.activityId !== fresh);
    // Each once, spread over 40 / RATE seconds (ticks of 100 ms, whose notifications go at
    // once): the second range's fell due after the first's.
    const activityOf = (r: (typeof replays)[number]) => String(r.body.eventData.activityId);
    expect(replays.map(activityOf).sort()).toEqual([...earlier, ...later].sort());
    const spread = replays.at(-1)!.at - replays[0]!.at;
    expect(spread).toBeGreaterThanOrEqual((40 / RATE) * 1000 - 300);
    expect(freshAfter).toBeLessThan(spread);
  }, 60_000);
});

// The embedded database has one connection: a replay must not hold it while it runs.
describe('a replay of a long range on the embedded database', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp('pglite', {
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_ALLOW_HTTP: 'true',
    });
  });
  afterAll(() => t.close());

  it.each([
    ['queues thousands', false],
    ['has nothing left to queue', true],
  ])(
    "lets another tenant's requests take their turns while it %s",
    async (_, replayedBefore) => {
      const subject = `replay-long-${replayedBefore}`;
      const mallory = await seedAccessory(t, subject);
      const token = await t.token(['notifications'], subject);
      // A receiver that is not there: what the replay queues is not sent during the test.
      await register(t, token, {
        url: 'http://127.0.0.1:9/hooks',
        authKey,
        eventTypes: ['activity_created'],
      });
      await seedAccessory(t, 'replay-bystander', 'camera-2');
      const bobs = await t.token(['activities_basic'], 'replay-bystander');
      // 6,000 originals of an hour ago, delivered; with `replayedBefore`, each replayed since and
      // pending.
      const start = new Date(Date.now() - 3600_000);
      const pool = t.app.services.db.pool;
      await pool.query(
        `INSERT INTO deliveries (kind, event_id, account_id, client_id, event_type, event_data,
                               url, origin, auth_key, state, created_at)
       SELECT 'event', 2000000 + g, $1, 'client-1', 'activity_created', '{}', r.url, r.origin,
              r.auth_key, 'delivered', $2::timestamptz + g * interval '10 milliseconds'
         FROM generate_series(1, 6000) g, notification_registrations r
        WHERE r.account_id = $1`,
        [mallory.accountId, start],
      );
      if (replayedBefore) {
        await pool.query(
          `INSERT INTO deliveries (kind, event_id, account_id, client_id, event_type, event_data,
                                 url, origin, auth_key, state, created_at, replay_of,
                                 next_attempt_at)
         SELECT kind, event_id, account_id, client_id, event_type, event_data, url, origin,
                auth_key, 'pending', now(), id, now() + interval '1 day'
           FROM deliveries WHERE account_id = $1 AND created_at < now() - interval '1 minute'`,
          [mallory.accountId],
        );
      }
      const range = {
        from: start.toISOString(),
        to: new Date(start.getTime() + 3600_000).toISOString(),
      };
      let answered = false;
      const replay = rest(t.url, token, 'POST', REPLAY, range).finally(() => (answered = true));
      // Bob's pages, one after the other, while the replay runs; and those while it queues
      // (some of what it queues is there, not yet all).
      let pages = 0;
      let whileQueueing = 0;
      const queuedSoFar = async () =>
        (
          await pool.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM deliveries
              WHERE account_id = $1 AND replay_of IS NOT NULL AND next_attempt_at < now() + interval '1 hour'`,
            [mallory.accountId],
          )
        ).rows[0]!.n;
      while (!answered) {
        const page = await rest(t.url, bobs, 'POST', '/api/activities', { limit: 20 });
        expect(page.status, JSON.stringify(page.body)).toBe(200);
        const n = replayedBefore ? 0 : await queuedSoFar();
        if (!answered) {
          pages++;
          if (n > 0 && n < 6000) whileQueueing++;
        }
      }
      const res = await replay;
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.queued).toBe(replayedBefore ? 0 : 6000);
      // Held for the replay's whole length, Bob would have had one page at most meanwhile.
      expect(pages).toBeGreaterThanOrEqual(5);
      if (!replayedBefore) expect(whileQueueing).toBeGreaterThanOrEqual(3);
    },
    60_000,
  );
});
