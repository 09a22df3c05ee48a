import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { WebhookConfig } from '../config.ts';
import { queuedDeliveries, type EventSignal } from '../events/outbox.ts';
import type { Metrics, WebhookQueueStats } from '../http/metrics.ts';
import { deleteInBatches } from '../jobs/batches.ts';
import type { Logger } from '../logger.ts';
import type { Database } from '../storage/database.ts';
import { secretContext, type SecretBox } from './secrets.ts';
import { createSender, type AttemptResult, type Sender } from './sender.ts';

/**
 * The webhook dispatcher: claims due deliveries from the `deliveries` queue, sends each attempt,
 * records it in the delivery log and schedules the retry. See docs/decisions.md, "Notifications".
 *
 * - Claim: one statement, `FOR UPDATE SKIP LOCKED` over the due, unleased (or lease-expired)
 *   pending deliveries, setting a lease longer than an attempt can take. Two instances never
 *   hold the same delivery; a delivery whose instance died is claimed again once its lease has
 *   expired (at least once: the receiver may see that attempt twice, with the same webhook-id).
 * - The lease is fenced by `attempt_count`: an outcome is written only by the instance holding
 *   the lease of that attempt.
 * - No transaction is held while sending: the claim and the outcome are single statements.
 * - Per-receiver limit: at most `maxInFlightPerReceiver` attempts in flight per receiver origin
 *   (scheme://host:port) in this instance, and `maxInFlight` in all; a saturated origin is left
 *   out of the claim, so a slow or dead receiver only ever occupies its own slots. For a receiver
 *   that answers fast, a few slots' worth are claimed ahead (prefetched) and start as slots
 *   free, so that its slots do not wait for claims; a prefetched delivery that waited longer than
 *   PREFETCH_MAX_AGE_MS is handed back unsent.
 * - A slot is released when its HTTP attempt ends; the delivery stays leased until its outcome
 *   is written (in batches), so nothing else claims it meanwhile.
 * - Wake-up: at once on a local commit (EventSignal), on a PostgreSQL NOTIFY from another
 *   instance, when an attempt ends, at the next due retry, and at least every `pollIntervalMs`.
 */
export interface DispatcherOptions {
  db: Database;
  webhook: WebhookConfig;
  secrets: SecretBox;
  logger: Logger;
  signal: EventSignal;
  metrics?: Metrics;
  maxInFlight?: number;
  maxInFlightPerReceiver?: number;
  pollIntervalMs?: number;
  userAgent?: string;
}

export const NOTIFY_CHANNEL = 'clipgate_deliveries';
const CLAIM_BATCH = 100;
/** How long reading the response snippet may take beyond the budget (see sender.ts). */
const SNIPPET_READ_MS = 1000;
const RESULT_BATCH = 500;
const STATS_CACHE_MS = 1000;
const ANALYZE_EVERY = 2000;
const ANALYZE_MIN_INTERVAL_MS = 2000;

/** The longest one attempt can take: the budget, then reading the response snippet. */
const attemptMaxMs = (timeoutMs: number) => timeoutMs + SNIPPET_READ_MS;
/** Room to write an outcome after the attempt. */
const RECORD_MARGIN_MS = 2000;

/**
 * A prefetched delivery older than this is handed back rather than started: it bounds how long
 * a claimed delivery waits for a slot (see leaseMs), and how late a change of its registration
 * (unregistered, re-registered) can go unseen.
 */
const PREFETCH_MAX_AGE_MS = 1000;
/** Receivers answering faster than this on average get deliveries prefetched for them. */
const PREFETCH_FAST_MS = 250;
/** How many slots' worth a fast receiver may have prefetched, beyond those in flight. */
const PREFETCH_SLOTS = 3;

/**
 * The lease of a claimed delivery: it may wait (prefetched) up to PREFETCH_MAX_AGE_MS for a
 * slot, then take a whole attempt, then its outcome is recorded.
 */
export const leaseMs = (timeoutMs: number) =>
  PREFETCH_MAX_AGE_MS + attemptMaxMs(timeoutMs) + RECORD_MARGIN_MS;

