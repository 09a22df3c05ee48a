import { describe, expect, it } from 'vitest';
import {
  attemptRequest,
  keyUnavailable,
  nextStep,
  outcomeOf,
  parseRetryAfter,
  RETRY_AFTER_MAX_MS,
  resultLabel,
  slowDownMs,
  slowDownNote,
  type AttemptError,
  type AttemptResult,
  type DeliveryContent,
} from '../../../src/notifications/delivery/policy.ts';
import { verifyNotification } from '../../../src/notifications/receiver.ts';
import { notificationHeaders } from '../../../src/notifications/signing.ts';

const delays = [1000, 5000, 30_000];
const NOW = Date.parse('2026-11-27T12:00:00Z');

/** The result of an attempt answered with `status`, as the sender classifies it. */
const answered = (status: number): AttemptResult => ({
  outcome: outcomeOf(status),
  status,
  error: null,
  errorMessage: null,
  durationMs: 12,
  responseSnippet: '',
});

/** The result of an attempt that got no answer. */
const unanswered = (error: Exclude<AttemptError, 'key_unavailable'>): AttemptResult => ({
  outcome: outcomeOf(null),
  status: null,
  error,
  errorMessage: `${error} happened`,
  durationMs: 3,
  responseSnippet: '',
});

/** nextStep for each attempt of a round, 1 through one past the last delay. */
const round = (result: AttemptResult) =>
  Array.from({ length: delays.length + 1 }, (_, i) => nextStep(result, i + 1, delays, NOW));

const retriedThenDiscarded = [
  { state: 'pending', delayMs: 1000 },
  { state: 'pending', delayMs: 5000 },
  { state: 'pending', delayMs: 30_000 },
  { state: 'discarded' },
];

describe('flow control', () => {
  const slowDown = (status: number, retryAfter?: string): AttemptResult => ({
    ...answered(status),
    retryAfter,
  });

  it('reads Retry-After as seconds or an HTTP date, and nothing else', () => {
    expect(parseRetryAfter('30', NOW)).toBe(30_000);
    expect(parseRetryAfter(' 0 ', NOW)).toBe(0);
    expect(parseRetryAfter('Fri, 27 Nov 2026 12:01:30 GMT', NOW)).toBe(90_000);
    expect(parseRetryAfter('Fri, 27 Nov 2026 11:00:00 GMT', NOW)).toBe(0); // past: now
    for (const bad of [undefined, '', '-5', '1.5', 'soon', '2026-11-27T12:01:30Z', '1e3']) {
      expect(parseRetryAfter(bad, NOW), String(bad)).toBeUndefined();
    }
  });

  it('429, 502, 503 and 504 are "slow down": held for Retry-After, else the retry delay, capped', () => {
    for (const status of [429, 502, 503, 504]) {
      expect(slowDownMs(slowDown(status, '20'), NOW, 1000), String(status)).toBe(20_000);
      expect(slowDownMs(slowDown(status), NOW, 1000), String(status)).toBe(1000);
    }
    expect(slowDownMs(slowDown(503, '86400'), NOW, 1000)).toBe(RETRY_AFTER_MAX_MS);
    expect(slowDownMs(slowDown(503, 'garbage'), NOW, 1000)).toBe(1000);
    // Any other answer, a Retry-After or not, is not one; 410 keeps its meaning.
    for (const status of [200, 204, 400, 410, 500, 501]) {
      expect(slowDownMs(slowDown(status, '20'), NOW, 1000), String(status)).toBeUndefined();
    }
    expect(slowDownMs({ status: null, retryAfter: '20' }, NOW, 1000)).toBeUndefined();
  });

  it('retries a slow down no earlier than its Retry-After, and never earlier than the schedule', () => {
    expect(nextStep(slowDown(429, '20'), 1, delays, NOW)).toEqual({
      state: 'pending',
      delayMs: 20_000,
    });
    expect(nextStep(slowDown(503, '0'), 1, delays, NOW)).toEqual({
      state: 'pending',
      delayMs: 1000,
    });
    expect(nextStep(slowDown(500, '20'), 1, delays, NOW)).toEqual({
      state: 'pending',
      delayMs: 1000,
    });
    expect(nextStep(slowDown(503, '20'), 4, delays, NOW)).toEqual({ state: 'discarded' });
    expect(nextStep(slowDown(410, '20'), 1, delays, NOW)).toEqual({ state: 'gone' });
  });

  it('says in the delivery log why and for how long', () => {
    expect(slowDownNote(slowDown(429, '20'), 20_000)).toBe(
      'slow down: HTTP 429 with Retry-After: 20; this registration gets nothing for 20 s',
    );
    expect(slowDownNote(slowDown(502), 250)).toBe(
      'slow down: HTTP 502; this registration gets nothing for 1 s',
    );
  });
});

