import type { WebhookConfig } from '../config.ts';
import { conflict, invalidArgument, notFound, permissionDenied } from '../errors.ts';
import { isEventType, type EventType } from '../events/types.ts';
import type { Database } from '../storage/database.ts';
import { currentTraceparent } from '../telemetry/tracing.ts';
import { webhookIdOf, type AttemptOutcome, type DeliveryState } from './delivery/policy.ts';
import { checkRegistration, MOTION_EVENT_TYPES, type RegistrationInput } from './registration.ts';
import { secretContext, type SecretBox } from './secrets.ts';

/** The eventType of sendTestNotification's deliveries; deliberately not an EventType. */
export const TEST_EVENT_TYPE = 'test_notification';
export const MAX_DELIVERIES_PAGE = 100;

/** Delivery ids are the decimal form of a positive bigint. */
export const isDeliveryId = (value: string): boolean => /^\d{1,18}$/.test(value);

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
  createdAt: Date;
  updatedAt: Date;
}

/**
 * Whose registration: the caller's own account and its OAuth client, as REST and GraphQL
 * resolve them (caller.ts).
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
  attempts: AttemptView[];
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
  createdAt: r.createdAt.toISOString(),
  updatedAt: r.updatedAt.toISOString(),
});

interface RegistrationRow {
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
  created_at: Date;
  updated_at: Date;
}

const registrationView = (row: RegistrationRow): RegistrationView => ({
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
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

interface DeliveryRow {
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
}

const deliveryColumns = (t = '') =>
  `${t}id::text AS id, ${t}kind, ${t}event_id::text AS event_id, ${t}event_type, ${t}event_data,
   ${t}state, ${t}url, ${t}attempt_count, ${t}next_attempt_at, ${t}created_at, ${t}finished_at`;
const DELIVERY_COLUMNS = deliveryColumns();

const REGISTRATION_COLUMNS = `account_id, client_id, url, event_types, user_data, filter,
  max_per_second, failing_since, disabled_at, disabled_reason, created_at, updated_at`;

/** What enabling a registration sets (re-registering, `enable`): active, no failures counted. */
const ENABLED = 'disabled_at = NULL, disabled_reason = NULL, failing_since = NULL';

/** Registrations, the delivery log, redelivery and test sends: the caller's own, always. */
export class NotificationService {
  #wake: () => void = () => undefined;

  /** `motionScope`: the full name of the scope motion types need, named by their 403. */
  constructor(
    private readonly db: Database,
    private readonly webhook: WebhookConfig,
    private readonly secrets: SecretBox,
    private readonly motionScope: string,
  ) {}

  /** Lets queued work wake the dispatcher (set once it exists). */
  onQueued(wake: () => void): void {
    this.#wake = wake;
  }

