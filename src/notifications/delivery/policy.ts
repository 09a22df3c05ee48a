/**
 * What a delivery attempt is and what follows from it, without I/O: the request an attempt
 * sends (body, webhook-id; the signed headers are added by the sender at the moment of sending,
 * see signing.ts), how its answer is classified, and the retry decision. See
 * docs/decisions/0091-retries-and-redelivery.md and 0103-slow-down-statuses.md.
 */
import type { BrokerKind } from '../destinations/destination.ts';
import type { BrokerTarget } from '../destinations/types.ts';
import type { AttemptKeys } from '../signing.ts';

/** A delivery's state in the queue and the log. */
export type DeliveryState = 'pending' | 'delivered' | 'discarded' | 'gone' | 'dropped';

/** accepted: a 2xx; gone: a 410; failed: anything else, or no answer at all. */
export type AttemptOutcome = 'accepted' | 'gone' | 'failed';

/** Why an attempt has no HTTP status. key_unavailable: it could not be signed, so not sent. */
export const attemptErrors = [
  'timeout',
  'dns',
  'connect',
  'tls',
  'blocked_address',
  'protocol',
  'key_unavailable',
] as const;

export type AttemptError = (typeof attemptErrors)[number];

/** How one attempt went: the hand-off from the call stage to the handling of its outcome. */
export interface AttemptResult {
  outcome: AttemptOutcome;
  status: number | null;
  error: AttemptError | null;
  errorMessage: string | null;
  durationMs: number;
  responseSnippet: string;
  /** The answer's `Retry-After` header as sent, if any. */
  retryAfter?: string | undefined;
}

/** What one attempt sends (the sender signs it with `keys` when it sends it). */
export interface AttemptRequest {
  url: string;
  body: Uint8Array;
  keys: AttemptKeys;
  webhookId: string;
  /** W3C trace context sent as the `traceparent` header (only while tracing is on). */
  traceparent?: string;
  /** A broker destination: published there instead of POSTed to `url`. */
  broker?: { kind: BrokerKind; target: BrokerTarget };
}

/** The fields of a queued delivery an attempt is built from (its `deliveries` row). */
export interface DeliveryContent {
  id: string;
  kind: 'event' | 'test';
  event_id: string | null;
  account_id: string;
  event_type: string;
  event_data: unknown;
  user_data: unknown;
  url: string;
}

/** The outcome of an HTTP answer; `null` when there was none (an error class instead). */
export function outcomeOf(status: number | null): AttemptOutcome {
  if (status !== null && status >= 200 && status < 300) return 'accepted';
  return status === 410 ? 'gone' : 'failed';
}

/** The exact body of a notification as the contract fixes it; `userData` is left out when none. */
function notificationBody(
  d: Pick<DeliveryContent, 'account_id' | 'event_type' | 'event_data' | 'user_data'>,
): Buffer {
  return Buffer.from(
    JSON.stringify({
      accountId: d.account_id,
      eventType: d.event_type,
      eventData: d.event_data,
      ...(d.user_data !== null && d.user_data !== undefined && { userData: d.user_data }),
    }),
  );
}

/** The `webhook-id` of a delivery: its event's id, or `test_<deliveryId>` for a test. */
export const webhookIdOf = (d: Pick<DeliveryContent, 'kind' | 'id' | 'event_id'>): string =>
  d.kind === 'test' || d.event_id === null ? `test_${d.id}` : d.event_id;

/** The request of one attempt at a delivery, with the receiver's keys (opened). */
export const attemptRequest = (d: DeliveryContent, keys: AttemptKeys): AttemptRequest => ({
  url: d.url,
  body: notificationBody(d),
  keys,
  webhookId: webhookIdOf(d),
});

/** Whether a rotation's previous key still signs at `now`: until the end of its overlap. */
export const previousKeySigns = (until: Date | null, now: Date): boolean =>
  until !== null && until.getTime() > now.getTime();

/** The result of an attempt that was not sent: this instance cannot open the receiver's key. */
export const keyUnavailable = (): AttemptResult => ({
  outcome: 'failed',
  status: null,
  error: 'key_unavailable',
  errorMessage: "the receiver's key cannot be decrypted with this instance's SECRETS_KEY",
  durationMs: 0,
  responseSnippet: '',
});

/** What follows an attempt: a final state, or another attempt after a delay. */
export type NextStep =
  | { state: 'delivered' }
  | { state: 'gone' }
  | { state: 'pending'; delayMs: number }
  | { state: 'discarded' };

/** The answers by which a receiver says "slow down" (docs/api.md, Flow control). */
export const SLOW_DOWN_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);
/** The longest a receiver's `Retry-After` holds its registration back: 10 minutes. */
export const RETRY_AFTER_MAX_MS = 10 * 60_000;

const HTTP_DATE = /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/;

/**
 * A `Retry-After` value as milliseconds from `now` (ms): delay-seconds or an HTTP date (a past
 * date is 0); undefined when absent or malformed.
 */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  const text = value?.trim();
  if (text === undefined) return undefined;
  if (/^\d{1,9}$/.test(text)) return Number(text) * 1000;
  if (!HTTP_DATE.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * How long a receiver that said "slow down" (SLOW_DOWN_STATUSES) is left alone: what its
 * `Retry-After` asks, else `fallbackMs` (the retry's own delay), at most RETRY_AFTER_MAX_MS;
 * undefined for any other outcome.
 */
export function slowDownMs(
  result: Pick<AttemptResult, 'status' | 'retryAfter'>,
  now: number,
  fallbackMs: number,
): number | undefined {
  if (result.status === null || !SLOW_DOWN_STATUSES.has(result.status)) return undefined;
  return Math.min(parseRetryAfter(result.retryAfter, now) ?? fallbackMs, RETRY_AFTER_MAX_MS);
}

/** What the delivery log says of a "slow down": the answer and how long the registration waits. */
export const slowDownNote = (result: Pick<AttemptResult, 'status' | 'retryAfter'>, ms: number) =>
  `slow down: HTTP ${result.status}${result.retryAfter === undefined ? '' : ` with Retry-After: ${result.retryAfter}`}; ` +
  `this registration gets nothing for ${Math.ceil(ms / 1000)} s`;

/**
 * The retry decision. A 2xx is delivered and a 410 gone; every other outcome (3xx, other 4xx,
 * 5xx, timeout, DNS, connect, TLS, blocked_address, key_unavailable) is retried after the
 * `round`-th delay (1-based: the attempt's number in its round), and discarded after the last.
 * A "slow down" (slowDownMs) is retried no earlier than its Retry-After asks, capped.
 */
export function nextStep(
  result: Pick<AttemptResult, 'outcome' | 'status' | 'retryAfter'>,
  round: number,
  retryDelaysMs: readonly number[],
  now: number,
): NextStep {
  if (result.outcome === 'accepted') return { state: 'delivered' };
  if (result.outcome === 'gone') return { state: 'gone' };
  const delayMs = retryDelaysMs[round - 1];
  if (delayMs === undefined) return { state: 'discarded' };
  return { state: 'pending', delayMs: Math.max(delayMs, slowDownMs(result, now, 0) ?? 0) };
}

/**
 * The `result` label of the attempt-duration metric: the status class, `ack` for a broker's
 * acknowledgement (no status), or the error class.
 */
export const resultLabel = (
  result: Pick<AttemptResult, 'outcome' | 'status' | 'error'>,
): string => {
  if (result.status !== null) return `${Math.floor(result.status / 100)}xx`;
  return result.outcome === 'accepted' ? 'ack' : (result.error ?? 'unknown');
};
