import type { AccessoryService } from '../accessories/service.ts';
import type { WebhookConfig } from '../config.ts';
import type { RequestContext } from '../context.ts';
import { AppError, conflict, invalidArgument, notFound } from '../errors.ts';
import { recordEvents, type EventSignal } from '../events/outbox.ts';
import { isEventType, type EventType, type StoredEvent } from '../events/types.ts';
import type { Database } from '../storage/database.ts';
import { webhookIdOf, type DeliveryState } from './dispatcher.ts';
import { secretContext, type SecretBox } from './secrets.ts';
import { validateReceiverUrl } from './ssrf.ts';

export const MOTION_EVENT_TYPES: readonly EventType[] = ['motion_started', 'motion_ended'];
/** The eventType of sendTestNotification's deliveries; deliberately not an EventType. */
export const TEST_EVENT_TYPE = 'test_notification';
export const AUTH_KEY_MIN = 16;
export const AUTH_KEY_MAX = 256;
export const USER_DATA_MAX_BYTES = 4096;
export const MAX_DELIVERIES_PAGE = 100;

/** Delivery ids are the decimal form of a positive bigint. */
export const isDeliveryId = (value: string): boolean => /^\d{1,18}$/.test(value);

export interface RegistrationView {
  accountId: string;
  clientId: string;
  url: string;
  eventTypes: EventType[];
  userData: Record<string, unknown> | null;
  createdAt: Date;
  updatedAt: Date;
}

/** What PUT and registerNotifications take, before validation. */
export interface RegistrationInput {
  url: unknown;
  authKey: unknown;
  eventTypes: unknown;
  userData?: unknown;
}