export type DeliveryState = 'pending' | 'delivered' | 'discarded' | 'gone' | 'dropped';

interface ClaimedRow {
  id: string;
  kind: 'event' | 'test';
  event_id: string | null;
  account_id: string;
  client_id: string;
  event_type: string;
  event_data: unknown;
  user_data: unknown;
  url: string;
  origin: string;
  auth_key: string;
  attempt_count: number;
  round_attempts: number;
}

interface AttemptRecord {
  id: string;
  attempt: number;
  state: DeliveryState;
  delay_ms: number;
  started_at: string;
  duration_ms: number;
  outcome: AttemptResult['outcome'];
  status: number | null;
  error: string | null;
  error_message: string | null;
  response: string;
}

// Claims due deliveries: the first `$2` due, unleased (or lease-expired) ones in due order, at
// most the free slots of each receiver origin ($5, default $6) of them, saturated origins ($1)
// left out. Candidates are read without locks; only the picked rows are locked, SKIP LOCKED,
// and their claimability is checked again on the locked version (READ COMMITTED re-evaluates
// the conditions of a FOR UPDATE row that changed), so two instances never lease the same
// delivery.
const CLAIM_SQL = `
WITH c AS (
  SELECT id, origin, next_attempt_at FROM deliveries
   WHERE state = 'pending' AND next_attempt_at <= now()
     AND (lease_until IS NULL OR lease_until <= now())
     AND origin <> ALL ($1::text[])
   ORDER BY next_attempt_at, id
   LIMIT $2
), picked AS (
  SELECT id FROM (
    SELECT id, origin, row_number() OVER (PARTITION BY origin ORDER BY next_attempt_at, id) AS rn
      FROM c) ranked
   WHERE rn <= coalesce(($5::jsonb ->> origin)::int, $6::int)
), locked AS (
  SELECT id FROM deliveries
   WHERE id = ANY (ARRAY(SELECT id FROM picked))
     AND state = 'pending' AND (lease_until IS NULL OR lease_until <= now())
   FOR UPDATE SKIP LOCKED
)
UPDATE deliveries d
   SET lease_until = now() + $3::int * interval '1 millisecond',
       leased_by = $4,
       attempt_count = d.attempt_count + 1
 WHERE d.id = ANY (ARRAY(SELECT id FROM locked))
RETURNING d.id::text AS id, d.kind, d.event_id::text AS event_id, d.account_id, d.client_id,
          d.event_type, d.event_data, d.user_data, d.url, d.origin, d.auth_key, d.attempt_count,
          d.round_attempts`;

// Writes a batch of outcomes: the delivery's new state (only if this instance still holds the
// lease of that attempt) and the attempt itself, which happened either way. A delivery dropped
// while its attempt was in flight (unregistered, or another attempt's 410) keeps the final
// outcome of that attempt (delivered, gone) but is not retried. The rows are named
// by primary key ($3) so that the plan never depends on the queue's statistics.
const RESULT_SQL = `
WITH r AS (
  SELECT * FROM jsonb_to_recordset($1::jsonb) AS r(
    id bigint, attempt int, state text, delay_ms int, started_at timestamptz, duration_ms int,
    outcome text, status int, error text, error_message text, response text)
), u AS (
  UPDATE deliveries d
     SET state = r.state,
         round_attempts = d.round_attempts + 1,
         next_attempt_at = CASE WHEN r.state = 'pending'
                                THEN now() + r.delay_ms * interval '1 millisecond'
                                ELSE d.next_attempt_at END,
         lease_until = NULL,
         leased_by = NULL,
         finished_at = CASE WHEN r.state = 'pending' THEN NULL ELSE now() END
    FROM r
   WHERE d.id = ANY ($3::bigint[]) AND d.id = r.id AND d.leased_by = $2
     AND d.attempt_count = r.attempt
     AND (d.state = 'pending' OR (d.state = 'dropped' AND r.state IN ('delivered', 'gone')))
  RETURNING d.id
)
INSERT INTO delivery_attempts (delivery_id, attempt, started_at, duration_ms, outcome, status,
                               error, error_message, response_snippet, instance_id)
SELECT r.id, r.attempt, r.started_at, r.duration_ms, r.outcome, r.status, r.error,
       r.error_message, r.response, $2
  FROM r JOIN deliveries d ON d.id = ANY ($3::bigint[]) AND d.id = r.id`;