describe('retry policy', () => {
  it('a 2xx is delivered, whichever attempt of the round it is', () => {
    for (const status of [200, 201, 202, 204, 299]) {
      expect(round(answered(status))).toEqual(Array(4).fill({ state: 'delivered' }));
    }
  });

  it('a 410 is gone at once', () => {
    expect(round(answered(410))).toEqual(Array(4).fill({ state: 'gone' }));
  });

  it('3xx (never followed), other 4xx and 5xx are retried after each delay, then discarded', () => {
    for (const status of [100, 199, 301, 302, 304, 307, 400, 401, 404, 409, 429, 500, 502, 503]) {
      expect(outcomeOf(status), String(status)).toBe('failed');
      expect(round(answered(status)), String(status)).toEqual(retriedThenDiscarded);
    }
  });

  it('no answer (timeout, DNS, connect, TLS, blocked address, protocol) is retried likewise', () => {
    for (const error of [
      'timeout',
      'dns',
      'connect',
      'tls',
      'blocked_address',
      'protocol',
    ] as const) {
      expect(round(unanswered(error)), error).toEqual(retriedThenDiscarded);
    }
  });

  it('a key this instance cannot open is an attempt not sent, retried likewise', () => {
    const result = keyUnavailable();
    expect(result).toMatchObject({
      outcome: 'failed',
      status: null,
      error: 'key_unavailable',
      durationMs: 0,
      responseSnippet: '',
    });
    expect(result.errorMessage).toMatch(/SECRETS_KEY/);
    expect(round(result)).toEqual(retriedThenDiscarded);
  });

  it('without retry delays the first failure is discarded; a redelivered round starts over', () => {
    expect(nextStep(answered(503), 1, [], NOW)).toEqual({ state: 'discarded' });
    expect(nextStep(answered(503), 1, delays, NOW)).toEqual({ state: 'pending', delayMs: 1000 });
  });

  it('labels attempts by status class or error class', () => {
    expect([204, 302, 404, 410, 503].map((s) => resultLabel(answered(s)))).toEqual([
      '2xx',
      '3xx',
      '4xx',
      '4xx',
      '5xx',
    ]);
    expect(resultLabel(unanswered('dns'))).toBe('dns');
    expect(resultLabel(keyUnavailable())).toBe('key_unavailable');
    // A broker's acknowledgement has no status.
    expect(resultLabel({ outcome: 'accepted', status: null, error: null })).toBe('ack');
  });
});

describe('attempt request', () => {
  const delivery: DeliveryContent = {
    id: '42',
    kind: 'event',
    event_id: '9001',
    account_id: 'acc-1',
    event_type: 'activity_created',
    event_data: { accessoryId: 'x', activityId: '20250101T000000Z' },
    user_data: { team: 'backend' },
    url: 'https://receiver.example/hook',
  };

  it('sends the exact body, to the registration url, with the event id as webhook-id', () => {
    const request = attemptRequest(delivery, { authKey: 'receiver-key-0123456789' });
    expect(request.url).toBe('https://receiver.example/hook');
    expect(request.webhookId).toBe('9001');
    expect(request.keys.authKey).toBe('receiver-key-0123456789');
    expect(Buffer.from(request.body).toString()).toBe(
      '{"accountId":"acc-1","eventType":"activity_created","eventData":{"accessoryId":"x","activityId":"20250101T000000Z"},"userData":{"team":"backend"}}',
    );
  });

  it('leaves userData out when there is none, and keeps an empty object', () => {
    const body = (user_data: unknown) =>
      JSON.parse(
        Buffer.from(attemptRequest({ ...delivery, user_data }, { authKey: 'k' }).body).toString(),
      );
    expect(body(null)).not.toHaveProperty('userData');
    expect(body(undefined)).not.toHaveProperty('userData');
    expect(body({})).toHaveProperty('userData', {});
  });

  it('a test notification is identified as test_<deliveryId>', () => {
    const test = { ...delivery, kind: 'test' as const, event_id: null };
    expect(attemptRequest(test, { authKey: 'k' }).webhookId).toBe('test_42');
  });

  it('its signed headers verify at the receiver with its webhook-id', async () => {
    const request = attemptRequest(delivery, { authKey: 'receiver-key-0123456789' });
    const timestamp = 1_700_000_000;
    const headers = await notificationHeaders({ ...request, timestamp, userAgent: 'test' });
    expect(headers['webhook-id']).toBe('9001');
    expect(
      verifyNotification(request.body, headers, 'receiver-key-0123456789', { now: timestamp }),
    ).toEqual({ ok: true, scheme: 'standard', webhookId: '9001', timestamp });
  });
});
