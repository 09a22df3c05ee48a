import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { verifyNotification } from '../../src/notifications/receiver.ts';
import {
  notificationHeaders,
  standardSignature,
  vendorSignature,
} from '../../src/notifications/signing.ts';

const authKey = 'k3y-ü-0123456789abcdef';
const webhookId = 'evt_01J9Z8';
const timestamp = 1_700_000_000;
const body = Buffer.from(
  JSON.stringify({
    accountId: 'acc_1',
    eventType: 'motion',
    eventData: { zone: 'Eingang ü' },
    userData: null,
  }),
);

const hmac = (data: string | Buffer, key = authKey) =>
  createHmac('sha256', Buffer.from(key, 'utf8')).update(data).digest('base64');

const headers = (overrides: { body?: Buffer; key?: string; timestamp?: number } = {}) =>
  notificationHeaders({
    body: overrides.body ?? body,
    keys: { authKey: overrides.key ?? authKey },
    webhookId,
    timestamp: overrides.timestamp ?? timestamp,
    userAgent: 'clipgate-webhooks/0.1',
  });

const standardOnly = (all: Record<string, string>) =>
  Object.fromEntries(Object.entries(all).filter(([name]) => name !== 'X-Vendor-Verify'));
const vendorOnly = (all: Record<string, string>) => ({ 'X-Vendor-Verify': all['X-Vendor-Verify'] });
const verify = (rawBody: Buffer | string, hdrs: unknown, key = authKey, now = timestamp) =>
  verifyNotification(rawBody, hdrs, key, { now });
/** With the opt-in for X-Vendor-Verify alone. */
const verifyLegacy = (rawBody: Buffer | string, hdrs: unknown, key = authKey, now = timestamp) =>
  verifyNotification(rawBody, hdrs, key, { now, allowLegacyVendorHeader: true });
const standard = { ok: true, scheme: 'standard', webhookId, timestamp };

describe('signatures', () => {
  it('matches independently computed HMAC-SHA256 values', async () => {
    const expectedVendor = hmac(body);
    const expectedStandard = `v1,${hmac(Buffer.concat([Buffer.from(`${webhookId}.${timestamp}.`), body]))}`;
    expect(vendorSignature(body, authKey)).toBe(expectedVendor);
    expect(vendorSignature(body.toString('utf8'), authKey)).toBe(expectedVendor);
    expect(standardSignature(webhookId, timestamp, body, authKey)).toBe(expectedStandard);
    expect(await headers()).toEqual({
      'Content-Type': 'application/json',
      'Content-Length': String(body.byteLength),
      'User-Agent': 'clipgate-webhooks/0.1',
      'X-Vendor-Verify': expectedVendor,
      'webhook-id': webhookId,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': expectedStandard,
    });
  });
});