// When the next unleased delivery falls due (a retry, mostly). Leases of an instance that died
// are not looked for here: the claim takes them once expired, at the latest at the next poll.
const NEXT_DUE_SQL = `
SELECT (extract(epoch FROM (min(next_attempt_at) - now())) * 1000)::float8 AS ms
  FROM deliveries
 WHERE state = 'pending' AND lease_until IS NULL AND origin <> ALL ($1::text[])`;

// A 410: the registration goes, as if unregistered (unless it was re-registered elsewhere
// meanwhile), and what is still queued for that receiver is dropped.
const GONE_SQL = `
WITH removed AS (
  DELETE FROM notification_registrations WHERE account_id = $1 AND client_id = $2 AND url = $3
)
UPDATE deliveries SET state = 'dropped', finished_at = now()
 WHERE account_id = $1 AND client_id = $2 AND url = $3 AND state = 'pending' AND id <> $4`;

const STATS_SQL = `
SELECT count(*)::int AS depth,
       coalesce(extract(epoch FROM now() - min(created_at)), 0)::float8 AS oldest
  FROM deliveries WHERE state = 'pending'`;

/** The exact body of a notification (api-contract 5); `userData` is left out when none. */
export function notificationBody(d: {
  account_id: string;
  event_type: string;
  event_data: unknown;
  user_data: unknown;
}): Buffer {
  return Buffer.from(
    JSON.stringify({
      accountId: d.account_id,
      eventType: d.event_type,
      eventData: d.event_data,
      ...(d.user_data !== null && d.user_data !== undefined && { userData: d.user_data }),
    }),
  );
}

/** The `webhook-id` of a delivery: its event's id, or `test_<deliveryId>` for a test. */
export const webhookIdOf = (d: { kind: string; id: string; event_id: string | null }) =>
  d.kind === 'test' || d.event_id === null ? `test_${d.id}` : d.event_id;

const receiverKey = (row: { account_id: string; client_id: string; url: string }) =>
  `${row.account_id} ${row.client_id} ${row.url}`;

/** PostgreSQL text cannot hold NUL characters. */
const pgText = (text: string) => text.replaceAll('\u0000', '\uFFFD');

function resultLabel(result: AttemptResult | { status: null; error: string }): string {
  if (result.status !== null) return `${Math.floor(result.status / 100)}xx`;
  return result.error ?? 'unknown';
}

export class Dispatcher {
  readonly instanceId = randomUUID();
  readonly #db: Database;
  /**
   * The dispatcher's own connections on PostgreSQL, so that claims and outcomes never queue
   * behind request traffic in the shared pool, with `synchronous_commit = off`: losing the last
   * claims or outcomes in a crash only repeats an attempt (at least once), while the outbox rows
   * themselves are written by the ingest transactions, durably. Bitmap scans are off for these
   * connections (see below). The embedded database has one connection, shared.
   */
  readonly #pool: pg.Pool;
  readonly #ownPool: boolean;
  readonly #webhook: WebhookConfig;
  readonly #secrets: SecretBox;
  readonly #logger: Logger;
  readonly #metrics: Metrics | undefined;
  readonly #sender: Sender;
  readonly #maxInFlight: number;
  readonly #perReceiver: number;
  readonly #pollIntervalMs: number;
  readonly #leaseMs: number;
  readonly #unsubscribe: () => void;

