import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/clock.ts';
import { webhookSecret } from '../../examples/standardwebhooks-receiver.ts';
import { graphql } from '../generated/index.ts';
import { backends, startApp, type TestApp } from '../helpers/app.ts';
import { gql, rest } from '../helpers/client.ts';
import { ok, seedAccessory } from '../helpers/fixtures.ts';
import {
  register,
  SendTestNotification,
  startReceiver,
  type Receipt,
  type Receiver,
} from './helpers.ts';

const RotateNotificationKey = graphql(`
  mutation RotateNotificationKey($accountId: ID!, $authKey: String, $overlapSeconds: Int) {
    rotateNotificationKey(
      accountId: $accountId
      authKey: $authKey
      overlapSeconds: $overlapSeconds
    ) {
      authKey
      registration {
        previousKeyUntil
      }
    }
  }
`);

const RetirePreviousNotificationKey = graphql(`
  mutation RetirePreviousNotificationKey($accountId: ID!) {
    retirePreviousNotificationKey(accountId: $accountId) {
      previousKeyUntil
    }
  }
`);

const ROTATE = '/api/accounts/self/notifications/rotate';
const oldKey = 'rotation-old-key-0123456789';
const newKey = 'rotation-new-key-0123456789';

/** Whether the standardwebhooks library accepts the receipt with `authKey`. */
function verifies(receipt: Receipt, authKey: string): boolean {
  try {
    new Webhook(webhookSecret(authKey)).verify(
      receipt.raw,
      receipt.headers as Record<string, string>,
    );
    return true;
  } catch {
    return false;
  }
}

const signatures = (receipt: Receipt) => String(receipt.headers['webhook-signature']).split(' ');

/** The app's clock, which the test moves past the end of an overlap. */
class MovableClock implements Clock {
  offsetMs = 0;
  now = () => new Date(Date.now() + this.offsetMs);
}

