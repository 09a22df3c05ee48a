/**
 * Verification of clipgate webhook notifications, for receivers (exported as `clipgate/receiver`).
 * Depends on nothing in the service but the signing functions (signing.ts, with its cache).
 */
import { timingSafeEqual } from 'node:crypto';
import {
  AUTH_KEY_MIN,
  PUBLIC_KEY_PREFIX,
  standardSignature,
  vendorSignature,
  verifyAsymmetric,
} from './signing.ts';

export interface VerifyOptions {
  /** How far `webhook-timestamp` may be from now, either way, in seconds (finite). Default 300. */
  toleranceSeconds?: number;
  /** The current time in unix seconds, for tests. */
  now?: number;
  /**
   * Opt-in for receivers that cannot read the Standard Webhooks headers yet: also accept
   * `X-Vendor-Verify` alone, the legacy signature of the body only, when the three `webhook-*`
   * headers are all absent. That signature has no timestamp and no id: a notification captured
   * once verifies again forever (a replay), and repeats cannot be told apart. Default false.
   */
  allowLegacyVendorHeader?: boolean;
}

/** A notification verified by its Standard Webhooks headers. */
export interface StandardVerdict {
  ok: true;
  scheme: 'standard';
  /** `webhook-id`: the same on every attempt of one notification; drop the repeats. */
  webhookId: string;
  /** `webhook-timestamp`: this attempt's time, unix seconds. */
  timestamp: number;
}

export type VerifyResult =
  StandardVerdict | { ok: true; scheme: 'vendor' } | { ok: false; reason: string };

/** A header of a Node IncomingHttpHeaders, a Fetch Headers or a plain record, by lowercase name. */
function headerValue(headers: unknown, name: string): string | undefined {
  if (typeof headers !== 'object' || headers === null) return undefined;
  const record = headers as Record<string, unknown>;
  const value: unknown =
    'get' in headers && typeof headers.get === 'function'
      ? headers.get(name)
      : // Node's headers are keyed in lowercase already; a plain record may not be.
        Object.hasOwn(record, name)
        ? record[name]
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
 * Verifies a notification as a receiver does: the Standard Webhooks headers (any of the
 * space-separated signatures, the timestamp within tolerance). `authKey` is the registration's
 * authKey (v1 signatures, compared in constant time) or, for an ed25519 registration, its
 * publicKey (`whpk_...`: v1a signatures). `rawBody` must be the exact bytes received.
 * X-Vendor-Verify alone is taken only with `allowLegacyVendorHeader`, and only with an authKey.
 * A key that is no string or shorter than an authKey can be (an unset variable, an empty one)
 * throws a TypeError: any signature made with it would otherwise verify.
 */
export function verifyNotification(
  rawBody: Uint8Array | string,
  headers: unknown,
  authKey: string,
  options?: VerifyOptions & { allowLegacyVendorHeader?: false },
): StandardVerdict | { ok: false; reason: string };
export function verifyNotification(
  rawBody: Uint8Array | string,
  headers: unknown,
  authKey: string,
  options: VerifyOptions,
): VerifyResult;
export function verifyNotification(
  rawBody: Uint8Array | string,
  headers: unknown,
  authKey: string,
  options: VerifyOptions = {},
): VerifyResult {
  const keyLength = typeof authKey === 'string' ? [...authKey].length : undefined;
  if (keyLength === undefined || keyLength < AUTH_KEY_MIN) {
    throw new TypeError(
      `verifyNotification: authKey must be the registration's authKey or publicKey, at least ${AUTH_KEY_MIN} characters; it is ${keyLength === undefined ? typeof authKey : `${keyLength} characters`} (is the receiver's key variable set?)`,
    );
  }
  const tolerance = options.toleranceSeconds ?? 300;
  // NaN or Infinity would turn the replay check off without a word.
  if (!Number.isFinite(tolerance) || tolerance < 0) {
    throw new RangeError('toleranceSeconds must be a finite number of seconds, 0 or more');
  }
  const id = headerValue(headers, 'webhook-id');
  const timestamp = headerValue(headers, 'webhook-timestamp');
  const signatures = headerValue(headers, 'webhook-signature');

  if (id === undefined && timestamp === undefined && signatures === undefined) {
    if (!options.allowLegacyVendorHeader) {
      return { ok: false, reason: 'missing Standard Webhooks headers' };
    }
    const vendor = headerValue(headers, 'x-vendor-verify');
    if (vendor === undefined) return { ok: false, reason: 'missing signature headers' };
    if (authKey.startsWith(PUBLIC_KEY_PREFIX)) {
      return { ok: false, reason: 'X-Vendor-Verify is verified with the authKey, not a publicKey' };
    }
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
  if (Math.abs(now - seconds) > tolerance) {
    return { ok: false, reason: 'webhook-timestamp outside tolerance' };
  }
  let matches: (candidate: string) => boolean;
  if (authKey.startsWith(PUBLIC_KEY_PREFIX)) {
    matches = (candidate) => verifyAsymmetric(id, seconds, rawBody, candidate, authKey);
  } else {
    const expected = standardSignature(id, seconds, rawBody, authKey);
    matches = (candidate) => safeEqual(candidate, expected);
  }
  return signatures.split(' ').some(matches)
    ? { ok: true, scheme: 'standard', webhookId: id, timestamp: seconds }
    : { ok: false, reason: 'no matching signature' };
}

/** Where an activity notification stands: the newest change of its activity seen so far. */
interface Latest {
  sequence: number;
  eventType: string;
}

export interface OrderTrackerOptions {
  /** Activities remembered; the least recently notified are forgotten first. Default 10000. */
  maxActivities?: number;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null;

/**
 * Drops stale activity notifications. Every `activity_*` notification's eventData carries
 * `sequence`, which increases per activity from 1 (created) with each change, and `occurredAt`.
 * Notifications may arrive out of order (retries, several in flight): `accept` says whether one
 * is newer than everything already accepted for its activity, and remembers it if so. A
 * notification with the sequence of the newest one and the same eventType is a repeat (a
 * redelivery) and is dropped too. Anything without an activity and a sequence (motion_*,
 * account_deleted, test_notification) is always accepted. Memory is bounded by
 * `maxActivities`.
 */
export class ActivityOrderTracker {
  readonly #latest = new Map<string, Latest>();
  readonly #max: number;

  constructor(options: OrderTrackerOptions = {}) {
    this.#max = options.maxActivities ?? 10_000;
  }

  /** Whether to act on the notification (its parsed body); false: a stale or repeated update. */
  accept(notification: unknown): boolean {
    if (!isRecord(notification) || !isRecord(notification.eventData)) return true;
    const { eventType, eventData } = notification;
    const { accessoryId, activityId, sequence } = eventData;
    if (
      typeof eventType !== 'string' ||
      typeof accessoryId !== 'string' ||
      typeof activityId !== 'string' ||
      typeof sequence !== 'number'
    ) {
      return true;
    }
    const key = `${accessoryId}/${activityId}`;
    const latest = this.#latest.get(key);
    if (
      latest &&
      (sequence < latest.sequence ||
        (sequence === latest.sequence && eventType === latest.eventType))
    ) {
      return false;
    }
    this.#latest.delete(key);
    this.#latest.set(key, { sequence, eventType });
    if (this.#latest.size > this.#max) {
      this.#latest.delete(this.#latest.keys().next().value!);
    }
    return true;
  }
}