  #started = false;
  #stopped = false;
  #loop: Promise<void> | undefined;
  #wakeRequested = false;
  #wakeUp: (() => void) | undefined;
  /** HTTP attempts in flight, in all and per receiver origin. */
  #inFlight = 0;
  readonly #perOrigin = new Map<string, number>();
  /**
   * Claimed (leased) deliveries waiting for a slot of their receiver, only for receivers that
   * answer fast, at most PREFETCH_SLOTS times `maxInFlightPerReceiver` of them: they start the
   * moment a slot frees, without waiting for another claim, or are handed back after
   * PREFETCH_MAX_AGE_MS.
   */
  readonly #prefetched = new Map<string, { row: ClaimedRow; claimedAt: number }[]>();
  #prefetchedCount = 0;
  /** Average attempt duration per receiver origin (EWMA, ms): fast ones get prefetching. */
  readonly #latency = new Map<string, number>();
  /** Receivers (registration and url) that answered 410 lately: their prefetched work is skipped. */
  readonly #gone = new Map<string, number>();
  readonly #tasks = new Set<Promise<void>>();
  #results: { record: AttemptRecord; done: () => void }[] = [];
  #flushing: Promise<void> | undefined;
  #listener: pg.Client | undefined;
  #listenRetry: NodeJS.Timeout | undefined;
  #notifying = false;
  #notifyAgain = false;
  #stats: { at: number; value: Promise<WebhookQueueStats> } | undefined;
  #closing: Promise<void> | undefined;
  #sinceAnalyze = 0;
  #lastAnalyze = 0;
  #analyzing = false;

