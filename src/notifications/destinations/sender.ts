import type { AttemptRequest, AttemptResult } from '../delivery/policy.ts';
import { USER_AGENT, type Sender } from '../sender.ts';
import { notificationHeaders } from '../signing.ts';
import type { BrokerKind } from './destination.ts';
import { PublishError, type BrokerMessage, type Publisher } from './types.ts';

/**
 * The sender of every destination: a request for a broker is signed as a webhook POST would be,
 * published with its kind's Publisher and answered as an AttemptResult; any other request goes
 * to the webhook sender.
 */

/** The headers a broker message carries: the Standard Webhooks ones and the content type. */
const MESSAGE_HEADERS = ['webhook-id', 'webhook-timestamp', 'webhook-signature'];

/** A notification's signed headers (signing.ts) as a broker message. */
export function brokerMessage(
  webhookId: string,
  headers: Record<string, string>,
  body: Uint8Array,
): BrokerMessage {
  const carried: Record<string, string> = { 'content-type': 'application/json' };
  for (const name of MESSAGE_HEADERS) {
    const value = headers[name];
    if (value !== undefined) carried[name] = value;
  }
  // A view of the signed bytes, not a copy: each client writes them as they are.
  return {
    id: webhookId,
    headers: carried,
    body: Buffer.from(body.buffer, body.byteOffset, body.byteLength),
  };
}

/**
 * The AttemptResult of a publish that took `durationMs`: accepted once the broker acknowledged
 * (`err` undefined); else failed with the PublishError's class, 'timeout' for anything else once
 * the attempt's time ran out (`timedOut`), 'protocol' otherwise.
 */
export function publishResult(err: unknown, timedOut: boolean, durationMs: number): AttemptResult {
  const result = { status: null, durationMs, responseSnippet: '' };
  if (err === undefined) return { ...result, outcome: 'accepted', error: null, errorMessage: null };
  const message = err instanceof Error ? err.message : String(err);
  const error = err instanceof PublishError ? err.errorClass : timedOut ? 'timeout' : 'protocol';
  return { ...result, outcome: 'failed', error, errorMessage: message };
}

export function createDestinationSender(options: {
  webhook: Sender;
  publishers: Record<BrokerKind, Publisher>;
  /** The budget of one attempt, as a webhook's. */
  timeoutMs: number;
}): Sender {
  const { webhook, publishers, timeoutMs } = options;

  async function publish(
    request: AttemptRequest & Required<Pick<AttemptRequest, 'broker'>>,
  ): Promise<AttemptResult> {
    const started = performance.now();
    // A timer cleared once the publish settles: AbortSignal.timeout's would live (and hold its
    // signal) for the whole timeout after every publish, and costs twice as much to make.
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    const { signal } = controller;
    const { kind, target } = request.broker;
    let failure: unknown;
    try {
      const headers = await notificationHeaders({
        body: request.body,
        keys: request.keys,
        webhookId: request.webhookId,
        timestamp: Math.floor(Date.now() / 1000),
        userAgent: USER_AGENT,
      });
      await publishers[kind].publish(
        target,
        brokerMessage(request.webhookId, headers, request.body),
        signal,
      );
    } catch (err) {
      failure = err ?? new Error('publish failed');
    } finally {
      clearTimeout(timer);
    }
    return publishResult(failure, signal.aborted, Math.round(performance.now() - started));
  }

  return {
    send: (request) =>
      request.broker === undefined
        ? webhook.send(request)
        : publish({ ...request, broker: request.broker }),
    async close() {
      await Promise.all([webhook.close(), ...Object.values(publishers).map((p) => p.close())]);
    },
  };
}
