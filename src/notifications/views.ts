import type pg from 'pg';
import { isEventType, type EventType } from '../events/types.ts';
import type { SigningMode } from './registration.ts';
import type { DestinationKind, StoredDestination } from './destinations/destination.ts';
import {
  previousKeySigns,
  webhookIdOf,
  type AttemptOutcome,
  type DeliveryState,
} from './delivery/policy.ts';

/**
 * Registrations and deliveries as the API shows them: their views, the rows and columns they are
 * read from, and a page of deliveries with their attempts.
 */

export interface RegistrationView {
  accountId: string;
  clientId: string;
  url: string;
  eventTypes: EventType[];
  userData: Record<string, unknown> | null;
  /** Which events of its types it gets (docs/api.md, Filtered notifications); null: all. */
  filter: string | null;
  /** Deliveries per second at most; null: no limit. */
  maxPerSecond: number | null;
  /** active: notifications are sent; disabled: none are, until re-registered or enabled. */
  state: 'active' | 'disabled';
  /** Since when every attempt failed; null: the last attempt succeeded, or none was made. */
  failingSince: Date | null;
  disabledAt: Date | null;
  disabledReason: string | null;
  /**
   * Until when the previous key signs too, after a rotation with an overlap; null: only the
   * current key signs.
   */
  previousKeyUntil: Date | null;
  signing: SigningMode;
  /** ed25519: the public key that verifies its `v1a` signatures (`whpk_...`); else null. */
  publicKey: string | null;
  /** Where its notifications go: `url` is a webhook's, or the broker's (docs/api.md, Destinations). */
  kind: DestinationKind;
  /** A broker's topic, routing key or subject template; null for a webhook. */
  topic: string | null;
  /** AMQP's exchange; null for the other kinds. */
  exchange: string | null;
  /** Whether broker credentials are set (they are never returned). */
  hasCredentials: boolean;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * Whose registration: the caller's own account and its OAuth client, as REST and GraphQL
 * resolve them (src/http/caller.ts).
 */
export interface Caller {
  accountId: string;
  clientId: string;
}

export interface AttemptView {
  attempt: number;
  startedAt: Date;
  durationMs: number;
  outcome: AttemptOutcome;
  status: number | null;
  error: string | null;
  errorMessage: string | null;
  responseSnippet: string;
}

export interface DeliveryView {
  deliveryId: string;
  kind: 'event' | 'test';
  eventId: string | null;
  webhookId: string;
  eventType: string;
  eventData: unknown;
  state: DeliveryState;
  url: string;
  attemptCount: number;
  nextAttemptAt: Date | null;
  createdAt: Date;
  finishedAt: Date | null;
  /** A replay (replayNotifications): the delivery it replays; null: an original. */
  replayOf: string | null;
  attempts: AttemptView[];
}

/** What a replay of a time range queued. */
export interface ReplayView {
  queued: number;
  from: Date;
  to: Date;
  onlyFailed: boolean;
}

export interface DeliveryPage {
  deliveries: DeliveryView[];
  hasNextPage: boolean;
}

/** The REST form of a registration; the authKey is never part of it. */
export const registrationJson = (r: RegistrationView) => ({
  accountId: r.accountId,
  clientId: r.clientId,
  url: r.url,
  eventTypes: r.eventTypes,
  userData: r.userData,
  filter: r.filter,
  maxPerSecond: r.maxPerSecond,
  state: r.state,
  failingSince: r.failingSince?.toISOString() ?? null,
  disabledAt: r.disabledAt?.toISOString() ?? null,
  disabledReason: r.disabledReason,
  previousKeyUntil: r.previousKeyUntil?.toISOString() ?? null,
  signing: r.signing,
  publicKey: r.publicKey,
  kind: r.kind,
  topic: r.topic,
  exchange: r.exchange,
  hasCredentials: r.hasCredentials,
  createdAt: r.createdAt.toISOString(),
  updatedAt: r.updatedAt.toISOString(),
});

export interface RegistrationRow {
  account_id: string;
  client_id: string;
  url: string;
  event_types: string[];
  user_data: Record<string, unknown> | null;
  filter: string | null;
  max_per_second: number | null;
  failing_since: Date | null;
  disabled_at: Date | null;
  disabled_reason: string | null;
  previous_key_until: Date | null;
  public_key: string | null;
  destination: StoredDestination | null;
  created_at: Date;
  updated_at: Date;
}

/** The view of a registration at `now` (a rotation's overlap that has ended is not shown). */
export const registrationView = (row: RegistrationRow, now: Date): RegistrationView => ({
  accountId: row.account_id,
  clientId: row.client_id,
  url: row.url,
  eventTypes: row.event_types.filter(isEventType),
  userData: row.user_data,
  filter: row.filter,
  maxPerSecond: row.max_per_second,
  state: row.disabled_at === null ? 'active' : 'disabled',
  failingSince: row.failing_since,
  disabledAt: row.disabled_at,
  disabledReason: row.disabled_reason,
  previousKeyUntil: previousKeySigns(row.previous_key_until, now) ? row.previous_key_until : null,
  signing: row.public_key === null ? 'hmac-sha256' : 'ed25519',
  publicKey: row.public_key,
  kind: row.destination?.kind ?? 'webhook',
  topic: row.destination?.topic ?? null,
  exchange: row.destination?.exchange ?? null,
  hasCredentials: (row.destination?.credentials ?? null) !== null,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

export interface DeliveryRow {
  id: string;
  kind: 'event' | 'test';
  event_id: string | null;
  event_type: string;
  event_data: unknown;
  state: DeliveryState;
  url: string;
  attempt_count: number;
  next_attempt_at: Date;
  created_at: Date;
  finished_at: Date | null;
  replay_of: string | null;
}

export const deliveryColumns = (t = '') =>
  `${t}id::text AS id, ${t}kind, ${t}event_id::text AS event_id, ${t}event_type, ${t}event_data,
   ${t}state, ${t}url, ${t}attempt_count, ${t}next_attempt_at, ${t}created_at, ${t}finished_at,
   ${t}replay_of::text AS replay_of`;
export const DELIVERY_COLUMNS = deliveryColumns();

export const REGISTRATION_COLUMNS = `account_id, client_id, url, event_types, user_data, filter,
  max_per_second, failing_since, disabled_at, disabled_reason, previous_key_until, public_key,
  destination, created_at, updated_at`;

/** The views of these deliveries, each with its attempts in order (one query for all). */
export async function withAttempts(pool: pg.Pool, rows: DeliveryRow[]): Promise<DeliveryView[]> {
  if (rows.length === 0) return [];
  const { rows: attempts } = await pool.query<{
    delivery_id: string;
    attempt: number;
    started_at: Date;
    duration_ms: number;
    outcome: AttemptView['outcome'];
    status: number | null;
    error: string | null;
    error_message: string | null;
    response_snippet: string;
  }>(
    `SELECT delivery_id::text AS delivery_id, attempt, started_at, duration_ms, outcome, status,
            error, error_message, response_snippet
       FROM delivery_attempts WHERE delivery_id = ANY ($1::bigint[])
      ORDER BY delivery_attempts.delivery_id, attempt, delivery_attempts.id`,
    [rows.map((r) => r.id)],
  );
  const byDelivery = new Map<string, AttemptView[]>();
  for (const a of attempts) {
    const list = byDelivery.get(a.delivery_id) ?? [];
    list.push({
      attempt: a.attempt,
      startedAt: a.started_at,
      durationMs: a.duration_ms,
      outcome: a.outcome,
      status: a.status,
      error: a.error,
      errorMessage: a.error_message,
      responseSnippet: a.response_snippet,
    });
    byDelivery.set(a.delivery_id, list);
  }
  return rows.map((r) => ({
    deliveryId: r.id,
    kind: r.kind,
    eventId: r.event_id,
    webhookId: webhookIdOf(r),
    eventType: r.event_type,
    eventData: r.event_data,
    state: r.state,
    url: r.url,
    attemptCount: r.attempt_count,
    nextAttemptAt: r.state === 'pending' ? r.next_attempt_at : null,
    createdAt: r.created_at,
    finishedAt: r.finished_at,
    replayOf: r.replay_of,
    attempts: byDelivery.get(r.id) ?? [],
  }));
}
