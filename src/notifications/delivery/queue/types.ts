import type { StoredDestination } from '../../destinations/destination.ts';
import type { AttemptResult, DeliveryContent, NextStep } from '../policy.ts';

/**
 * The delivery queue: the `deliveries` table, filled by the outbox, and every statement that
 * changes it, one file each in this folder:
 *
 * - queued for an event: `clipgate_record_events` (src/events/sql/record_events.sql), in the
 *   transaction of the change that caused the event;
 * - queued as a test: ./enqueue-test.ts;
 * - leased to an instance for an attempt: ./claim.ts, alone or in the statement that writes
 *   outcomes (./record-and-claim.ts);
 * - the lease given up without an attempt, or deferred: ./hand-back.ts;
 * - a registration's queue held back while its receiver asked to slow down:
 *   ./defer-registration.ts;
 * - an attempt's outcome (delivered, retried later, discarded, gone): ./record-outcomes.ts;
 * - pending ones following their registration when it is saved again or its keys are rotated
 *   or retired (url, keys): ./retarget.ts;
 * - pending ones dropped (unregistered, disabled, a 410): ./drop-pending.ts;
 * - a finished one queued again by hand: ./redeliver.ts;
 * - the events of a time range queued again, as replays: ./replay.ts;
 * - old days of the log dropped: ./purge.ts.
 *
 * What the dispatcher reads of it (next due, queue stats) and its ANALYZE are in ./reads.ts.
 * Each is one statement: no transaction is ever held while sending.
 */

/** A delivery leased to this instance by `claimDeliveries`. */
export interface ClaimedDelivery extends DeliveryContent {
  client_id: string;
  origin: string;
  /** The receiver's key, sealed (secrets.ts). */
  auth_key: string;
  /** Its previous key, sealed, while a rotation's overlap lasts (until `previous_key_until`). */
  previous_auth_key: string | null;
  previous_key_until: Date | null;
  /** The ed25519 private key (PKCS#8 DER in base64), sealed; null: HMAC-SHA256 signatures. */
  signing_key: string | null;
  /** The previous one, sealed, while a rotation's overlap lasts. */
  previous_signing_key: string | null;
  /** Claims so far, this one included: the fence of its lease, and the attempt's number. */
  attempt_count: number;
  /** Attempts recorded in the current round (since it was queued or redelivered). */
  round_attempts: number;
  /** The W3C trace context of the request that queued it (null: not traced). */
  traceparent: string | null;
  /** A broker destination, its credentials sealed (null: a webhook at `url`). */
  destination: StoredDestination | null;
}

/** An attempt and what follows from it, as `recordOutcomes` writes it. */
export interface Outcome {
  /** The delivery attempted: what the write is fenced by, and what its exhaustion tells. */
  delivery: Pick<
    ClaimedDelivery,
    | 'id'
    | 'attempt_count'
    | 'round_attempts'
    | 'kind'
    | 'event_id'
    | 'event_type'
    | 'account_id'
    | 'client_id'
    | 'url'
  >;
  startedAt: Date;
  result: AttemptResult;
  next: NextStep;
}
