/**
 * Verification of clipgate webhook notifications, for receivers (exported as `clipgate/receiver`).
 * Depends on nothing in the service but the signing functions.
 */
import { timingSafeEqual } from 'node:crypto';
import { standardSignature, vendorSignature } from './signing.ts';

export interface VerifyOptions {
  /** How far `webhook-timestamp` may be from now, either way. Default 300. */
  toleranceSeconds?: number;
  /** The current time in unix seconds, for tests. */
  now?: number;
}

export type VerifyResult =
  { ok: true; scheme: 'standard' | 'vendor' } | { ok: false; reason: string };

/** A header of a Node IncomingHttpHeaders, a Fetch Headers or a plain record, by lowercase name. */
function headerValue(headers: unknown, name: string): string | undefined {
  if (typeof headers !== 'object' || headers === null) return undefined;
  const value: unknown =
    'get' in headers && typeof headers.get === 'function'
      ? headers.get(name)
      : Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
  if (Array.isArray(value)) return value.join(' ');
  return typeof value === 'string' ? value : undefined;
}

function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * Verifies a notification as a receiver does, in constant time. Uses the Standard Webhooks headers
 * (any of the space-separated v1 signatures, timestamp within tolerance) or, when all of those
 * are absent, X-Vendor-Verify. `rawBody` must be the exact bytes received.
 */
export function verifyNotification(
  rawBody: Uint8Array | string,
  headers: unknown,
  authKey: string,
  options: VerifyOptions = {},
): VerifyResult {
  const id = headerValue(headers, 'webhook-id');
  const timestamp = headerValue(headers, 'webhook-timestamp');
  const signatures = headerValue(headers, 'webhook-signature');

  if (id === undefined && timestamp === undefined && signatures === undefined) {
    const vendor = headerValue(headers, 'x-vendor-verify');
    if (vendor === undefined) return { ok: false, reason: 'missing signature headers' };
    return safeEqual(vendor, vendorSignature(rawBody, authKey))
      ? { ok: true, scheme: 'vendor' }
      : { ok: false, reason: 'no matching signature' };
  }

  if (id === undefined || timestamp === undefined || signatures === undefined) {
    return { ok: false, reason: 'incomplete Standard Webhooks headers' };
  }
  if (!/^\d+$/.test(timestamp)) return { ok: false, reason: 'malformed webhook-timestamp' };
  const seconds = Number(timestamp);
  const now = options.now ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - seconds) > (options.toleranceSeconds ?? 300)) {
    return { ok: false, reason: 'webhook-timestamp outside tolerance' };
  }
  const expected = standardSignature(id, seconds, rawBody, authKey);
  return signatures.split(' ').some((candidate) => safeEqual(candidate, expected))
    ? { ok: true, scheme: 'standard' }
    : { ok: false, reason: 'no matching signature' };
}
