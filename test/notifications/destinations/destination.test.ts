import { describe, expect, it } from 'vitest';
import {
  brokerTarget,
  checkTopic,
  originOf,
  renderTopic,
} from '../../../src/notifications/destinations/destination.ts';
import { mqttError } from '../../../src/notifications/destinations/mqtt.ts';
import {
  brokerMessage,
  createDestinationSender,
  publishResult,
} from '../../../src/notifications/destinations/sender.ts';
import { PublishError, type Publisher } from '../../../src/notifications/destinations/types.ts';

describe('broker destinations, without I/O', () => {
  it('renders a topic template; an event of no accessory renders it as -', () => {
    const template = 'clipgate/{accountId}/{accessoryId}/{eventType}';
    expect(renderTopic(template, { accountId: 'a1', accessoryId: 'c2', eventType: 'x' })).toBe(
      'clipgate/a1/c2/x',
    );
    expect(renderTopic(template, { accountId: 'a1', accessoryId: undefined, eventType: 'y' })).toBe(
      'clipgate/a1/-/y',
    );
    expect(
      renderTopic('{eventType}.{eventType}', { accountId: '', accessoryId: '', eventType: 'e' }),
    ).toBe('e.e');
  });

  it("checks a template's placeholders and each kind's reserved characters (400 on topic)", () => {
    expect(checkTopic('mqtt', 'a/{accountId}/b')).toBe('a/{accountId}/b');
    expect(checkTopic('nats', 'clipgate.{accountId}.{eventType}')).toBe(
      'clipgate.{accountId}.{eventType}',
    );
    expect(checkTopic('amqp', 'clipgate.#')).toBe('clipgate.#'); // a routing key may hold it
    const refused: [Parameters<typeof checkTopic>[0], unknown, RegExp][] = [
      ['mqtt', 'a/+/b', /wildcards/],
      ['mqtt', 'a/#', /wildcards/],
      ['mqtt', 'a/{deviceId}', /unknown placeholder \{deviceId\}/],
      ['mqtt', '', /1\.\.255/],
      ['mqtt', 'x'.repeat(256), /1\.\.255/],
      ['mqtt', 42, /string/],
      ['nats', 'a.*', /wildcards/],
      ['nats', 'a b', /spaces/],
      ['nats', 'a..b', /empty tokens/],
      ['nats', '.a', /empty tokens/],
    ];
    for (const [kind, topic, message] of refused) {
      expect(() => checkTopic(kind, topic), String(topic)).toThrow(message);
      try {
        checkTopic(kind, topic);
      } catch (err) {
        expect((err as { details?: unknown }).details).toMatchObject({ field: 'topic' });
      }
    }
  });

  it("keys a broker's slots by scheme, host and port, with the kind's default port", () => {
    expect(originOf(new URL('mqtt://broker.example.com'))).toBe('mqtt://broker.example.com:1883');
    expect(originOf(new URL('mqtts://broker.example.com'))).toBe('mqtts://broker.example.com:8883');
    expect(originOf(new URL('amqp://rabbit:5673/vhost'))).toBe('amqp://rabbit:5673');
    expect(originOf(new URL('nats://[::1]'))).toBe('nats://[::1]:4222');
    expect(originOf(new URL('https://hooks.example.com/x'))).toBe('https://hooks.example.com');
  });

  it("builds a delivery's target: rendered topic, exchange for AMQP, credentials when set", () => {
    const delivery = {
      url: 'amqp://rabbit:5672/',
      account_id: 'acc',
      event_type: 'activity_created',
      event_data: { accessoryId: 'cam' },
    };
    expect(
      brokerTarget(
        delivery,
        { kind: 'amqp', topic: '{accountId}.{accessoryId}', exchange: '', credentials: 'sealed' },
        { username: 'u', password: 'p' },
      ),
    ).toEqual({
      url: 'amqp://rabbit:5672/',
      topic: 'acc.cam',
      exchange: '',
      username: 'u',
      password: 'p',
    });
    expect(
      brokerTarget(delivery, { kind: 'mqtt', topic: 't', exchange: null, credentials: null }, null),
    ).toEqual({ url: 'amqp://rabbit:5672/', topic: 't' });
  });

  it('carries the Standard Webhooks headers and the content type, nothing else', () => {
    const message = brokerMessage(
      'evt1',
      {
        'Content-Type': 'application/json',
        'User-Agent': 'clipgate',
        'X-Vendor-Verify': 'legacy',
        'webhook-id': 'evt1',
        'webhook-timestamp': '1700000000',
        'webhook-signature': 'v1,abc',
      },
      Buffer.from('{"a":1}'),
    );
    expect(message).toEqual({
      id: 'evt1',
      body: Buffer.from('{"a":1}'),
      headers: {
        'content-type': 'application/json',
        'webhook-id': 'evt1',
        'webhook-timestamp': '1700000000',
        'webhook-signature': 'v1,abc',
      },
    });
  });

  it('maps a publish to the attempt result: acknowledged is accepted, else the error class', () => {
    expect(publishResult(undefined, false, 12)).toEqual({
      outcome: 'accepted',
      status: null,
      error: null,
      errorMessage: null,
      durationMs: 12,
      responseSnippet: '',
    });
    expect(publishResult(new PublishError('connect', 'refused'), false, 3)).toMatchObject({
      outcome: 'failed',
      status: null,
      error: 'connect',
      errorMessage: 'refused',
    });
    expect(publishResult(new Error('odd'), true, 3)).toMatchObject({ error: 'timeout' });
    expect(publishResult(new Error('odd'), false, 3)).toMatchObject({ error: 'protocol' });
  });

  it('gives a publish at least its timeout; publishes started together share one deadline', async () => {
    const signals: AbortSignal[] = [];
    // A broker that never acknowledges: each publish ends when its signal aborts.
    const stalled: Publisher = {
      publish: (_target, _message, signal) =>
        new Promise((_resolve, reject) => {
          signals.push(signal);
          signal.addEventListener('abort', () => reject(new PublishError('timeout', 'late')));
        }),
      close: async () => {},
    };
    const sender = createDestinationSender({
      webhook: { send: () => Promise.reject(new Error('no webhooks')), close: async () => {} },
      publishers: { mqtt: stalled, amqp: stalled, nats: stalled },
      timeoutMs: 300,
    });
    const request = {
      url: 'mqtt://broker.example',
      body: Buffer.from('{}'),
      keys: { authKey: 'k' },
      webhookId: 'evt1',
      broker: { kind: 'mqtt' as const, target: { url: 'mqtt://broker.example', topic: 't' } },
    };
    const results = await Promise.all([sender.send(request), sender.send(request)]);
    for (const result of results) {
      expect(result).toMatchObject({ outcome: 'failed', error: 'timeout' });
      expect(result.durationMs).toBeGreaterThanOrEqual(299);
      expect(result.durationMs).toBeLessThan(2000); // 100 ms more at most, and a timer's lateness
    }
    expect(signals[0]).toBe(signals[1]);
    await sender.close();
  });

  it('classes MQTT failures: reason codes are refusals, the rest as a webhook error', () => {
    const coded = (code: string | number) => Object.assign(new Error(String(code)), { code });
    expect(mqttError(coded('ECONNREFUSED'), 'connection').errorClass).toBe('connect');
    expect(mqttError(coded('ERR_TLS_CERT_ALTNAME_INVALID'), 'connection').errorClass).toBe('tls');
    expect(mqttError(coded(135), 'connection')).toMatchObject({
      errorClass: 'protocol',
      message: 'the broker refused the connection: not authorized',
    });
    expect(mqttError(coded(151), 'message').message).toBe(
      'the broker refused the message: quota exceeded',
    );
    expect(mqttError(new Error('bad packet'), 'message').errorClass).toBe('protocol');
    const timeout = new PublishError('timeout', 'late');
    expect(mqttError(timeout, 'message')).toBe(timeout);
  });
});
