import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import type { Clock } from '../clock.ts';
import type { WebhookConfig } from '../config.ts';
import { conflict, invalidArgument, notFound, permissionDenied } from '../errors.ts';
import { isBigintId } from '../ids.ts';
import { recordEvents, type EventSignal } from '../events/outbox.ts';
import type { NewEvent } from '../events/types.ts';
import { inTransaction, sqlTx, type Database } from '../storage/database.ts';
import { currentTraceparent } from '../telemetry/tracing.ts';
import {
  checkRegistration,
  checkReplay,
  checkRotation,
  MOTION_EVENT_TYPES,
  type RegistrationInput,
  type ReplayInput,
  type ReplayRange,
  type RotationInput,
} from './registration.ts';
import type { DeliveryState } from './delivery/policy.ts';
import { dropPending } from './delivery/queue/drop-pending.ts';
import { enqueueTest } from './delivery/queue/enqueue-test.ts';
import { requeueFinished } from './delivery/queue/redeliver.ts';
import {
  endReplay,
  takeReplayTurn,
  rangeOriginals,
  REPLAY_STEP,
  replayOriginals,
  type RangeOriginal,
} from './delivery/queue/replay.ts';
import { retargetPending } from './delivery/queue/retarget.ts';
import { secretContext, type SecretBox } from './secrets.ts';
import { originOf, type StoredDestination } from './destinations/destination.ts';
import { generateSigningKeyPair } from './signing.ts';
import {
  DELIVERY_COLUMNS,
  REGISTRATION_COLUMNS,
  registrationView,
  withAttempts,
  type Caller,
  type DeliveryPage,
  type DeliveryRow,
  type DeliveryView,
  type RegistrationRow,
  type RegistrationView,
  type ReplayView,
} from './views.ts';

/** The eventType of sendTestNotification's deliveries; deliberately not an EventType. */
export const TEST_EVENT_TYPE = 'test_notification';
export const MAX_DELIVERIES_PAGE = 100;
/** A generated key: 32 random bytes, as base64url (43 characters). */
const GENERATED_KEY_BYTES = 32;

/** What enabling a registration sets (re-registering, `enable`): active, no failures counted. */
const ENABLED = 'disabled_at = NULL, disabled_reason = NULL, failing_since = NULL';

/**
 * The `receiver_enabled` event of a registration that a change enabled (none when it was not
 * disabled): `cause` is `enable` (the enable operation) or `register` (registered again).
 */
function enabledEvents(
  row: RegistrationRow,
  wasDisabledAt: Date | null,
  cause: 'enable' | 'register',
): NewEvent[] {
  if (wasDisabledAt === null || row.disabled_at !== null) return [];
  return [
    {
      accountId: row.account_id,
      accessoryId: null,
      eventType: 'receiver_enabled',
      eventData: {
        clientId: row.client_id,
        url: row.url,
        disabledAt: wasDisabledAt.toISOString(),
        enabledAt: new Date().toISOString(),
        cause,
      },
    },
  ];
}

const replayRunning = () =>
  conflict(
    'another replay of this registration is still running: wait for its answer, then replay what is left',
  );

/** Registrations, the delivery log, redelivery and test sends: the caller's own, always. */
export class NotificationService {
  #wake: () => void = () => undefined;
  /** The registrations (account and client) this instance is replaying for. */
  readonly #replaying = new Set<string>();

  /**
   * `motionScope`: the full name of the scope motion types need, named by their 403. `signal`
   * hears of the `receiver_enabled` events that enabling records. `clock` dates the end of a
   * rotation's overlap (the dispatcher reads the same clock).
   */
  constructor(
    private readonly db: Database,
    private readonly webhook: WebhookConfig,
    private readonly secrets: SecretBox,
    private readonly motionScope: string,
    private readonly signal: EventSignal,
    private readonly clock: Clock,
  ) {}

  /** Lets queued work wake the dispatcher (set once it exists). */
  onQueued(wake: () => void): void {
    this.#wake = wake;
  }

