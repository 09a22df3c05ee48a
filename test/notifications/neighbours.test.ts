import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends, startApp, type TestApp } from '../helpers/app.ts';
import { ok, seedAccessory } from '../helpers/fixtures.ts';
import {
  register,
  SendTestNotification,
  sleep,
  startReceiver,
  type Receipt,
  type Receiver,
} from './helpers.ts';

const authKey = 'neighbours-key-0123456789';

/**
 * Two tenants whose endpoints share one receiver host (different paths on one loopback server,
 * as hooks of a chat or automation service do): what one endpoint asks for or queues must not
 * hold the other's notifications.
 */
describe.each(backends)('receivers on one host, apart, on %s', (backend) => {
  let t: TestApp;
  let receiver: Receiver;
  /** How the receiver answers Bob's endpoints; Alice's is answered 204 at once. */
  let answerBob: (res: ServerResponse) => void = (res) => void res.writeHead(204).end();
  const tenants: Record<string, { accountId: string; token: string }> = {};

  /** An account registered at `/hooks/<name>` of the receiver's host. */
  async function tenant(name: string): Promise<void> {
    const { accountId } = await seedAccessory(t, `${name}-neighbour`);
    const token = await t.token(['notifications'], `${name}-neighbour`);
    tenants[name] = { accountId, token };
    await register(t, token, {
      url: `${new URL(receiver.url).origin}/hooks/${name}`,
      authKey,
      eventTypes: ['activity_created'],
    });
  }

  beforeAll(async () => {
    t = await startApp(backend, {
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_RETRY_DELAYS_MS: '50,50',
    });
    receiver = await startReceiver(authKey, (receipt: Receipt, res) => {
      if (receipt.body.accountId === tenants.alice!.accountId) res.writeHead(204).end();
      else answerBob(res);
    });
    await tenant('alice');
  });
  afterAll(async () => {
    await receiver.close();
    await t.close();
  });

  const sendTest = async (name: string) => {
    const { accountId, token } = tenants[name]!;
    return (await ok(t, token, SendTestNotification, { accountId })).sendTestNotification;
  };

  it.each([
    [503, '600'],
    [429, '600'],
  ])(
    "a %i with Retry-After: %s from Bob's endpoint holds Bob's notifications, not Alice's",
    async (status, retryAfter) => {
      await tenant(`bob-${status}`);
      answerBob = (res) => void res.writeHead(status, { 'retry-after': retryAfter }).end('busy');
      const bob = await sendTest(`bob-${status}`);
      await receiver.waitFor(() => receiver.byId(bob.webhookId).length === 1, "Bob's attempt");
      const refusedAt = receiver.byId(bob.webhookId)[0]!.at;
      const bobAgain = await sendTest(`bob-${status}`);
      const alice = await sendTest('alice');

      // Before, the pause was the host's: Alice's came 10 minutes later.
      await receiver.waitFor(
        () => receiver.byId(alice.webhookId).length === 1,
        "Alice's notification",
        5000,
      );
      expect(receiver.byId(alice.webhookId)[0]!.at - refusedAt).toBeLessThan(3000);
      // Bob's own endpoint asked for the pause: his retry and his next notification wait.
      await sleep(300);
      expect(receiver.byId(bob.webhookId)).toHaveLength(1);
      expect(receiver.byId(bobAgain.webhookId)).toHaveLength(0);
    },
  );

  it("Alice's notification is not queued behind Bob's backlog to a slow endpoint of the host", async () => {
    // Bob's endpoint answers in 300 ms (a slow receiver: its slots only, no prefetch).
    await tenant('bob');
    answerBob = (res) => void setTimeout(() => res.writeHead(204).end(), 300);
    const { accountId } = tenants.bob!;
    const first = await sendTest('bob');
    await receiver.waitFor(() => receiver.byId(first.webhookId).length === 1, "Bob's first");
    // A backlog of 1,200 of Bob's notifications, due now (copies of the test delivery the
    // service queued for him, with its sealed key): 16 slots at 300 ms take over 20 s for it.
    const pool = t.app.services.db.pool;
    await pool.query(
      `INSERT INTO deliveries (kind, account_id, client_id, event_type, event_data, url, origin,
                               auth_key, next_attempt_at)
       SELECT kind, account_id, client_id, event_type, event_data, url, origin, auth_key, now()
         FROM deliveries, generate_series(1, 1200)
        WHERE id = $1 AND account_id = $2`,
      [first.id, accountId],
    );
    t.app.services.dispatcher.wake();
    await receiver.waitFor(
      () => receiver.receipts.filter((r) => r.body.accountId === accountId).length > 40,
      "Bob's backlog under way",
    );

    const queuedAt = Date.now();
    const alice = await sendTest('alice');
    await receiver.waitFor(
      () => receiver.byId(alice.webhookId).length === 1,
      "Alice's notification",
      10_000,
    );
    // One of Bob's slots frees within 300 ms, and the claim gives it to Alice's turn.
    expect(receiver.byId(alice.webhookId)[0]!.at - queuedAt).toBeLessThan(2000);
    const { rows } = await pool.query<{ pending: number }>(
      `SELECT count(*)::int AS pending FROM deliveries WHERE account_id = $1 AND state = 'pending'`,
      [accountId],
    );
    expect(rows[0]!.pending).toBeGreaterThan(800);
    await pool.query(
      `UPDATE deliveries SET state = 'dropped' WHERE account_id = $1 AND state = 'pending'`,
      [accountId],
    );
  });
});