describe('verifyNotification', () => {
  it('accepts the Standard Webhooks scheme from a record, Fetch Headers and Node headers', async () => {
    const all = await headers();
    const lowercased = Object.fromEntries(
      Object.entries(all).map(([k, v]) => [k.toLowerCase(), v]),
    );
    for (const hdrs of [all, standardOnly(all), new Headers(all), lowercased]) {
      expect(verify(body, hdrs)).toEqual(standard);
      expect(verifyLegacy(body, hdrs)).toEqual(standard);
    }
    expect(verify(body.toString('utf8'), all)).toEqual(standard);
  });

  it('refuses X-Vendor-Verify alone by default: a replay of a notification a year old', async () => {
    // Captured a year ago, replayed with the webhook-* headers stripped.
    const captured = vendorOnly(await headers({ timestamp: timestamp - 365 * 86_400 }));
    const refused = { ok: false, reason: 'missing Standard Webhooks headers' };
    expect(verify(body, captured)).toEqual(refused);
    expect(verifyNotification(body, captured, authKey)).toEqual(refused);
    expect(verify(body, { 'x-vendor-verify': captured['X-Vendor-Verify'] })).toEqual(refused);
    // With the webhook-* headers kept, the timestamp gives it away.
    expect(verify(body, await headers({ timestamp: timestamp - 365 * 86_400 }))).toEqual({
      ok: false,
      reason: 'webhook-timestamp outside tolerance',
    });
  });

  it('accepts X-Vendor-Verify alone only with allowLegacyVendorHeader', async () => {
    expect(verifyLegacy(body, vendorOnly(await headers()))).toEqual({ ok: true, scheme: 'vendor' });
    expect(verifyLegacy(body, { 'x-vendor-verify': (await headers())['X-Vendor-Verify'] })).toEqual(
      {
        ok: true,
        scheme: 'vendor',
      },
    );
    // Never in place of a Standard Webhooks header that is there: those are checked.
    const all = await headers();
    expect(verifyLegacy(body, { ...all, 'webhook-signature': undefined })).toEqual({
      ok: false,
      reason: 'incomplete Standard Webhooks headers',
    });
    expect(verifyLegacy(body, all, authKey, timestamp + 301)).toEqual({
      ok: false,
      reason: 'webhook-timestamp outside tolerance',
    });
  });

  it('refuses a tolerance that would turn the timestamp check off', async () => {
    const all = await headers();
    for (const toleranceSeconds of [Number.NaN, Infinity, -1]) {
      expect(() => verifyNotification(body, all, authKey, { toleranceSeconds })).toThrow(
        RangeError,
      );
    }
    expect(verifyNotification(body, all, authKey, { now: timestamp, toleranceSeconds: 0 })).toEqual(
      standard,
    );
  });

  it('refuses to verify with an empty, short or missing key, which any forger can sign with', async () => {
    for (const key of ['', 'short-key-ü', 'a'.repeat(15)]) {
      const forged = await headers({ key });
      expect(() => verifyNotification(body, forged, key, { now: timestamp })).toThrow(
        new TypeError(
          `verifyNotification: authKey must be the registration's authKey or publicKey, at least 16 characters; it is ${[...key].length} characters (is the receiver's key variable set?)`,
        ),
      );
      expect(() => verifyLegacy(body, vendorOnly(forged), key)).toThrow(TypeError);
    }
    // An unset variable in a receiver without type checks.
    const unset = process.env.CLIPGATE_RECEIVER_KEY_THAT_IS_NOT_SET as string;
    const signed = standardOnly(await headers());
    expect(() => verifyNotification(body, signed, unset)).toThrow(
      /it is undefined \(is the receiver's key variable set\?\)/,
    );
    // The shortest key a registration takes still verifies.
    const shortest = 'a'.repeat(16);
    expect(verify(body, standardOnly(await headers({ key: shortest })), shortest)).toEqual(
      standard,
    );
  });

  it('rejects a tampered body and a wrong key in both schemes', async () => {
    const tampered = Buffer.from(body.toString('utf8').replace('motion', 'motiom'));
    for (const pick of [standardOnly, vendorOnly]) {
      expect(verifyLegacy(tampered, pick(await headers()))).toEqual({
        ok: false,
        reason: 'no matching signature',
      });
      expect(verifyLegacy(body, pick(await headers()), 'other-key-0123456789')).toEqual({
        ok: false,
        reason: 'no matching signature',
      });
    }
  });

  it('enforces the timestamp tolerance both ways', async () => {
    expect(verify(body, await headers(), authKey, timestamp + 300).ok).toBe(true);
    expect(verify(body, await headers(), authKey, timestamp - 300).ok).toBe(true);
    const outside = { ok: false, reason: 'webhook-timestamp outside tolerance' };
    expect(verify(body, await headers(), authKey, timestamp + 301)).toEqual(outside);
    expect(verify(body, await headers(), authKey, timestamp - 301)).toEqual(outside);
    expect(
      verifyNotification(body, await headers(), authKey, {
        now: timestamp + 50,
        toleranceSeconds: 10,
      }),
    ).toEqual(outside);
    // The real clock is used when `now` is not given.
    expect(verifyNotification(body, await headers(), authKey)).toEqual(outside);
    const current = Math.floor(Date.now() / 1000);
    expect(verifyNotification(body, await headers({ timestamp: current }), authKey).ok).toBe(true);
  });

  it('rejects missing, incomplete and malformed headers', async () => {
    const all = await headers();
    const missing = { ok: false, reason: 'missing Standard Webhooks headers' };
    expect(verify(body, {})).toEqual(missing);
    expect(verify(body, undefined)).toEqual(missing);
    expect(verifyLegacy(body, {})).toEqual({ ok: false, reason: 'missing signature headers' });
    expect(verify(body, { ...all, 'webhook-id': undefined })).toEqual({
      ok: false,
      reason: 'incomplete Standard Webhooks headers',
    });
    expect(verify(body, { ...all, 'webhook-timestamp': '17e8' })).toEqual({
      ok: false,
      reason: 'malformed webhook-timestamp',
    });
    const signature = all['webhook-signature'] ?? '';
    for (const malformed of [
      '',
      'garbage',
      signature.slice(3),
      `v2,${signature.slice(3)}`,
      `${signature}=`,
    ]) {
      expect(verify(body, { ...all, 'webhook-signature': malformed })).toEqual({
        ok: false,
        reason: 'no matching signature',
      });
    }
  });

  it('accepts when one of several space-separated signatures matches', async () => {
    const all = await headers();
    const good = all['webhook-signature'] ?? '';
    const other = standardSignature(webhookId, timestamp, body, 'rotated-key');
    for (const list of [`${other} ${good}`, `v2,abc ${good}`, `${good} ${other}`]) {
      expect(verify(body, { ...all, 'webhook-signature': list })).toEqual(standard);
    }
    expect(verify(body, { ...all, 'webhook-signature': `${other} v1,AAAA` }).ok).toBe(false);
  });
});