  /**
   * Creates or overwrites the caller's registration. Deliveries still pending for the
   * registration follow it to the new url and key. A disabled registration is enabled again
   * (its failures forgotten). Committed before it returns. The input is checked first (400s),
   * then motion types need `motionAllowed` (403).
   */
  async register(
    caller: Caller,
    input: RegistrationInput,
    motionAllowed: boolean,
  ): Promise<RegistrationView> {
    const checked = checkRegistration(input, this.webhook);
    if (!motionAllowed && checked.eventTypes.some((t) => MOTION_EVENT_TYPES.includes(t))) {
      throw permissionDenied(this.motionScope);
    }
    const { accountId, clientId } = caller;
    const sealed = this.secrets.seal(checked.authKey, secretContext(accountId, clientId));
    try {
      const { rows } = await this.db.pool.query<RegistrationRow>(
        `WITH reg AS (
           INSERT INTO notification_registrations AS r
                  (account_id, client_id, url, origin, auth_key, event_types, user_data, filter,
                   max_per_second)
           VALUES ($1, $2, $3, $4, $5, $6::text[], $7::jsonb, $8, $9)
           ON CONFLICT (account_id, client_id) DO UPDATE
              SET url = EXCLUDED.url, origin = EXCLUDED.origin, auth_key = EXCLUDED.auth_key,
                  event_types = EXCLUDED.event_types, user_data = EXCLUDED.user_data,
                  filter = EXCLUDED.filter, max_per_second = EXCLUDED.max_per_second,
                  updated_at = now(), ${ENABLED}
           RETURNING *
         ), retarget AS (
           UPDATE deliveries d
              SET url = reg.url, origin = reg.origin, auth_key = reg.auth_key,
                  user_data = reg.user_data
             FROM reg
            WHERE d.account_id = reg.account_id AND d.client_id = reg.client_id
              AND d.state = 'pending'
         )
         SELECT ${REGISTRATION_COLUMNS} FROM reg`,
        [
          accountId,
          clientId,
          checked.url.href,
          checked.url.origin,
          sealed,
          checked.eventTypes,
          checked.userData === null ? null : JSON.stringify(checked.userData),
          checked.filter,
          checked.maxPerSecond,
        ],
      );
      return registrationView(rows[0]!);
    } catch (err) {
      // The account was deleted meanwhile.
      if ((err as { code?: string }).code === '23503') throw notFound('account');
      throw err;
    }
  }

  async get(caller: Caller): Promise<RegistrationView | null> {
    const { rows } = await this.db.pool.query<RegistrationRow>(
      `SELECT ${REGISTRATION_COLUMNS} FROM notification_registrations
        WHERE account_id = $1 AND client_id = $2`,
      [caller.accountId, caller.clientId],
    );
    return rows[0] ? registrationView(rows[0]) : null;
  }

  /**
   * Enables the caller's registration again after it was disabled (its failures forgotten);
   * notifications of events from now on are sent. A registration that is not disabled stays as
   * it is. 404 without one.
   */
  async enable(caller: Caller): Promise<RegistrationView> {
    const { rows } = await this.db.pool.query<RegistrationRow>(
      `UPDATE notification_registrations SET ${ENABLED}
        WHERE account_id = $1 AND client_id = $2
        RETURNING ${REGISTRATION_COLUMNS}`,
      [caller.accountId, caller.clientId],
    );
    if (!rows[0]) throw notFound('registration');
    return registrationView(rows[0]);
  }

  /** Removes the caller's registration and drops what is still queued for it; false if none. */
  async unregister(caller: Caller): Promise<boolean> {
    const { rows } = await this.db.pool.query<{ n: number }>(
      `WITH removed AS (
         DELETE FROM notification_registrations WHERE account_id = $1 AND client_id = $2
         RETURNING 1
       ), dropped AS (
         UPDATE deliveries SET state = 'dropped', finished_at = now()
          WHERE account_id = $1 AND client_id = $2 AND state = 'pending'
            AND EXISTS (SELECT 1 FROM removed)
       )
       SELECT count(*)::int AS n FROM removed`,
      [caller.accountId, caller.clientId],
    );
    return (rows[0]?.n ?? 0) > 0;
  }

