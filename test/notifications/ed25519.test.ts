import { createPublicKey, verify } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyNotification } from '../../src/notifications/receiver.ts';
import { graphql } from '../generated/index.ts';
import { backends, startApp, type TestApp } from '../helpers/app.ts';
import { rest } from '../helpers/client.ts';
import { ok, seedAccessory } from '../helpers/fixtures.ts';
import {
  SendTestNotification,
  startReceiver,
  type Receipt,
  type Receiver,
  type ReceiverKeys,
} from './helpers.ts';

const Registration = graphql(`
  query Ed25519Registration($accountId: ID!) {
    notificationRegistration(accountId: $accountId) {
      signing
      publicKey
    }
  }
`);

const PATH = '/api/accounts/self/notifications';
const authKey = 'ed25519-legacy-key-0123456789';

/** The DER prefix of an ed25519 SubjectPublicKeyInfo, before the raw 32 bytes (RFC 8410). */
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/** Verifies a v1a signature as a receiver does with node:crypto alone and the published key. */
function verifiesWith(receipt: Receipt, publicKey: string, body = receipt.raw): boolean {
  const raw = Buffer.from(publicKey.slice('whpk_'.length), 'base64');
  const key = createPublicKey({
    key: Buffer.concat([SPKI_PREFIX, raw]),
    format: 'der',
    type: 'spki',
  });
  const content = Buffer.concat([
    Buffer.from(`${receipt.webhookId}.${String(receipt.headers['webhook-timestamp'])}.`),
    body,
  ]);
  return String(receipt.headers['webhook-signature'])
    .split(' ')
    .filter((s) => s.startsWith('v1a,'))
    .some((s) => verify(null, content, key, Buffer.from(s.slice(4), 'base64')));
}

const signatures = (receipt: Receipt) => String(receipt.headers['webhook-signature']).split(' ');

describe.each(backends)('ed25519 signing on %s', (backend) => {
  let t: TestApp;
  let receiver: Receiver;
  let token: string;
  let accountId: string;
  let keys: ReceiverKeys = { authKey };

  beforeAll(async () => {
    t = await startApp(backend, {
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_ALLOW_HTTP: 'true',
    });
    ({ accountId } = await seedAccessory(t, 'ed25519-user'));
    token = await t.token(['notifications'], 'ed25519-user');
    receiver = await startReceiver(() => keys);
  });
  afterAll(async () => {
    await receiver.close();
    await t.close();
  });

  const put = (signing?: unknown) =>
    rest(t.url, token, 'PUT', PATH, {
      url: receiver.url,
      authKey,
      eventTypes: ['activity_created'],
      ...(signing !== undefined && { signing }),
    });

  const sendTest = async () => {
    const { sendTestNotification } = await ok(t, token, SendTestNotification, { accountId });
    const id = sendTestNotification.webhookId;
    await receiver.waitFor(() => receiver.byId(id).length > 0, `test notification ${id}`);
    return receiver.byId(id)[0]!;
  };

  it('publishes a whpk_ key that verifies the v1a signatures; a tampered body fails', async () => {
    const registered = await put('ed25519');
    expect(registered.status, JSON.stringify(registered.body)).toBe(200);
    const { publicKey } = registered.body;
    expect(registered.body.signing).toBe('ed25519');
    expect(publicKey).toMatch(/^whpk_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(publicKey.slice(5), 'base64')).toHaveLength(32);
    keys = { authKey, publicKey };

    const receipt = await sendTest();
    expect(receipt.standard).toBe(true);
    expect(receipt.vendor).toBe(true); // X-Vendor-Verify stays the HMAC with the authKey
    expect(signatures(receipt)).toHaveLength(1);
    expect(signatures(receipt)[0]).toMatch(/^v1a,/);
    expect(verifiesWith(receipt, publicKey)).toBe(true);
    const tampered = Buffer.from(
      receipt.raw.toString().replace('"eventData":{}', '"eventData":{"x":1}'),
    );
    expect(tampered.equals(receipt.raw)).toBe(false);
    expect(verifiesWith(receipt, publicKey, tampered)).toBe(false);
    expect(verifyNotification(tampered, receipt.headers, publicKey).ok).toBe(false);
    // Neither the authKey nor another key pair verifies it.
    expect(verifyNotification(receipt.raw, receipt.headers, authKey).ok).toBe(false);

    // GraphQL shows the same; saving again as ed25519 keeps the pair.
    const { notificationRegistration } = await ok(t, token, Registration, { accountId });
    expect(notificationRegistration).toEqual({ signing: 'ed25519', publicKey });
    expect((await put('ed25519')).body.publicKey).toBe(publicKey);
  });

  it('rotates the key pair with both v1a signatures during the overlap', async () => {
    const before = keys.publicKey!;
    const rotated = await rest(t.url, token, 'POST', `${PATH}/rotate`, {
      authKey,
      overlapSeconds: 3600,
    });
    expect(rotated.status).toBe(200);
    const after = rotated.body.publicKey as string;
    expect(after).toMatch(/^whpk_/);
    expect(after).not.toBe(before);
    keys = { authKey, publicKey: after };

    const during = await sendTest();
    expect(signatures(during)).toHaveLength(2);
    expect(signatures(during).every((s) => s.startsWith('v1a,'))).toBe(true);
    expect(verifiesWith(during, after)).toBe(true);
    expect(verifiesWith(during, before)).toBe(true);

    await rest(t.url, token, 'POST', `${PATH}/retire-previous-key`, {});
    const retired = await sendTest();
    expect(signatures(retired)).toHaveLength(1);
    expect(verifiesWith(retired, after)).toBe(true);
    expect(verifiesWith(retired, before)).toBe(false);
  });

  it('goes back to v1 when registered as hmac-sha256, and refuses an unknown mode', async () => {
    const bad = await put('rsa');
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({
      code: 'INVALID_ARGUMENT',
      details: { field: 'signing' },
    });
    const hmac = await put();
    expect(hmac.body).toMatchObject({ signing: 'hmac-sha256', publicKey: null });
    keys = { authKey };
    const receipt = await sendTest();
    expect(receipt.standard).toBe(true);
    expect(signatures(receipt)).toEqual([expect.stringMatching(/^v1,/)]);
  });
});
