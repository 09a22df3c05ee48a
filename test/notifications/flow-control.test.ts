import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends, startApp, type TestApp } from '../helpers/app.ts';
import { ok, seedAccessory } from '../helpers/fixtures.ts';
import {
  NotificationDeliveries,
  register,
  SendTestNotification,
  startReceiver,
  type Receiver,
} from './helpers.ts';

const authKey = 'flow-control-key-0123456789';

describe.each(backends)('a receiver that says "slow down" on %s', (backend) => {
  let t: TestApp;
  let receiver: Receiver;
  let token: string;
  let accountId: string;
  /** The answer to the next first attempt: status and Retry-After. */
  let slowDown: { status: number; retryAfter?: string } | undefined;

  beforeAll(async () => {
    t = await startApp(backend, {
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_RETRY_DELAYS_MS: '50,50',
    });
    ({ accountId } = await seedAccessory(t, 'flow-user'));
    token = await t.token(['notifications'], 'flow-user');
    receiver = await startReceiver(authKey, (_receipt, res, count) => {
      const answer = count === 1 ? slowDown : undefined;
      if (!answer) return void res.writeHead(204).end();
      slowDown = undefined;
      res
        .writeHead(answer.status, answer.retryAfter ? { 'retry-after': answer.retryAfter } : {})
        .end('busy');
    });
    await register(t, token, { url: receiver.url, authKey, eventTypes: ['activity_created'] });
  });
  afterAll(async () => {
    await receiver.close();
    await t.close();
  });

  const sendTest = async () =>
    (await ok(t, token, SendTestNotification, { accountId })).sendTestNotification;

  it.each([
    [429, 'seconds', '2'],
    [503, 'an HTTP date', ''],
  ])(
    "honours a %i with Retry-After in %s: its retry and the registration's other notifications wait",
    async (status, _form, seconds) => {
      // An HTTP date 3 s ahead (whole seconds: at least 2 s from now).
      const retryAfter = seconds || new Date(Date.now() + 3000).toUTCString();
      slowDown = { status, retryAfter };
      const first = await sendTest();
      await receiver.waitFor(
        () => receiver.byId(first.webhookId).length === 1,
        'the first attempt',
      );
      const refusedAt = receiver.byId(first.webhookId)[0]!.at;
      const other = await sendTest();

      await receiver.waitFor(
        () =>
          receiver.byId(first.webhookId).length === 2 &&
          receiver.byId(other.webhookId).length === 1,
        'the retry and the other notification',
      );
      // Without flow control both would have come within ~50 ms.
      expect(receiver.byId(first.webhookId)[1]!.at - refusedAt).toBeGreaterThanOrEqual(1800);
      expect(receiver.byId(other.webhookId)[0]!.at - refusedAt).toBeGreaterThanOrEqual(1800);

      const log = await ok(t, token, NotificationDeliveries, { accountId, first: 5 });
      const delivery = log.notificationDeliveries!.edges.find((e) => e.node.id === first.id)!.node;
      expect(delivery.attempts[0]).toMatchObject({ status, response: 'busy' });
      expect(delivery.attempts[0]!.errorMessage).toMatch(
        new RegExp(
          `^slow down: HTTP ${status} with Retry-After: .+; this registration gets nothing for \\d s$`,
        ),
      );
    },
  );

  it('retries a 500 with a Retry-After on its own schedule, without holding the registration', async () => {
    slowDown = { status: 500, retryAfter: '30' };
    const first = await sendTest();
    await receiver.waitFor(() => receiver.byId(first.webhookId).length === 2, 'the retry', 5000);
    const [refused, retried] = receiver.byId(first.webhookId);
    expect(retried!.at - refused!.at).toBeLessThan(1500);
    const log = await ok(t, token, NotificationDeliveries, { accountId, first: 1 });
    expect(log.notificationDeliveries!.edges[0]!.node.attempts[0]!.errorMessage).toBeNull();
  });
});