  /**
   * Creates or overwrites the caller's registration. Deliveries still pending for the
   * registration follow it to the new url and key. A disabled registration is enabled again
   * (its failures forgotten, a `receiver_enabled` event recorded). Committed before it returns. The input is checked first (400s),
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
    const context = secretContext(caller.accountId, caller.clientId);
    const pair = checked.signing === 'ed25519' ? generateSigningKeyPair() : null;
    const { broker } = checked;
    const destination: StoredDestination | null = broker && {
      kind: broker.kind,
      topic: broker.topic,
      exchange: broker.exchange,
      credentials:
        broker.credentials && this.secrets.seal(JSON.stringify(broker.credentials), context),
    };
    const target = {
      ...caller,
      url: checked.url.href,
      origin: originOf(checked.url),
      sealedKey: this.secrets.seal(checked.authKey, context),
      userData: checked.userData === null ? null : JSON.stringify(checked.userData),
      sealedSigningKey: pair && this.secrets.seal(pair.privateKey, context),
      publicKey: pair?.publicKey ?? null,
    };
    try {
      return await this.#enabling(caller, 'register', async (client) => {
        // Saving switches the key at once: a rotation's previous keys sign no more. An ed25519
        // registration saved again as ed25519 keeps its key pair (its receivers hold the public
        // key); one that switches to it gets the new pair, one that leaves it loses its pair.
        const { rows } = await client.query<RegistrationRow>(
          `INSERT INTO notification_registrations AS r
                  (account_id, client_id, url, origin, auth_key, event_types, user_data, filter,
                   max_per_second, signing_key, public_key, destination)
           VALUES ($1, $2, $3, $4, $5, $6::text[], $7::jsonb, $8, $9, $10, $11, $12::jsonb)
           ON CONFLICT (account_id, client_id) DO UPDATE
              SET url = EXCLUDED.url, origin = EXCLUDED.origin, auth_key = EXCLUDED.auth_key,
                  event_types = EXCLUDED.event_types, user_data = EXCLUDED.user_data,
                  filter = EXCLUDED.filter, max_per_second = EXCLUDED.max_per_second,
                  destination = EXCLUDED.destination,
                  signing_key = CASE WHEN EXCLUDED.signing_key IS NULL THEN NULL
                                     ELSE coalesce(r.signing_key, EXCLUDED.signing_key) END,
                  public_key = CASE WHEN EXCLUDED.public_key IS NULL THEN NULL
                                    ELSE coalesce(r.public_key, EXCLUDED.public_key) END,
                  previous_auth_key = NULL, previous_key_until = NULL,
                  previous_signing_key = NULL, updated_at = now(), ${ENABLED}
           RETURNING ${REGISTRATION_COLUMNS}`,
          [
            target.accountId,
            target.clientId,
            target.url,
            target.origin,
            target.sealedKey,
            checked.eventTypes,
            target.userData,
            checked.filter,
            checked.maxPerSecond,
            target.sealedSigningKey,
            target.publicKey,
            destination && JSON.stringify(destination),
          ],
        );
        await retargetPending(client, caller);
        return rows[0]!;
      });
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
    return rows[0] ? registrationView(rows[0], this.clock.now()) : null;
  }

  /**
   * Enables the caller's registration again after it was disabled (its failures forgotten, a
   * `receiver_enabled` event recorded); notifications of events from now on are sent. A
   * registration that is not disabled stays as it is. 404 without one.
   */
  async enable(caller: Caller): Promise<RegistrationView> {
    return this.#enabling(caller, 'enable', async (client) => {
      const { rows } = await client.query<RegistrationRow>(
        `UPDATE notification_registrations SET ${ENABLED}
          WHERE account_id = $1 AND client_id = $2
          RETURNING ${REGISTRATION_COLUMNS}`,
        [caller.accountId, caller.clientId],
      );
      if (!rows[0]) throw notFound('registration');
      return rows[0];
    });
  }

  /**
   * Runs a change of the caller's registration that may enable it, in one transaction with its
   * `receiver_enabled` event (when it was disabled before: its row is locked first to tell),
   * and reports the event once committed.
   */
  async #enabling(
    caller: Caller,
    cause: 'enable' | 'register',
    change: (client: pg.PoolClient) => Promise<RegistrationRow>,
  ): Promise<RegistrationView> {
    const { row, stored } = await inTransaction(this.db.pool, async (client) => {
      const { rows: before } = await client.query<{ disabled_at: Date | null }>(
        `SELECT disabled_at FROM notification_registrations
          WHERE account_id = $1 AND client_id = $2 FOR UPDATE`,
        [caller.accountId, caller.clientId],
      );
      const row = await change(client);
      const events = enabledEvents(row, before[0]?.disabled_at ?? null, cause);
      return { row, stored: await recordEvents(sqlTx(client), events) };
    });
    this.signal.committed(stored);
    return registrationView(row, this.clock.now());
  }

  /**
   * Rotates the key of the caller's registration to `authKey`, or to a generated one (answered
   * here, and never again), and an ed25519 registration's key pair to a new one. For
   * `overlapSeconds` (default a day) the previous keys sign too, every attempt then, retries of
   * what was queued before included; 0 switches at once. A rotation during another's overlap
   * replaces it: the keys before the current ones sign no more. 404 without a registration.
   */
  async rotate(
    caller: Caller,
    input: RotationInput,
  ): Promise<{ registration: RegistrationView; generatedAuthKey: string | null }> {
    const checked = checkRotation(input);
    const generatedAuthKey =
      checked.authKey === null ? randomBytes(GENERATED_KEY_BYTES).toString('base64url') : null;
    const context = secretContext(caller.accountId, caller.clientId);
    const sealedKey = this.secrets.seal(checked.authKey ?? generatedAuthKey!, context);
    // Used only when the registration signs with ed25519 (the statement tells).
    const pair = generateSigningKeyPair();
    const until =
      checked.overlapSeconds === 0
        ? null
        : new Date(this.clock.now().getTime() + checked.overlapSeconds * 1000);
    // On the right of SET, the keys are those before this statement: they become the previous.
    const row = await this.#rekeying(
      caller,
      `SET previous_auth_key = CASE WHEN $4::timestamptz IS NULL THEN NULL ELSE auth_key END,
           previous_signing_key = CASE WHEN $4::timestamptz IS NULL THEN NULL ELSE signing_key END,
           previous_key_until = $4::timestamptz, auth_key = $3,
           signing_key = CASE WHEN signing_key IS NULL THEN NULL ELSE $5 END,
           public_key = CASE WHEN signing_key IS NULL THEN NULL ELSE $6 END, updated_at = now()`,
      [sealedKey, until, this.secrets.seal(pair.privateKey, context), pair.publicKey],
    );
    return { registration: registrationView(row, this.clock.now()), generatedAuthKey };
  }

  /**
   * Ends the overlap of the caller's last rotation now: only the current key signs from the next
   * attempt on. Nothing changes without one. 404 without a registration.
   */
  async retirePreviousKey(caller: Caller): Promise<RegistrationView> {
    const row = await this.#rekeying(
      caller,
      `SET previous_auth_key = NULL, previous_signing_key = NULL, previous_key_until = NULL,
           updated_at = CASE WHEN previous_auth_key IS NULL THEN updated_at ELSE now() END`,
      [],
    );
    return registrationView(row, this.clock.now());
  }

  /**
   * Changes the keys of the caller's registration (`set`, with parameters from $3 on) and of
   * what is pending for it, in one transaction; 404 without a registration.
   */
  async #rekeying(caller: Caller, set: string, values: unknown[]): Promise<RegistrationRow> {
    return inTransaction(this.db.pool, async (client) => {
      const { rows } = await client.query<RegistrationRow>(
        `UPDATE notification_registrations ${set}
          WHERE account_id = $1 AND client_id = $2
          RETURNING ${REGISTRATION_COLUMNS}`,
        [caller.accountId, caller.clientId, ...values],
      );
      if (!rows[0]) throw notFound('registration');
      await retargetPending(client, caller);
      return rows[0];
    });
  }

  /** Removes the caller's registration and drops what is still queued for it; false if none. */
  async unregister(caller: Caller): Promise<boolean> {
    return inTransaction(this.db.pool, async (client) => {
      const { rowCount } = await client.query(
        'DELETE FROM notification_registrations WHERE account_id = $1 AND client_id = $2',
        [caller.accountId, caller.clientId],
      );
      if (!rowCount) return false;
      await dropPending(client, caller);
      return true;
    });
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
    if (after !== undefined && !isBigintId(after)) {
      throw invalidArgument('after', 'after must be a cursor of this connection');
    }
    const { rows } = await this.db.pool.query<DeliveryRow>(
      `SELECT ${DELIVERY_COLUMNS} FROM deliveries
        WHERE account_id = $1 AND client_id = $2 AND ($3::bigint IS NULL OR id < $3::bigint)
        ORDER BY deliveries.id DESC LIMIT $4`,
      [caller.accountId, caller.clientId, after ?? null, first + 1],
    );
    const page = rows.slice(0, first);
    return { deliveries: await withAttempts(this.db.pool, page), hasNextPage: rows.length > first };
  }

  /**
   * The caller's deliveries of these ids, in their order, each with its attempts; null for one
   * that does not exist or belongs to another account or client.
   */
  async deliveriesById(
    caller: Caller,
    deliveryIds: readonly string[],
  ): Promise<(DeliveryView | null)[]> {
    const wanted = deliveryIds.filter(isBigintId);
    if (wanted.length === 0) return deliveryIds.map(() => null);
    const { rows } = await this.db.pool.query<DeliveryRow>(
      `SELECT ${DELIVERY_COLUMNS} FROM deliveries
        WHERE id = ANY ($3::bigint[]) AND account_id = $1 AND client_id = $2`,
      [caller.accountId, caller.clientId, wanted],
    );
    const found = new Map((await withAttempts(this.db.pool, rows)).map((d) => [d.deliveryId, d]));
    return deliveryIds.map((id) => found.get(id) ?? null);
  }

  /**
   * Queues a finished delivery again, to the registration as it is now (its url, key and
   * userData), for a full round of attempts. Pending or delivered ones: 409.
   */
  async redeliver(caller: Caller, deliveryId: string): Promise<DeliveryView> {
    const { accountId, clientId } = caller;
    if (!isBigintId(deliveryId)) throw notFound('delivery');
    const requeued = await requeueFinished(this.db.pool, caller, deliveryId);
    if (requeued) {
      this.#wake();
      return (await withAttempts(this.db.pool, [requeued]))[0]!;
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

  /**
   * Queues the caller's events of [from, to) again (delivery/queue/replay.ts): all that are not
   * pending, or with `onlyFailed` those whose last delivery did not get through. A range holding
   * more than WEBHOOK_REPLAY_MAX notifications (in any state): a 400 naming the bound, answered
   * after reading one more than it. One replay of a registration at a time, on every instance: a
   * second is a 409. 404 without a registration. It runs in steps of REPLAY_STEP, each a statement
   * of its own, no transaction held: the range's pages, then what they found to queue. Once
   * `signal` aborts (the caller went away) it stops at the next step: what it had not queued yet
   * is not queued.
   */
  async replay(caller: Caller, input: ReplayInput, signal?: AbortSignal): Promise<ReplayView> {
    const range = checkReplay(input);
    // A second replay of the registration on this instance is refused without a statement;
    // across instances, by the registration's turn.
    const key = `${caller.accountId} ${caller.clientId}`;
    if (this.#replaying.has(key)) throw replayRunning();
    this.#replaying.add(key);
    try {
      const stillWanted = () => {
        if (signal?.aborted) throw conflict('the replay was cancelled: its request went away');
      };
      stillWanted();
      const turn = await takeReplayTurn(this.db.pool, caller);
      if (turn === 'unregistered') throw notFound('registration');
      if (turn === 'running') throw replayRunning();
      let queued = 0;
      try {
        const originals = await this.#replayable(caller, range, stillWanted);
        // Queued again in the order they were first queued, a step at a time.
        const traceparent = currentTraceparent();
        for (let i = 0; i < originals.length; i += REPLAY_STEP) {
          stillWanted();
          queued += await replayOriginals(
            this.db.pool,
            caller,
            range.onlyFailed,
            originals.slice(i, i + REPLAY_STEP),
            traceparent,
            this.webhook.replayRate,
          );
        }
      } finally {
        if (queued > 0) this.#wake();
        await endReplay(this.db.pool, caller);
      }
      return { queued, ...range };
    } finally {
      this.#replaying.delete(key);
    }
  }

  /**
   * The originals of the caller's range that a replay queues again now, in the order they were
   * first queued: read a page at a time, refused as soon as the range holds more than
   * WEBHOOK_REPLAY_MAX (in any state).
   */
  async #replayable(
    caller: Caller,
    range: ReplayRange,
    stillWanted: () => void,
  ): Promise<string[]> {
    const max = this.webhook.replayMax;
    let count = 0;
    const wanted: bigint[] = [];
    let page: RangeOriginal[] = [];
    do {
      stillWanted();
      page = await rangeOriginals(this.db.pool, caller, range, page.at(-1) ?? null, REPLAY_STEP);
      count += page.length;
      if (count > max) {
        throw invalidArgument(
          'from',
          `the range ${range.from.toISOString()}..${range.to.toISOString()} holds more than ${max} notifications, more than one replay takes: split it`,
          { max },
        );
      }
      for (const o of page) if (o.replayable) wanted.push(BigInt(o.id));
    } while (page.length === REPLAY_STEP);
    return wanted.sort((a, b) => (a < b ? -1 : 1)).map(String);
  }

  /** Queues a `test_notification` to the caller's registration, sent like any other. */
  async sendTest(caller: Caller): Promise<DeliveryView> {
    const queued = await enqueueTest(this.db.pool, caller, TEST_EVENT_TYPE, currentTraceparent());
    if (!queued) throw notFound('registration');
    this.#wake();
    return (await withAttempts(this.db.pool, [queued]))[0]!;
  }
}
