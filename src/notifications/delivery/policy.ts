/**
 * What a delivery attempt is and what follows from it, without I/O: the request an attempt
 * sends (body, webhook-id; the signed headers are added by the sender at the moment of sending,
 * see signing.ts), how its answer is classified, and the retry decision. See docs/decisions.md,
 * "Notifications".
 */
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
}

/** What one attempt sends (the sender signs it with `keys` when it sends it). */
export interface AttemptRequest {
  url: string;
  body: Uint8Array;
  keys: AttemptKeys;
  webhookId: string;
  /** W3C trace context sent as the `traceparent` header (only while tracing is on). */
  traceparent?: string;
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

/**
 * The retry decision. A 2xx is delivered and a 410 gone; every other outcome (3xx, other 4xx,
 * 5xx, timeout, DNS, connect, TLS, blocked_address, key_unavailable) is retried after the
 * `round`-th delay (1-based: the attempt's number in its round), and discarded after the last.
 */
export function nextStep(
  result: Pick<AttemptResult, 'outcome'>,
  round: number,
  retryDelaysMs: readonly number[],
): NextStep {
  if (result.outcome === 'accepted') return { state: 'delivered' };
  if (result.outcome === 'gone') return { state: 'gone' };
  const delayMs = retryDelaysMs[round - 1];
  return delayMs === undefined ? { state: 'discarded' } : { state: 'pending', delayMs };
}

/** The `result` label of the attempt-duration metric: the status class, or the error class. */
export const resultLabel = (result: Pick<AttemptResult, 'status' | 'error'>): string =>
  result.status !== null ? `${Math.floor(result.status / 100)}xx` : (result.error ?? 'unknown');
