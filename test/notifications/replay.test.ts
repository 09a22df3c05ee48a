import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
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
