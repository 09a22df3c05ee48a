import type pg from 'pg';
import type { Clock } from '../../clock.ts';
import type { WebhookMetrics } from './metrics.ts';
import type { Logger } from '../../logger.ts';
import { inTransaction } from '../../storage/database.ts';
import { traceAttempt } from './tracing.ts';
import { secretContext, type SecretBox } from '../secrets.ts';
import type { AttemptKeys } from '../signing.ts';
import type { Sender } from '../sender.ts';
import { brokerTarget, type BrokerCredentials } from '../destinations/destination.ts';
import {
  attemptRequest,
  keyUnavailable,
  nextStep,
  previousKeySigns,
  slowDownMs,
  slowDownNote,
  resultLabel,
  type AttemptRequest,
  type AttemptResult,
  type NextStep,
} from './policy.ts';
import type { OutcomeRecorder } from './recorder.ts';
import type { GoneReceivers } from './slots.ts';
import type { ReceiverPauses } from './throttle.ts';
import { deferRegistration } from './queue/defer-registration.ts';
import { dropPending } from './queue/drop-pending.ts';
import type { ClaimedDelivery, Outcome } from './queue/types.ts';

/**
 * The stages of one attempt at a claimed delivery, each handing the next a typed value:
 * prepare (→ Prepared) → call (→ AttemptResult) → handle (→ NextStep) → record (an Outcome).
 * The dispatcher runs them in that order (dispatcher.ts) and owns the slots around them.
 */

/** What the stages work with; one per dispatcher. */
export interface StageContext {
  pool: pg.Pool;
  secrets: SecretBox;
  sender: Sender;
  recorder: OutcomeRecorder;
  gone: GoneReceivers;
  /** Registrations held back after a "slow down". */
  pauses: ReceiverPauses;
  retryDelaysMs: readonly number[];
  /** Whether a rotation's previous key still signs is read from it. */
  clock: Clock;
  logger: Logger;
  metrics: WebhookMetrics | undefined;
}

/** What prepare hands to call: a request to send, or the result of an attempt not sent. */
export type Prepared = { request: AttemptRequest } | { unsent: AttemptResult };

/**
 * prepare: opens the receiver's keys (its ed25519 key if it has one, and the previous ones while
 * a rotation's overlap lasts, by the clock now: the keys of an attempt are those in effect when
 * it is sent) and a broker's credentials, and builds the request; a key that does not open is
 * unsent.
 */
export function prepare(ctx: StageContext, delivery: ClaimedDelivery): Prepared {
  let keys: AttemptKeys;
  let credentials: BrokerCredentials | null = null;
  try {
    const context = secretContext(delivery.account_id, delivery.client_id);
    const open = (sealed: string | null) =>
      sealed === null ? undefined : ctx.secrets.open(sealed, context);
    const overlap = previousKeySigns(delivery.previous_key_until, ctx.clock.now());
    keys = {
      authKey: ctx.secrets.open(delivery.auth_key, context),
      previousAuthKey: overlap ? open(delivery.previous_auth_key) : undefined,
      signingKey: open(delivery.signing_key),
      previousSigningKey: overlap ? open(delivery.previous_signing_key) : undefined,
    };
    const sealed = delivery.destination?.credentials ?? null;
    if (sealed !== null) credentials = JSON.parse(ctx.secrets.open(sealed, context));
  } catch (err) {
    ctx.logger.error(
      { err, deliveryId: delivery.id },
      "the receiver's key does not decrypt with this instance's SECRETS_KEY",
    );
    return { unsent: keyUnavailable() };
  }
  const request = attemptRequest(delivery, keys);
  const { destination } = delivery;
  if (destination !== null) {
    const target = brokerTarget(delivery, destination, credentials);
    request.broker = { kind: destination.kind, target };
  }
  return { request };
}

/**
 * call: the signed POST (sender.ts), or the signed message to a broker (destinations/sender.ts),
 * traced in its request's trace; never throws.
 */
