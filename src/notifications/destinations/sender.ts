import { setMaxListeners } from 'node:events';
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
  if (err === undefined) {
    return {
      outcome: 'accepted',
      status: null,
      error: null,
      errorMessage: null,
      durationMs,
      responseSnippet: '',
    };
  }
  const errorMessage = err instanceof Error ? err.message : String(err);
  const error = err instanceof PublishError ? err.errorClass : timedOut ? 'timeout' : 'protocol';
  return { outcome: 'failed', status: null, error, errorMessage, durationMs, responseSnippet: '' };
}

/** How finely publishes share a deadline (see Deadlines). */
const DEADLINE_STEP_MS = 100;

/**
 * The deadlines of publishes: those that start within the same DEADLINE_STEP_MS share one
 * AbortSignal, aborted `timeoutMs` after that step ends, so each publish gets `timeoutMs` and at
 * most DEADLINE_STEP_MS more. A signal and its timer of their own cost a publish about 4 µs of
 * CPU (an AbortController, and the first listener on a new EventTarget); a listener on a shared
 * one, a few hundred ns. See docs/decisions/0159-publish-deadlines.md.
 */
class Deadlines {
  readonly #timeoutMs: number;
  #current: { signal: AbortSignal; startsBefore: number } | undefined;
  readonly #timers = new Set<NodeJS.Timeout>();

  constructor(timeoutMs: number) {
    this.#timeoutMs = timeoutMs;
  }

  /** The signal of a publish that starts at `now` (performance.now()). */
  signal(now: number): AbortSignal {
    if (this.#current !== undefined && now < this.#current.startsBefore) {
      return this.#current.signal;
    }
    const controller = new AbortController();
    // Every publish of the step listens to it (the limit is per EventTarget, for leaks).
    setMaxListeners(0, controller.signal);
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      controller.abort();
    }, DEADLINE_STEP_MS + this.#timeoutMs);
    // What it ends holds the process already (a socket); the last step's timer alone does not.
    timer.unref();
    this.#timers.add(timer);
    this.#current = { signal: controller.signal, startsBefore: now + DEADLINE_STEP_MS };
    return controller.signal;
  }

  /** Clears the timers, once nothing is published any more. */
  close(): void {
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    this.#current = undefined;
  }
}

export function createDestinationSender(options: {
  webhook: Sender;
  publishers: Record<BrokerKind, Publisher>;
  /** The budget of one attempt, as a webhook's. */
  timeoutMs: number;
}): Sender {
  const { webhook, publishers, timeoutMs } = options;
  const deadlines = new Deadlines(timeoutMs);

  async function publish(
    request: AttemptRequest,
    { kind, target }: NonNullable<AttemptRequest['broker']>,
  ): Promise<AttemptResult> {
    const started = performance.now();
    const signal = deadlines.signal(started);
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
    }
    return publishResult(failure, signal.aborted, Math.round(performance.now() - started));
  }

  return {
    send: (request) =>
      request.broker === undefined ? webhook.send(request) : publish(request, request.broker),
    async close() {
      // Closing the publishers fails what they still hold; then no deadline is waited for.
      await Promise.all([webhook.close(), ...Object.values(publishers).map((p) => p.close())]);
      deadlines.close();
    },
  };
}