export interface AttemptView {
  attempt: number;
  startedAt: Date;
  durationMs: number;
  outcome: 'accepted' | 'gone' | 'failed';
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

/** The REST form of a registration (api-contract 4.5); the authKey is never part of it. */
export const registrationJson = (r: RegistrationView) => ({
  accountId: r.accountId,
  clientId: r.clientId,
  url: r.url,
  eventTypes: r.eventTypes,
  userData: r.userData,
  createdAt: r.createdAt.toISOString(),
  updatedAt: r.updatedAt.toISOString(),
});

interface RegistrationRow {
  account_id: string;
  client_id: string;
  url: string;
  event_types: string[];
  user_data: Record<string, unknown> | null;
  created_at: Date;
  updated_at: Date;
}

const registrationView = (row: RegistrationRow): RegistrationView => ({
  accountId: row.account_id,
  clientId: row.client_id,
  url: row.url,
  eventTypes: row.event_types.filter(isEventType),
  userData: row.user_data,
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

const REGISTRATION_COLUMNS = `account_id, client_id, url, event_types, user_data, created_at, updated_at`;

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export interface CheckedRegistration {
  url: URL;
  authKey: string;
  eventTypes: EventType[];
  userData: Record<string, unknown> | null;
}

/**
 * Every validation of api-contract 4.5: 400s naming the field, then the 403 for motion types
 * without `notifications_motion`.
 */
export function checkRegistration(
  input: RegistrationInput,
  webhook: Pick<WebhookConfig, 'allowHttp' | 'allowPrivateNetworks'>,
  requireMotionScope: () => void,
): CheckedRegistration {
  const url = validateReceiverUrl(input.url, webhook);
  const { authKey, eventTypes, userData } = input;
  if (typeof authKey !== 'string') throw invalidArgument('authKey', 'authKey must be a string');
  const length = [...authKey].length;
  if (length < AUTH_KEY_MIN || length > AUTH_KEY_MAX) {
    throw invalidArgument('authKey', `authKey must be ${AUTH_KEY_MIN}..${AUTH_KEY_MAX} characters`);
  }
  if (!Array.isArray(eventTypes) || eventTypes.length === 0) {
    throw invalidArgument('eventTypes', 'eventTypes must be a non-empty list of event types');
  }
  const unknown = eventTypes.find((t) => !isEventType(t));
  if (unknown !== undefined) {
    throw invalidArgument(
      'eventTypes',
      `eventTypes: unknown event type ${JSON.stringify(unknown)}`,
    );
  }
  const repeated = eventTypes.find((t, i) => eventTypes.indexOf(t) !== i);
  if (repeated !== undefined) {
    throw invalidArgument('eventTypes', `eventTypes lists ${String(repeated)} more than once`);
  }
  if (userData !== undefined && userData !== null) {
    if (!isPlainObject(userData))
      throw invalidArgument('userData', 'userData must be a JSON object');
    if (Buffer.byteLength(JSON.stringify(userData)) > USER_DATA_MAX_BYTES) {
      throw invalidArgument(
        'userData',
        `userData must be at most ${USER_DATA_MAX_BYTES} bytes of JSON`,
      );
    }
  }
  const types = eventTypes as EventType[];
  if (types.some((t) => MOTION_EVENT_TYPES.includes(t))) requireMotionScope();
  return { url, authKey, eventTypes: types, userData: isPlainObject(userData) ? userData : null };
}

/** Registrations, the delivery log, redelivery and test sends: the caller's own, always. */
export class NotificationService {
  #wake: () => void = () => undefined;

  constructor(
    private readonly db: Database,
    private readonly webhook: WebhookConfig,
    private readonly secrets: SecretBox,
  ) {}

  /** Lets queued work wake the dispatcher (set once it exists). */
  onQueued(wake: () => void): void {
    this.#wake = wake;
  }

  /**
   * Creates or overwrites the caller's registration on its own account. Deliveries still pending
   * for the registration follow it to the new url and key. Committed before it returns.
   */
  async register(
    ctx: RequestContext,
    accountId: string,
    input: RegistrationInput,
  ): Promise<RegistrationView> {
    const account = await ctx.ownAccount(accountId);
    const checked = checkRegistration(input, this.webhook, () =>
      ctx.require('notifications_motion'),
    );
    const clientId = ctx.principal.clientId;
    const sealed = this.secrets.seal(checked.authKey, secretContext(account.accountId, clientId));
    try {
      const { rows } = await this.db.pool.query<RegistrationRow>(
        `WITH reg AS (
           INSERT INTO notification_registrations AS r
                  (account_id, client_id, url, origin, auth_key, event_types, user_data)
           VALUES ($1, $2, $3, $4, $5, $6::text[], $7::jsonb)
           ON CONFLICT (account_id, client_id) DO UPDATE
              SET url = EXCLUDED.url, origin = EXCLUDED.origin, auth_key = EXCLUDED.auth_key,
                  event_types = EXCLUDED.event_types, user_data = EXCLUDED.user_data,
                  updated_at = now()
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
          account.accountId,
          clientId,
          checked.url.href,
          checked.url.origin,
          sealed,
          checked.eventTypes,
          checked.userData === null ? null : JSON.stringify(checked.userData),
        ],
      );
      return registrationView(rows[0]!);
    } catch (err) {
      // The account was deleted meanwhile.
      if ((err as { code?: string }).code === '23503') throw notFound('account');
      throw err;
    }
  }

  async get(ctx: RequestContext, accountId: string): Promise<RegistrationView | null> {
    const account = await ctx.ownAccount(accountId);
    const { rows } = await this.db.pool.query<RegistrationRow>(
      `SELECT ${REGISTRATION_COLUMNS} FROM notification_registrations
        WHERE account_id = $1 AND client_id = $2`,
      [account.accountId, ctx.principal.clientId],
    );
    return rows[0] ? registrationView(rows[0]) : null;
  }

  /** Removes the caller's registration and drops what is still queued for it; false if none. */
  async unregister(ctx: RequestContext, accountId: string): Promise<boolean> {
    const account = await ctx.ownAccount(accountId);
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
      [account.accountId, ctx.principal.clientId],
    );
    return (rows[0]?.n ?? 0) > 0;
  }

  /** The caller's deliveries on its account, newest first, each with its attempts. */
  async deliveries(
    ctx: RequestContext,
    accountId: string,
    first: number,
    after: string | undefined,
  ): Promise<DeliveryPage> {
    const account = await ctx.ownAccount(accountId);
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
      [account.accountId, ctx.principal.clientId, after ?? null, first + 1],
    );
    const page = rows.slice(0, first);
    return { deliveries: await this.#withAttempts(page), hasNextPage: rows.length > first };
  }

  /**
   * The caller's deliveries of these ids, in their order, each with its attempts; null for one
   * that does not exist or belongs to another account or client.
   */
  async deliveriesById(
    ctx: RequestContext,
    deliveryIds: readonly string[],
  ): Promise<(DeliveryView | null)[]> {
    const account = await ctx.account();
    const wanted = deliveryIds.filter(isDeliveryId);
    if (!account || wanted.length === 0) return deliveryIds.map(() => null);
    const { rows } = await this.db.pool.query<DeliveryRow>(
      `SELECT ${DELIVERY_COLUMNS} FROM deliveries
        WHERE id = ANY ($3::bigint[]) AND account_id = $1 AND client_id = $2`,
      [account.accountId, ctx.principal.clientId, wanted],
    );
    const found = new Map((await this.#withAttempts(rows)).map((d) => [d.deliveryId, d]));
    return deliveryIds.map((id) => found.get(id) ?? null);
  }

  /**
   * Queues a finished delivery again, to the registration as it is now (its url, key and
   * userData), for a full round of attempts. Pending or delivered ones: 409.
   */
  async redeliver(ctx: RequestContext, deliveryId: string): Promise<DeliveryView> {
    const account = await ctx.ownAccount();
    const clientId = ctx.principal.clientId;
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
      [account.accountId, clientId, deliveryId],
    );
    if (rows[0]) {
      this.#wake();
      return (await this.#withAttempts(rows))[0]!;
    }
    const { rows: existing } = await this.db.pool.query<{ state: DeliveryState }>(
      `SELECT state FROM deliveries WHERE id = $3::bigint AND account_id = $1 AND client_id = $2`,
      [account.accountId, clientId, deliveryId],
    );
    const state = existing[0]?.state;
    if (state === undefined) throw notFound('delivery');
    if (state === 'pending') throw conflict('the delivery is still pending');
    if (state === 'delivered') throw conflict('the delivery was accepted by the receiver');
    throw notFound('registration');
  }

  /** Queues a `test_notification` to the caller's registration, sent like any other. */
  async sendTest(ctx: RequestContext, accountId: string): Promise<DeliveryView> {
    const account = await ctx.ownAccount(accountId);
    const { rows } = await this.db.pool.query<DeliveryRow>(
      `INSERT INTO deliveries (kind, account_id, client_id, event_type, event_data, user_data,
                               url, origin, auth_key)
       SELECT 'test', account_id, client_id, $3, '{}'::jsonb, user_data, url, origin, auth_key
         FROM notification_registrations WHERE account_id = $1 AND client_id = $2
       RETURNING ${DELIVERY_COLUMNS}`,
      [account.accountId, ctx.principal.clientId, TEST_EVENT_TYPE],
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

export type MotionState = 'started' | 'ended';

const ZONE_ID = /^z[1-5R]$/;

/**
 * Ingest: the camera saw motion start or end. Records `motion_started` / `motion_ended` (and
 * queues its deliveries) without touching any activity.
 */
export async function reportMotion(
  deps: { db: Database; accessories: AccessoryService; signal: EventSignal },
  args: { accessoryId: string; state: MotionState; at: Date; motionZones: string[] },
): Promise<StoredEvent> {
  const { accessoryId, state, at, motionZones } = args;
  if (motionZones.length > 6 || !motionZones.every((z) => ZONE_ID.test(z))) {
    throw invalidArgument('motionZones', 'motionZones holds zone ids z1..z5 and zR');
  }
  if (new Set(motionZones).size !== motionZones.length) {
    throw invalidArgument('motionZones', 'motionZones lists a zone more than once');
  }
  if (Number.isNaN(at.getTime())) throw invalidArgument('at', 'at must be a timestamp');
  const accessory = await deps.accessories.get(accessoryId);
  if (!accessory) throw notFound('accessory');
  const stored = await deps.db.prisma.$transaction((tx) =>
    recordEvents(tx, [
      {
        accountId: accessory.accountId,
        accessoryId,
        eventType: state === 'started' ? 'motion_started' : 'motion_ended',
        eventData: { accessoryId, motionZones, timestamp: at.toISOString() },
      },
    ]),
  );
  deps.signal.committed(stored);
  const [event] = stored;
  if (!event) throw new AppError('INTERNAL', 'the event was not recorded');
  return event;
}