export const call = (
  ctx: StageContext,
  delivery: ClaimedDelivery,
  request: AttemptRequest,
): Promise<AttemptResult> =>
  traceAttempt(delivery, (traceparent) =>
    // Traced or not, the same request: no copy of it when tracing is off.
    ctx.sender.send(traceparent === undefined ? request : { ...request, traceparent }),
  );

/**
 * handle: what follows the attempt (policy.ts). Success (a 2xx) is delivered. Failure: a 410
 * removes the registration and drops what is still queued for it, and what this instance holds
 * for it is skipped from now on; anything else is retried after the next delay, or discarded.
 * A "slow down" (429, 502, 503, 504) also holds the registration back (the endpoint that asked,
 * not its host's other tenants) for its Retry-After (else the retry's delay), capped, its queue
 * with it, and the result answered says so for the delivery log.
 */
export async function handle(
  ctx: StageContext,
  delivery: ClaimedDelivery,
  result: AttemptResult,
): Promise<{ next: NextStep; result: AttemptResult }> {
  const now = Date.now();
  const next = nextStep(result, delivery.round_attempts + 1, ctx.retryDelaysMs, now);
  if (next.state === 'gone') await dropGone(ctx, delivery);
  const pauseMs = slowDownMs(result, now, next.state === 'pending' ? next.delayMs : 0);
  if (!pauseMs) return { next, result }; // not a slow down, or one that asks for no pause
  if (ctx.pauses.hold(delivery, pauseMs, now)) await holdQueue(ctx, delivery, pauseMs);
  return { next, result: { ...result, errorMessage: slowDownNote(result, pauseMs) } };
}

/**
 * A pause begins: the registration's queue falls due at its end in one statement, for every
 * instance. Should that fail, this instance still hands back what it claims meanwhile.
 */
async function holdQueue(ctx: StageContext, delivery: ClaimedDelivery, pauseMs: number) {
  try {
    await deferRegistration(ctx.pool, delivery, pauseMs);
  } catch (err) {
    ctx.logger.warn(
      { err, deliveryId: delivery.id },
      "holding back a paused registration's queue failed",
    );
  }
}

async function dropGone(ctx: StageContext, delivery: ClaimedDelivery): Promise<void> {
  // Marked before the drop, so nothing held for it starts meanwhile, and after, so that what a
  // claim took while the drop ran (dropped by it) is skipped too.
  ctx.gone.add(delivery, performance.now());
  try {
    // The registration goes, as if unregistered (unless it was registered again elsewhere
    // meanwhile), with what is still queued for that receiver.
    const target = {
      accountId: delivery.account_id,
      clientId: delivery.client_id,
      url: delivery.url,
      exceptId: delivery.id,
    };
    const dropped = await inTransaction(ctx.pool, async (client) => {
      await client.query(
        'DELETE FROM notification_registrations WHERE account_id = $1 AND client_id = $2 AND url = $3',
        [target.accountId, target.clientId, target.url],
      );
      return dropPending(client, target);
    });
    if (dropped) ctx.metrics?.webhookDeliveries.inc({ outcome: 'dropped' }, dropped);
    ctx.logger.info(
      { accountId: delivery.account_id, clientId: delivery.client_id, dropped },
      'receiver answered 410: registration removed',
    );
  } catch (err) {
    ctx.logger.error({ err, deliveryId: delivery.id }, 'removing a gone registration failed');
  } finally {
    ctx.gone.add(delivery, performance.now());
  }
}

/** record: the outcome is written with the next batch (recorder.ts) and counted. */
export async function record(ctx: StageContext, outcome: Outcome): Promise<void> {
  const { result, next } = outcome;
  ctx.metrics?.webhookAttempts.observe({ result: resultLabel(result) }, result.durationMs / 1000);
  await ctx.recorder.record(outcome);
  if (next.state !== 'pending') ctx.metrics?.webhookDeliveries.inc({ outcome: next.state });
}