describe.each(backends)('key rotation on %s', (backend) => {
  let t: TestApp;
  let receiver: Receiver;
  let token: string;
  let accountId: string;
  const clock = new MovableClock();
  let receiverKey = newKey;

  beforeAll(async () => {
    t = await startApp(
      backend,
      {
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        WEBHOOK_ALLOW_HTTP: 'true',
        WEBHOOK_RETRY_DELAYS_MS: '200,200,200',
      },
      () => {},
      { clock },
    );
    ({ accountId } = await seedAccessory(t, 'rotation-user'));
    token = await t.token(['notifications'], 'rotation-user');
  });
  afterAll(async () => {
    await receiver?.close();
    await t.close();
  });

  const sendTest = async () => {
    const { sendTestNotification } = await ok(t, token, SendTestNotification, { accountId });
    await receiver.waitFor(
      () => receiver.byId(sendTestNotification.webhookId).some((r) => r.standard),
      `test notification ${sendTestNotification.webhookId} accepted`,
    );
    return receiver.byId(sendTestNotification.webhookId).find((r) => r.standard)!;
  };

  it('signs every attempt with both keys during the overlap, a retry queued before included, and only the new one after', async () => {
    // The receiver has the new key already: what the old one alone signs is answered 401.
    receiver = await startReceiver(() => receiverKey);
    await register(t, token, {
      url: receiver.url,
      authKey: oldKey,
      eventTypes: ['activity_created'],
    });
    const { sendTestNotification } = await ok(t, token, SendTestNotification, { accountId });
    const id = sendTestNotification.webhookId;
    await receiver.waitFor(() => receiver.byId(id).length >= 1, 'the first attempt');
    const [first] = receiver.byId(id);
    expect(verifies(first!, oldKey)).toBe(true);
    expect(verifies(first!, newKey)).toBe(false);

    const before = Date.now();
    const rotated = await rest(t.url, token, 'POST', ROTATE, {
      authKey: newKey,
      overlapSeconds: 3600,
    });
    expect(rotated.status).toBe(200);
    expect(rotated.body.authKey).toBeUndefined();
    const until = Date.parse(rotated.body.previousKeyUntil);
    expect(until).toBeGreaterThanOrEqual(before + 3_600_000 - 1000);

    // The retry of the delivery queued before the rotation is signed when it is sent: both keys.
    await receiver.waitFor(() => receiver.byId(id).some((r) => r.standard), 'the retry accepted');
    const retry = receiver.byId(id).find((r) => r.standard)!;
    expect(signatures(retry)).toHaveLength(2);
    expect(verifies(retry, oldKey)).toBe(true);
    expect(verifies(retry, newKey)).toBe(true);
    // New first; X-Vendor-Verify (checked by the receiver) with the new key.
    const newFirst = { ...retry.headers, 'webhook-signature': signatures(retry)[0] };
    expect(verifies({ ...retry, headers: newFirst }, newKey)).toBe(true);
    expect(retry.vendor).toBe(true);

    const during = await sendTest();
    expect(verifies(during, oldKey)).toBe(true);
    expect(verifies(during, newKey)).toBe(true);

    // After the overlap: only the new key.
    clock.offsetMs = until - Date.now() + 1000;
    const after = await sendTest();
    expect(signatures(after)).toHaveLength(1);
    expect(verifies(after, oldKey)).toBe(false);
    expect(verifies(after, newKey)).toBe(true);
    const registration = await rest(t.url, token, 'GET', '/api/accounts/self/notifications');
    expect(registration.body.previousKeyUntil).toBeNull();
    clock.offsetMs = 0;
  });

  it('generates a key over GraphQL, retires the previous one early, and switches at once with overlap 0', async () => {
    const { rotateNotificationKey } = await ok(t, token, RotateNotificationKey, { accountId });
    const generated = rotateNotificationKey.authKey!;
    expect(generated).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Date.parse(rotateNotificationKey.registration.previousKeyUntil!)).toBeGreaterThan(
      Date.now() + 86_400_000 - 60_000,
    );
    receiverKey = generated;
    const during = await sendTest();
    expect(verifies(during, generated)).toBe(true);
    expect(verifies(during, newKey)).toBe(true);

    const { retirePreviousNotificationKey } = await ok(t, token, RetirePreviousNotificationKey, {
      accountId,
    });
    expect(retirePreviousNotificationKey.previousKeyUntil).toBeNull();
    const retired = await sendTest();
    expect(signatures(retired)).toHaveLength(1);
    expect(verifies(retired, generated)).toBe(true);
    expect(verifies(retired, newKey)).toBe(false);

    const thirdKey = 'rotation-third-key-0123456789';
    const atOnce = await rest(t.url, token, 'POST', ROTATE, {
      authKey: thirdKey,
      overlapSeconds: 0,
    });
    expect(atOnce.status).toBe(200);
    expect(atOnce.body.previousKeyUntil).toBeNull();
    receiverKey = thirdKey;
    const switched = await sendTest();
    expect(signatures(switched)).toHaveLength(1);
    expect(verifies(switched, thirdKey)).toBe(true);
    expect(verifies(switched, generated)).toBe(false);
  });

  it.each([
    ['overlapSeconds', { overlapSeconds: -1 }],
    ['overlapSeconds', { overlapSeconds: 1.5 }],
    ['overlapSeconds', { overlapSeconds: '60' }],
    ['overlapSeconds', { overlapSeconds: 31 * 86_400 }],
    ['authKey', { authKey: 'short' }],
    ['authKey', { authKey: 42 }],
    ['colour', { colour: 'blue' }],
  ])('400 naming %s for %j', async (field, body) => {
    const res = await rest(t.url, token, 'POST', ROTATE, body);
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'INVALID_ARGUMENT', details: { field } });
  });

  it('refuses a bad overlap over GraphQL, and answers 404 without a registration', async () => {
    const bad = await gql(t.url, token, RotateNotificationKey, { accountId, overlapSeconds: -5 });
    expect(bad.errors?.[0]?.extensions).toMatchObject({ details: { field: 'overlapSeconds' } });
    await seedAccessory(t, 'rotation-nobody', 'camera-2');
    const nobody = await t.token(['notifications'], 'rotation-nobody');
    expect((await rest(t.url, nobody, 'POST', ROTATE, {})).status).toBe(404);
    expect(
      (
        await rest(
          t.url,
          nobody,
          'POST',
          '/api/accounts/self/notifications/retire-previous-key',
          {},
        )
      ).status,
    ).toBe(404);
  });
});
