import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.ts';
import { gql } from '../helpers/client.ts';
import { AssociateAccessory, CreateActivity, ok, UpsertAccount } from '../helpers/fixtures.ts';
import {
  NotificationDeliveries,
  register,
  sleep,
  startReceiver,
  type Receiver,
} from './helpers.ts';

// Closing an app must let its attempt in flight finish and record it; the database is inspected
// after the app closed, so this runs on PostgreSQL.
describe.skipIf(!process.env.TEST_DATABASE_URL)('graceful shutdown', () => {
  it('stops claiming, lets the attempt in flight finish and records it', async () => {
    const t = await startApp('postgres', {
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_TIMEOUT_MS: '3000',
    });
    const authKey = 'shutdown-receiver-key';
    const rx = await startReceiver(authKey, async (_r, res) => {
      await sleep(500);
      res.writeHead(204).end();
    });
    try {
      const ingest = await t.token(['ingest']);
      const { upsertAccount } = await ok(t, ingest, UpsertAccount, { subject: 'stop-user' });
      const { associateAccessory } = await ok(t, ingest, AssociateAccessory, {
        accountId: upsertAccount.accountId,
        deviceId: 'stop-cam',
        name: 'stop',
      });
      const token = await t.token(['notifications'], 'stop-user', 'stop-client');
      await register(t, token, { url: rx.url, authKey, eventTypes: ['activity_created'] });
      await ok(t, ingest, CreateActivity, { accessoryId: associateAccessory.id, input: {} });
      await rx.waitFor(() => rx.open === 1, 'the attempt in flight');
      const closing = Date.now();
      await t.app.close();
      // close() waited for the receiver's answer.
      expect(Date.now() - closing).toBeGreaterThanOrEqual(300);
      const client = new pg.Client({ connectionString: t.config.databaseUrl });
      await client.connect();
      const { rows } = await client.query(
        `SELECT d.state, d.lease_until, count(a.id)::int AS attempts, max(a.status) AS status
           FROM deliveries d LEFT JOIN delivery_attempts a ON a.delivery_id = d.id
          GROUP BY d.id, d.created_at`,
      );
      await client.end();
      expect(rows).toEqual([{ state: 'delivered', lease_until: null, attempts: 1, status: 204 }]);
    } finally {
      await rx.close();
      await t.close();
    }
  });
});

// Several instances on one PostgreSQL; the embedded database is one instance by design.
describe.skipIf(!process.env.TEST_DATABASE_URL)('two instances on one PostgreSQL', () => {
  let one: TestApp;
  let two: TestApp;
  let rx: Receiver;
  const authKey = 'two-instances-receiver-key';

  beforeAll(async () => {
    const env = {
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_TIMEOUT_MS: '1000',
      WEBHOOK_RETRY_DELAYS_MS: '50,100',
      // Shared, so that either instance opens the keys the other stored.
      SECRETS_KEY: randomBytes(32).toString('base64'),
    };
    one = await startApp('postgres', env);
    two = await startApp('postgres', { ...env, DATABASE_URL: one.config.databaseUrl! });
    // Each notification fails its first attempt and succeeds on the second.
    rx = await startReceiver(authKey, (_r, res, count) => {
      res.writeHead(count === 1 ? 500 : 204).end();
    });
  });
  afterAll(async () => {
    await rx?.close();
    await two?.close();
    await one?.close();
  });

  it('send each attempt exactly once, and the delivery log shows every attempt', async () => {
    const ingest = await one.token(['ingest']);
    const { upsertAccount } = await ok(one, ingest, UpsertAccount, { subject: 'pair-user' });
    const accountId = upsertAccount.accountId;
    const token = await two.token(['notifications'], 'pair-user', 'pair-client');
    // Registered through the second instance, in effect for the first at once.
    await register(two, token, { url: rx.url, authKey, eventTypes: ['activity_created'] });

    const accessories = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        ok(one, ingest, AssociateAccessory, {
          accountId,
          deviceId: `pair-${i}`,
          name: `pair ${i}`,
        }).then((r) => r.associateAccessory.id),
      ),
    );
    const PER_ACCESSORY = 10;
    // Half of the accessories ingest through each instance, all at once.
    await Promise.all(
      accessories.map(async (accessoryId, i) => {
        const app = i % 2 === 0 ? one : two;
        for (let n = 0; n < PER_ACCESSORY; n++) {
          await ok(app, ingest, CreateActivity, {
            accessoryId,
            input: { createdAt: new Date(Date.now() - (PER_ACCESSORY - n) * 1000).toISOString() },
          });
        }
      }),
    );
    const total = accessories.length * PER_ACCESSORY;
    const ids = () => new Set(rx.receipts.map((r) => r.webhookId));
    await rx.waitFor(
      () => ids().size === total && [...ids()].every((id) => rx.byId(id).length >= 2),
      `two attempts of each of ${total} notifications`,
      30_000,
    );
    await sleep(500); // past every retry delay: a duplicate would have arrived by now
    expect(rx.receipts.every((r) => r.standard && r.vendor)).toBe(true);
    const counts = [...ids()].map((id) => rx.byId(id).length);
    expect(counts.filter((n) => n !== 2)).toEqual([]);
    expect(rx.receipts).toHaveLength(2 * total);

    // Both instances took part; each attempt was made (and logged) once.
    const { rows } = await one.app.services.db.pool.query<{
      instance_id: string;
      attempts: number;
    }>(
      `SELECT a.instance_id, count(*)::int AS attempts
         FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id
        WHERE d.account_id = $1 GROUP BY a.instance_id`,
      [accountId],
    );
    console.log(`attempts per instance: ${rows.map((r) => r.attempts).join(' + ')}`);
    expect(rows).toHaveLength(2);
    expect(rows.reduce((sum, r) => sum + r.attempts, 0)).toBe(2 * total);

    const nodes = [];
    let after: string | undefined;
    for (;;) {
      const res = await gql(one.url, token, NotificationDeliveries, {
        accountId,
        first: 50,
        after,
      });
      const page = res.data!.notificationDeliveries!;
      nodes.push(...page.edges.map((e) => e.node));
      if (!page.pageInfo.hasNextPage) break;
      after = page.pageInfo.endCursor!;
    }
    expect(nodes).toHaveLength(total);
    for (const node of nodes) {
      expect(node.status).toBe('delivered');
      expect(node.attempts.map((a) => [a.attempt, a.status])).toEqual([
        [1, 500],
        [2, 204],
      ]);
    }
  }, 60_000);
});