  constructor(options: DispatcherOptions) {
    this.#db = options.db;
    this.#ownPool = options.db.kind === 'postgres';
    this.#pool = this.#ownPool
      ? new pg.Pool({
          connectionString: options.db.connectionString,
          max: 4,
          application_name: 'clipgate-dispatcher',
          // A burst of deliveries (say, after an outage) is claimed before autovacuum has
          // analyzed the table: planned from stale statistics, the claim would bitmap-scan
          // and sort every pending row each time instead of walking the due index in order.
          options: '-c synchronous_commit=off -c enable_bitmapscan=off',
        })
      : options.db.pool;
    if (this.#ownPool) {
      this.#pool.on('error', (err) =>
        this.#logger.warn({ err }, 'idle dispatcher connection failed'),
      );
    }
    this.#webhook = options.webhook;
    this.#secrets = options.secrets;
    this.#logger = options.logger.child({ component: 'dispatcher', instance: this.instanceId });
    this.#metrics = options.metrics;
    this.#maxInFlight = options.maxInFlight ?? 256;
    this.#perReceiver = options.maxInFlightPerReceiver ?? 16;
    this.#pollIntervalMs = options.pollIntervalMs ?? 1000;
    this.#leaseMs = leaseMs(options.webhook.timeoutMs);
    this.#sender = createSender({
      timeoutMs: options.webhook.timeoutMs,
      allowPrivateNetworks: options.webhook.allowPrivateNetworks,
      connectionsPerOrigin: this.#perReceiver,
      userAgent: options.userAgent,
    });
    this.#unsubscribe = options.signal.subscribe((events) => {
      if (!events.some(queuedDeliveries)) return;
      this.wake();
      this.#notifyPeers();
    });
    if (this.#metrics) this.#metrics.webhookQueue.stats = () => this.queueStats();
  }

  /** Starts claiming; pending work of an earlier run (or a dead instance) resumes. */
  start(): void {
    if (this.#started || this.#stopped) return;
    this.#started = true;
    this.#analyzeSoon(0);
    this.#loop = this.#run();
    void this.#listen();
  }

  /** Looks for due work now (new deliveries, a freed slot). Cheap and coalescing. */
  wake(): void {
    this.#wakeRequested = true;
    this.#wakeUp?.();
  }

  /** Attempts in flight in this instance. */
  get inFlight(): number {
    return this.#inFlight;
  }

  /**
   * Stops: no new claims; the attempts in flight finish and are recorded. What is still pending
   * stays in the database for the next start (or another instance).
   */
  close(): Promise<void> {
    return (this.#closing ??= this.#close());
  }

  async #close(): Promise<void> {
    this.#stopped = true;
    this.#unsubscribe();
    clearTimeout(this.#listenRetry);
    this.wake();
    await this.#loop;
    // Prefetched deliveries were not attempted: give their leases back for the next start.
    const unsent = [...this.#prefetched.values()].flat().map((p) => p.row);
    this.#prefetched.clear();
    this.#prefetchedCount = 0;
    const handedBack = this.#handBack(unsent);
    while (this.#tasks.size > 0) await Promise.all([...this.#tasks]);
    await handedBack;
    await this.#flushing;
    const listener = this.#listener;
    this.#listener = undefined;
    await listener?.end().catch(() => undefined);
    await this.#sender.close();
    if (this.#metrics?.webhookQueue.stats) this.#metrics.webhookQueue.stats = undefined;
    if (this.#ownPool) await this.#pool.end();
  }

  /** Pending deliveries and the age of the oldest, for the metrics (cached for a second). */
  queueStats(): Promise<WebhookQueueStats> {
    const now = Date.now();
    if (this.#stats && now - this.#stats.at < STATS_CACHE_MS) return this.#stats.value;
    const value = this.#pool
      .query<{ depth: number; oldest: number }>(STATS_SQL)
      .then(({ rows: [row] }) => ({
        depth: row?.depth ?? 0,
        oldestPendingSeconds: row?.oldest ?? 0,
      }));
    this.#stats = { at: now, value };
    value.catch(() => (this.#stats = undefined));
    return value;
  }

  async #run(): Promise<void> {
    let failures = 0;
    while (!this.#stopped) {
      this.#wakeRequested = false;
      let delay: number | undefined;
      try {
        // Claimed and not finished: in flight, or prefetched (bounded as much again).
        const free = 2 * this.#maxInFlight - this.#inFlight - this.#prefetchedCount;
        if (free > 0) {
          const rows = await this.#claim(Math.min(free, CLAIM_BATCH));
          const claimedAt = performance.now();
          const skipped: ClaimedRow[] = [];
          for (const row of rows) {
            // Its receiver just answered 410: it is being dropped with the registration.
            if (this.#gone.has(receiverKey(row))) skipped.push(row);
            else if (this.#stopped) this.#queue(row, claimedAt);
            else if ((this.#perOrigin.get(row.origin) ?? 0) < this.#perReceiver) this.#start(row);
            else this.#queue(row, claimedAt);
          }
          void this.#handBack(skipped);
          failures = 0;
          if (rows.length > 0) continue; // there may be more, e.g. for other origins
          delay = await this.#nextDelay();
        }
      } catch (err) {
        if (this.#stopped) break;
        failures++;
        this.#logger.error({ err }, 'claiming deliveries failed');
        delay = Math.min(5000, 250 * 2 ** Math.min(failures, 5));
      }
      if (this.#wakeRequested || this.#stopped) continue;
      await this.#sleep(delay ?? this.#pollIntervalMs);
    }
  }

  /** Claimed deliveries of this instance per origin: in flight and prefetched. */
  #held(origin: string): number {
    return (this.#perOrigin.get(origin) ?? 0) + (this.#prefetched.get(origin)?.length ?? 0);
  }

  /**
   * How many deliveries of an origin this instance may hold: its slots, and for a receiver
   * known to answer fast a few slots' worth prefetched, so that its slots never wait for a claim.
   */
  #capacity(origin: string): number {
    const latency = this.#latency.get(origin);
    const fast = latency !== undefined && latency < PREFETCH_FAST_MS;
    return this.#perReceiver * (fast ? 1 + PREFETCH_SLOTS : 1);
  }

  /** The origins this instance holds deliveries of; any other may get `maxInFlightPerReceiver`. */
  #origins(): Set<string> {
    return new Set([...this.#perOrigin.keys(), ...this.#prefetched.keys()]);
  }

  /** Origins this instance holds as much of as it may (left out of the claim). */
  #saturated(): string[] {
    return [...this.#origins()].filter((o) => this.#held(o) >= this.#capacity(o));
  }

  async #claim(limit: number): Promise<ClaimedRow[]> {
    const free: Record<string, number> = {};
    for (const origin of this.#origins()) {
      const left = this.#capacity(origin) - this.#held(origin);
      if (left > 0) free[origin] = left;
    }
    const { rows } = await this.#pool.query<ClaimedRow>(CLAIM_SQL, [
      this.#saturated(),
      limit,
      this.#leaseMs,
      this.instanceId,
      JSON.stringify(free),
      this.#perReceiver,
    ]);
    return rows;
  }

  /** Remembers how fast an origin answers (bounded: the oldest entries go first). */
  #observe(origin: string, durationMs: number): void {
    const previous = this.#latency.get(origin);
    this.#latency.delete(origin);
    this.#latency.set(
      origin,
      previous === undefined ? durationMs : 0.8 * previous + 0.2 * durationMs,
    );
    if (this.#latency.size > 10_000) this.#latency.delete(this.#latency.keys().next().value!);
  }

  #queue(row: ClaimedRow, claimedAt: number): void {
    const list = this.#prefetched.get(row.origin) ?? [];
    list.push({ row, claimedAt });
    this.#prefetched.set(row.origin, list);
    this.#prefetchedCount++;
  }

  /**
   * A slot of `origin` freed: starts its next prefetched delivery, if that can still finish
   * within its lease; one that cannot is handed back unsent.
   */
  #startNext(origin: string): void {
    const list = this.#prefetched.get(origin);
    while (list && list.length > 0 && !this.#stopped) {
      const next = list.shift()!;
      this.#prefetchedCount--;
      if (list.length === 0) this.#prefetched.delete(origin);
      if (this.#gone.has(receiverKey(next.row))) continue; // dropped with its registration
      if (performance.now() - next.claimedAt < PREFETCH_MAX_AGE_MS) {
        this.#start(next.row);
        return;
      }
      void this.#handBack([next.row]);
    }
  }

  /** Gives up the leases of claimed deliveries that were not attempted. */
  async #handBack(rows: ClaimedRow[]): Promise<void> {
    if (rows.length === 0) return;
    try {
      await this.#pool.query(
        `UPDATE deliveries d
            SET lease_until = NULL, leased_by = NULL, attempt_count = d.attempt_count - 1
           FROM jsonb_to_recordset($1::jsonb) AS r(id bigint, attempt int)
          WHERE d.id = r.id AND d.leased_by = $2 AND d.attempt_count = r.attempt
            AND d.state = 'pending'`,
        [
          JSON.stringify(rows.map((r) => ({ id: r.id, attempt: r.attempt_count }))),
          this.instanceId,
        ],
      );
    } catch (err) {
      // Their leases expire instead.
      this.#logger.warn({ err, count: rows.length }, 'handing back claimed deliveries failed');
    }
  }

  /** Milliseconds until something may be due; undefined: nothing known, poll. */
  async #nextDelay(): Promise<number | undefined> {
    const { rows } = await this.#pool.query<{ ms: number | null }>(NEXT_DUE_SQL, [
      this.#saturated(),
    ]);
    const ms = rows[0]?.ms ?? null;
    if (ms === null) return undefined;
    // Due, yet not claimable just now (locked by another instance's claim): look again soon.
    if (ms <= 0)
      return this.#inFlight + this.#prefetchedCount >= this.#maxInFlight ? undefined : 25;
    return Math.min(Math.ceil(ms), this.#pollIntervalMs);
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.#wakeUp = () => {
        this.#wakeUp = undefined;
        done();
      };
    });
  }

  #start(row: ClaimedRow): void {
    this.#inFlight++;
    this.#perOrigin.set(row.origin, (this.#perOrigin.get(row.origin) ?? 0) + 1);
    // The receiver's slot is free once the HTTP attempt is over; the delivery itself stays
    // leased until its outcome is written, so nothing claims it again meanwhile.
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      this.#inFlight--;
      const left = (this.#perOrigin.get(row.origin) ?? 1) - 1;
      if (left > 0) this.#perOrigin.set(row.origin, left);
      else this.#perOrigin.delete(row.origin);
      this.#startNext(row.origin);
      this.wake();
    };
    const task: Promise<void> = this.#attempt(row, release)
      .catch((err: unknown) => {
        this.#logger.error({ err, deliveryId: row.id }, 'delivery attempt failed unexpectedly');
      })
      .finally(() => {
        release();
        this.#tasks.delete(task);
        this.wake(); // the outcome is written: a retry may now be due
      });
    this.#tasks.add(task);
  }

  async #attempt(row: ClaimedRow, release: () => void): Promise<void> {
    const startedAt = new Date();
    let result: AttemptResult | undefined;
    let authKey: string | undefined;
    try {
      authKey = this.#secrets.open(row.auth_key, secretContext(row.account_id, row.client_id));
    } catch (err) {
      this.#logger.error(
        { err, deliveryId: row.id },
        "the receiver's key does not decrypt with this instance's SECRETS_KEY",
      );
    }
    if (authKey !== undefined) {
      result = await this.#sender.send({
        url: row.url,
        body: notificationBody(row),
        authKey,
        webhookId: webhookIdOf(row),
      });
    }
    if (result?.outcome === 'gone') {
      // The registration goes (and what is queued for it) before this slot claims anything.
      this.#markGone(row);
      await this.#removeGone(row);
    }
    if (result) this.#observe(row.origin, result.durationMs);
    release();
    const outcome = result?.outcome ?? 'failed';
    const round = row.round_attempts + 1;
    const delays = this.#webhook.retryDelaysMs;
    const state: DeliveryState =
      outcome === 'accepted'
        ? 'delivered'
        : outcome === 'gone'
          ? 'gone'
          : round > delays.length
            ? 'discarded'
            : 'pending';
    const record: AttemptRecord = {
      id: row.id,
      attempt: row.attempt_count,
      state,
      delay_ms: state === 'pending' ? (delays[round - 1] ?? 0) : 0,
      started_at: startedAt.toISOString(),
      duration_ms: result?.durationMs ?? 0,
      outcome,
      status: result?.status ?? null,
      error: result ? result.error : 'key_unavailable',
      error_message:
        pgText(
          result
            ? (result.errorMessage ?? '')
            : "the receiver's key cannot be decrypted with this instance's SECRETS_KEY",
        ) || null,
      response: pgText(result?.responseSnippet ?? ''),
    };
    this.#metrics?.webhookAttempts.observe(
      { result: resultLabel(result ?? { status: null, error: 'key_unavailable' }) },
      record.duration_ms / 1000,
    );
    await this.#record(record);
    if (state !== 'pending') this.#metrics?.webhookDeliveries.inc({ outcome: state });
  }

  #markGone(row: ClaimedRow): void {
    const now = performance.now();
    for (const [key, at] of this.#gone) if (now - at > 60_000) this.#gone.delete(key);
    this.#gone.set(receiverKey(row), now);
  }

  async #removeGone(row: ClaimedRow): Promise<void> {
    try {
      const { rowCount } = await this.#pool.query(GONE_SQL, [
        row.account_id,
        row.client_id,
        row.url,
        row.id,
      ]);
      if (rowCount) this.#metrics?.webhookDeliveries.inc({ outcome: 'dropped' }, rowCount);
      this.#logger.info(
        { accountId: row.account_id, clientId: row.client_id, dropped: rowCount },
        'receiver answered 410: registration removed',
      );
    } catch (err) {
      this.#logger.error({ err, deliveryId: row.id }, 'removing a gone registration failed');
    }
  }

  /** Queues an outcome for the next batch write; resolves once it is written (or failed). */
  #record(record: AttemptRecord): Promise<void> {
    return new Promise((resolve) => {
      this.#results.push({ record, done: resolve });
      this.#flushing ??= this.#flush().finally(() => (this.#flushing = undefined));
    });
  }

  async #flush(): Promise<void> {
    while (this.#results.length > 0) {
      const batch = this.#results.splice(0, RESULT_BATCH);
      try {
        await this.#pool.query(RESULT_SQL, [
          JSON.stringify(batch.map((b) => b.record)),
          this.instanceId,
          batch.map((b) => b.record.id),
        ]);
        this.#analyzeSoon(batch.length);
      } catch (err) {
        // The leases expire and the deliveries are attempted again: at least once.
        this.#logger.error({ err, count: batch.length }, 'recording delivery attempts failed');
      }
      for (const b of batch) b.done();
    }
  }

  /** Another instance's commit queued deliveries: it wakes through this channel. */
  async #listen(): Promise<void> {
    if (this.#db.kind !== 'postgres' || this.#stopped) return;
    const client = new pg.Client({
      connectionString: this.#db.connectionString,
      application_name: 'clipgate-dispatcher',
    });
    let retried = false;
    const retry = (err?: unknown) => {
      if (retried) return;
      retried = true;
      if (this.#listener === client) this.#listener = undefined;
      client.end().catch(() => undefined);
      if (this.#stopped) return;
      if (err) this.#logger.warn({ err }, 'the LISTEN connection failed; reconnecting');
      this.#listenRetry = setTimeout(() => void this.#listen(), 2000);
      this.#listenRetry.unref();
    };
    client.on('notification', (message) => {
      if (message.channel === NOTIFY_CHANNEL && message.payload !== this.instanceId) this.wake();
    });
    client.on('error', retry);
    client.on('end', () => retry());
    try {
      await client.connect();
      await client.query(`LISTEN ${NOTIFY_CHANNEL}`);
      if (this.#stopped) return void client.end().catch(() => undefined);
      this.#listener = client;
      this.wake(); // catch up with what was queued while not listening
    } catch (err) {
      retry(err);
    }
  }

  /** Tells the other instances that deliveries were queued; at most one NOTIFY in flight. */
  #notifyPeers(): void {
    const client = this.#listener;
    if (!client) return;
    if (this.#notifying) {
      this.#notifyAgain = true;
      return;
    }
    this.#notifying = true;
    client
      .query('SELECT pg_notify($1, $2)', [NOTIFY_CHANNEL, this.instanceId])
      .catch(() => undefined)
      .finally(() => {
        this.#notifying = false;
        if (this.#notifyAgain) {
          this.#notifyAgain = false;
          this.#notifyPeers();
        }
      });
  }

  /**
   * Keeps the queue's statistics current while it churns (the embedded database has no
   * autovacuum at all): ANALYZE at start and after every couple of thousand outcomes, at most
   * every two seconds.
   */
  #analyzeSoon(outcomes: number): void {
    this.#sinceAnalyze += outcomes;
    const now = performance.now();
    if (this.#analyzing || (this.#sinceAnalyze < ANALYZE_EVERY && this.#lastAnalyze !== 0)) return;
    if (now - this.#lastAnalyze < ANALYZE_MIN_INTERVAL_MS && this.#lastAnalyze !== 0) return;
    this.#analyzing = true;
    this.#lastAnalyze = now;
    this.#sinceAnalyze = 0;
    this.#pool
      .query('ANALYZE deliveries')
      .catch((err: unknown) => this.#logger.warn({ err }, 'analyzing the delivery queue failed'))
      .finally(() => (this.#analyzing = false));
  }
}

/**
 * Deletes finished deliveries (and their attempts) older than the retention, in batches so no
 * statement holds many locks. Pending deliveries are kept whatever their age. Idempotent, so
 * several instances may run it at once.
 */
export function purgeDeliveryLog(
  db: Pick<Database, 'pool'>,
  retentionDays: number,
  now = new Date(),
): Promise<number> {
  const cutoff = new Date(now.getTime() - retentionDays * 86_400_000).toISOString();
  return deleteInBatches(db.pool, {
    table: 'deliveries',
    key: 'id',
    where: "created_at < $1 AND state <> 'pending' AND coalesce(finished_at, created_at) < $1",
    params: [cutoff],
  });
}
