import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends, startApp, type TestApp } from '../helpers/app.ts';
import { gql, rest } from '../helpers/client.ts';
import { CreateActivity, ok, seedAccessory, seedActivities } from '../helpers/fixtures.ts';
import { register, startReceiver, type Receiver } from '../notifications/helpers.ts';
import { graphql } from '../generated/index.ts';

const SendTest = graphql(`
  mutation PoisonSendTest($accountId: ID!) {
    sendTestNotification(accountId: $accountId) {
      webhookId
    }
  }
`);

/**
 * Statements that fail in the database, as a bug or an input the checks let through would:
 * at parameter binding (a value out of its type's range), at execution, on a missing relation.
 */
const FAILING: [string, unknown[]][] = [
  ['SELECT $1::bigint', ['9999999999999999999']],
  ['SELECT 1 / $1::int', [0]],
  ['SELECT * FROM no_such_table WHERE id = $1', [1]],
];

describe.each(backends)('a failed statement on %s', (backend) => {
  let t: TestApp;
  let receiver: Receiver;
  let alice: { ingest: string; accountId: string; accessoryId: string; reader: string };
  beforeAll(async () => {
    t = await startApp(backend, {
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    });
    const seeded = await seedAccessory(t, 'alice', 'alice-cam');
    await seedActivities(t, seeded.ingest, seeded.accessoryId, 3);
    const reader = await t.token(['activities_basic', 'notifications'], 'alice', 'alice-app');
    alice = { ...seeded, reader };
    receiver = await startReceiver('alice-receiver-key-0123');
    await register(t, reader, {
      url: receiver.url,
      authKey: 'alice-receiver-key-0123',
      eventTypes: ['activity_created'],
    });
  });
  afterAll(async () => {
    await receiver?.close();
    await t?.close();
  });

  /** Alice's reads, writes and deliveries, each of which must succeed. */
  async function aliceGoesOn(round: number) {
    const page = await rest(
      t.url,
      alice.reader,
      'POST',
      `/api/accessories/${alice.accessoryId}/activities`,
      { limit: 2 },
    );
    expect(page.status, JSON.stringify(page.body)).toBe(200);
    expect(page.body.activities).toHaveLength(2);
    const { createActivity } = await ok(t, alice.ingest, CreateActivity, {
      accessoryId: alice.accessoryId,
      input: { relevanceLevel: round },
    });
    await receiver.waitFor(
      () =>
        receiver.receipts.some((r) => r.body?.eventData?.activityId === createActivity.activityId),
      `activity_created of ${createActivity.activityId}`,
    );
    const sent = await gql(t.url, alice.reader, SendTest, { accountId: alice.accountId });
    expect(sent.errors).toBeUndefined();
    const webhookId = sent.data!.sendTestNotification.webhookId;
    await receiver.waitFor(() => receiver.byId(webhookId).length > 0, `test ${webhookId}`);
  }

  it("leaves every other tenant's reads, writes and deliveries going on", async () => {
    await aliceGoesOn(0);
    const { pool, readPool } = t.app.services.db;
    for (const [i, [sql, params]] of FAILING.entries()) {
      for (const p of new Set([pool, readPool])) {
        await expect(p.query(sql, params)).rejects.toThrow();
      }
      await aliceGoesOn(i + 1);
    }
  });
});