// A receiver's Retry-After is its registration's, not one instance's: the queue it holds back is
// held back in the database, so that another instance, or the next start, waits too.
describe.skipIf(!process.env.TEST_DATABASE_URL)('a paused receiver, on every instance', () => {
  it('holds its queue after the instance that was told shuts down: the next one waits', async () => {
    const env = {
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_TIMEOUT_MS: '2000',
      SECRETS_KEY: randomBytes(32).toString('base64'),
    };
    const authKey = 'paused-receiver-key';
    // Its first answer waits until the backlog is queued; each says "come back in 10 minutes".
    let backlogQueued = false;
    const rx = await startReceiver(authKey, async (_r, res) => {
      while (!backlogQueued) await sleep(20);
      res.writeHead(503, { 'retry-after': '600' }).end();
    });
    const first = await startApp('postgres', env);
    let second: TestApp | undefined;
    try {
      const ingest = await first.token(['ingest']);
      const { upsertAccount } = await ok(first, ingest, UpsertAccount, { subject: 'paused-user' });
      const token = await first.token(['notifications'], 'paused-user', 'paused-client');
      await register(first, token, { url: rx.url, authKey, eventTypes: ['activity_created'] });
      // A backlog of 100: ten cameras, ten activities each.
      const BACKLOG = 100;
      await Promise.all(
        Array.from({ length: 10 }, async (_, camera) => {
          const { associateAccessory } = await ok(first, ingest, AssociateAccessory, {
            accountId: upsertAccount.accountId,
            deviceId: `paused-${camera}`,
            name: `paused ${camera}`,
          });
          for (let n = 0; n < 10; n++) {
            await ok(first, ingest, CreateActivity, {
              accessoryId: associateAccessory.id,
              input: { createdAt: new Date(Date.now() - (10 - n) * 1000).toISOString() },
            });
          }
        }),
      );
      backlogQueued = true;
      await rx.waitFor(() => rx.receipts.length > 0, 'the first attempt');
      await sleep(300); // its answer handled
      await first.app.close();
      const told = rx.receipts.length;

      // The whole backlog waits for the pause, those the first instance held included.
      const pool = new pg.Pool({ connectionString: first.config.databaseUrl! });
      const { rows } = await pool.query<{ early: number; pending: number }>(
        `SELECT count(*) FILTER (WHERE next_attempt_at < now() + interval '590 seconds')::int AS early,
                count(*)::int AS pending
           FROM deliveries WHERE account_id = $1 AND state = 'pending'`,
        [upsertAccount.accountId],
      );
      await pool.end();
      expect(rows[0]).toEqual({ early: 0, pending: BACKLOG });

      second = await startApp('postgres', { ...env, DATABASE_URL: first.config.databaseUrl! });
      await sleep(2000);
      expect(rx.receipts.length).toBe(told);
    } finally {
      await rx.close();
      await second?.close();
      await first.close();
    }
  }, 60_000);
});
