import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { verifyNotification } from '../../src/notifications/receiver.ts';
import {
  notificationHeaders,
  standardSignature,
  vendorSignature,
} from '../../src/notifications/signing.ts';

const authKey = 'k3y-ü';
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
    authKey: overrides.key ?? authKey,
    webhookId,
    timestamp: overrides.timestamp ?? timestamp,
    userAgent: 'clipgate-webhooks/0.1',
  });

const standardOnly = (all: Record<string, string>) =>
  Object.fromEntries(Object.entries(all).filter(([name]) => name !== 'X-Vendor-Verify'));
const vendorOnly = (all: Record<string, string>) => ({ 'X-Vendor-Verify': all['X-Vendor-Verify'] });
const verify = (rawBody: Buffer | string, hdrs: unknown, key = authKey, now = timestamp) =>
  verifyNotification(rawBody, hdrs, key, { now });

describe('signatures', () => {
  it('matches independently computed HMAC-SHA256 values', () => {
    const expectedVendor = hmac(body);
    const expectedStandard = `v1,${hmac(Buffer.concat([Buffer.from(`${webhookId}.${timestamp}.`), body]))}`;
    expect(vendorSignature(body, authKey)).toBe(expectedVendor);
    expect(vendorSignature(body.toString('utf8'), authKey)).toBe(expectedVendor);
    expect(standardSignature(webhookId, timestamp, body, authKey)).toBe(expectedStandard);
    expect(headers()).toEqual({
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
  it('accepts the Standard Webhooks scheme from a record, Fetch Headers and Node headers', () => {
    const all = headers();
    const lowercased = Object.fromEntries(
      Object.entries(all).map(([k, v]) => [k.toLowerCase(), v]),
    );
    for (const hdrs of [all, standardOnly(all), new Headers(all), lowercased]) {
      expect(verify(body, hdrs)).toEqual({ ok: true, scheme: 'standard' });
    }
    expect(verify(body.toString('utf8'), all)).toEqual({ ok: true, scheme: 'standard' });
  });

  it('accepts X-Vendor-Verify when the Standard Webhooks headers are absent', () => {
    expect(verify(body, vendorOnly(headers()))).toEqual({ ok: true, scheme: 'vendor' });
    expect(verify(body, { 'x-vendor-verify': headers()['X-Vendor-Verify'] })).toEqual({
      ok: true,
      scheme: 'vendor',
    });
  });

  it('rejects a tampered body and a wrong key in both schemes', () => {
    const tampered = Buffer.from(body.toString('utf8').replace('motion', 'motiom'));
    for (const pick of [standardOnly, vendorOnly]) {
      expect(verify(tampered, pick(headers()))).toEqual({
        ok: false,
        reason: 'no matching signature',
      });
      expect(verify(body, pick(headers()), 'other-key')).toEqual({
        ok: false,
        reason: 'no matching signature',
      });
    }
  });

  it('enforces the timestamp tolerance both ways', () => {
    expect(verify(body, headers(), authKey, timestamp + 300).ok).toBe(true);
    expect(verify(body, headers(), authKey, timestamp - 300).ok).toBe(true);
    const outside = { ok: false, reason: 'webhook-timestamp outside tolerance' };
    expect(verify(body, headers(), authKey, timestamp + 301)).toEqual(outside);
    expect(verify(body, headers(), authKey, timestamp - 301)).toEqual(outside);
    expect(
      verifyNotification(body, headers(), authKey, { now: timestamp + 50, toleranceSeconds: 10 }),
    ).toEqual(outside);
    // The real clock is used when `now` is not given.
    expect(verifyNotification(body, headers(), authKey)).toEqual(outside);
    const current = Math.floor(Date.now() / 1000);
    expect(verifyNotification(body, headers({ timestamp: current }), authKey).ok).toBe(true);
  });

  it('rejects missing, incomplete and malformed headers', () => {
    const all = headers();
    expect(verify(body, {})).toEqual({ ok: false, reason: 'missing signature headers' });
    expect(verify(body, undefined)).toEqual({ ok: false, reason: 'missing signature headers' });
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

  it('accepts when one of several space-separated signatures matches', () => {
    const all = headers();
    const good = all['webhook-signature'] ?? '';
    const other = standardSignature(webhookId, timestamp, body, 'rotated-key');
    for (const list of [`${other} ${good}`, `v2,abc ${good}`, `${good} ${other}`]) {
      expect(verify(body, { ...all, 'webhook-signature': list })).toEqual({
        ok: true,
        scheme: 'standard',
      });
    }
    expect(verify(body, { ...all, 'webhook-signature': `${other} v1,AAAA` }).ok).toBe(false);
  });
});