  /** The caller's deliveries on its account, newest first, each with its attempts. */
  async deliveries(
    caller: Caller,
    first: number,
    after: string | undefined,
  ): Promise<DeliveryPage> {
    if (!Number.isInteger(first) || first < 1 || first > MAX_DELIVERIES_PAGE) {
      throw invalidArgument('first', `first must be 1..${MAX_DELIVERIES_PAGE}`);
    }
    if (after !== undefined && !isDeliveryId(after)) {
      throw invalidArgument('after', 'after must be a cursor of this connection');
    }
    const { rows } = await this.db.pool.query<DeliveryRow>(
      `SELECT ${DELIVERY_COLUMNS} FROM deliveries
        WHERE account_id = $1 AND client_id = $2 AND ($3::bigint IS NULL OR id < $3::bigint)
        ORDER BY deliveries.id DESC LIMIT $4`,
      [caller.accountId, caller.clientId, after ?? null, first + 1],
    );
    const page = rows.slice(0, first);
    return { deliveries: await this.#withAttempts(page), hasNextPage: rows.length > first };
  }

  /**
   * The caller's deliveries of these ids, in their order, each with its attempts; null for one
   * that does not exist or belongs to another account or client.
   */
  async deliveriesById(
    caller: Caller,
    deliveryIds: readonly string[],
  ): Promise<(DeliveryView | null)[]> {
    const wanted = deliveryIds.filter(isDeliveryId);
    if (wanted.length === 0) return deliveryIds.map(() => null);
    const { rows } = await this.db.pool.query<DeliveryRow>(
      `SELECT ${DELIVERY_COLUMNS} FROM deliveries
        WHERE id = ANY ($3::bigint[]) AND account_id = $1 AND client_id = $2`,
      [caller.accountId, caller.clientId, wanted],
    );
    const found = new Map((await this.#withAttempts(rows)).map((d) => [d.deliveryId, d]));
    return deliveryIds.map((id) => found.get(id) ?? null);
  }

  /**
   * Queues a finished delivery again, to the registration as it is now (its url, key and
   * userData), for a full round of attempts. Pending or delivered ones: 409.
   */
  async redeliver(caller: Caller, deliveryId: string): Promise<DeliveryView> {
    const { accountId, clientId } = caller;
    if (!isDeliveryId(deliveryId)) throw notFound('delivery');
    const { rows } = await this.db.pool.query<DeliveryRow>(
      `UPDATE deliveries d
          SET state = 'pending', round_attempts = 0, next_attempt_at = now(), finished_at = NULL,
              lease_until = NULL, leased_by = NULL,
              url = r.url, origin = r.origin, auth_key = r.auth_key, user_data = r.user_data
         FROM notification_registrations r
        WHERE d.id = $3::bigint AND d.account_id = $1 AND d.client_id = $2
          AND r.account_id = $1 AND r.client_id = $2
          AND d.state IN ('discarded', 'gone', 'dropped')
        RETURNING ${deliveryColumns('d.')}`,
      [accountId, clientId, deliveryId],
    );
    if (rows[0]) {
      this.#wake();
      return (await this.#withAttempts(rows))[0]!;
    }
    const { rows: existing } = await this.db.pool.query<{ state: DeliveryState }>(
      `SELECT state FROM deliveries WHERE id = $3::bigint AND account_id = $1 AND client_id = $2`,
      [accountId, clientId, deliveryId],
    );
    const state = existing[0]?.state;
    if (state === undefined) throw notFound('delivery');
    if (state === 'pending') throw conflict('the delivery is still pending');
    if (state === 'delivered') throw conflict('the delivery was accepted by the receiver');
    throw notFound('registration');
  }

  /** Queues a `test_notification` to the caller's registration, sent like any other. */
  async sendTest(caller: Caller): Promise<DeliveryView> {
    const { rows } = await this.db.pool.query<DeliveryRow>(
      `INSERT INTO deliveries (kind, account_id, client_id, event_type, event_data, user_data,
                               url, origin, auth_key, traceparent)
       SELECT 'test', account_id, client_id, $3, '{}'::jsonb, user_data, url, origin, auth_key, $4
         FROM notification_registrations WHERE account_id = $1 AND client_id = $2
       RETURNING ${DELIVERY_COLUMNS}`,
      [caller.accountId, caller.clientId, TEST_EVENT_TYPE, currentTraceparent()],
    );
    if (!rows[0]) throw notFound('registration');
    this.#wake();
    return (await this.#withAttempts(rows))[0]!;
  }

  async #withAttempts(rows: DeliveryRow[]): Promise<DeliveryView[]> {
    if (rows.length === 0) return [];
    const { rows: attempts } = await this.db.pool.query<{
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
      attempts: byDelivery.get(r.id) ?? [],
    }));
  }
}
