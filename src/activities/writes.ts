import type { AccessoryService, AccessoryView } from '../accessories/service.ts';
import { TtlCache } from '../cache.ts';
import { AppError, conflict, notFound } from '../errors.ts';
import { eventsJson, storedEvents, type EventSignal, type RecordedRow } from '../events/outbox.ts';
import { CachedEventFilters, FILTERS_CHANGED, type EventFilters } from '../events/filter.ts';
import type { NewEvent, StoredEvent } from '../events/types.ts';
import { poolRows, type Database } from '../storage/database.ts';
import { currentTraceparent } from '../telemetry/tracing.ts';
import { GroupCommit } from './group-commit.ts';
import { activityEventData, type ActivityRecord } from './model.ts';
import { planChange, type ActivityChange, type StoredActivity } from './plan.ts';
import { STORED_COLUMNS } from './store.ts';

/** One ingest change: of an accessory's activities, or a motion report. */
export type IngestChange = { accessoryId: string } & (
  ActivityChange | { kind: 'motion'; state: 'started' | 'ended'; at: Date; motionZones: string[] }
);

/** What became of one change: done (with the activity it changed, or its event), or refused. */
export type IngestOutcome =
  | { ok: true; accessoryId: string; activity?: ActivityRecord; event?: StoredEvent }
  | { ok: false; error: AppError };

/** An Idempotency-Key's record, stored with the changes it answered (src/activities/batch.ts). */
export interface IdempotencyRecord {
  clientId: string;
  subject: string;
  key: string;
  fingerprint: string;
  /** The stored answer, made from the outcomes before they are written. */
  response(outcomes: IngestOutcome[]): unknown;
}

/**
 * Told, once a write committed, of the activities it finished whose clip had already settled
 * (stored and packaged, or packaging failed): they are ready to announce (src/media/ready.ts).
 */
export interface SettledClips {
  announce(activities: { accessoryId: string; activityId: string }[]): Promise<unknown>;
}

/** The SQL function raised this: the Idempotency-Key was stored by a concurrent request. */
export class IdempotencyRace extends Error {}

/** The SQL function raised this: an account's registration filters are not the ones judged. */
class FiltersChanged extends Error {}

/** The newest activity of an accessory as an instance last wrote or read it, with its xmin. */
interface Head {
  newest: StoredActivity | null;
  version: string | null;
}

/** How often changes are planned anew because another instance changed an accessory meanwhile. */
const MAX_REPLANS = 20;

/**
 * The write path: plans changes in memory on each accessory's newest activity as this instance
 * last saw it (`planChange`, ./plan.ts), then writes all of them with their events in one
 * statement, the SQL function `clipgate_ingest_settled` (./sql/ingest_settled.sql, calling
 * ./sql/ingest.sql; one round trip, one transaction; it also answers which finished
 * activities' clips are ready to announce). The function checks each head's version under the accessory's row lock; if another instance changed one
 * meanwhile (or the cache is cold or wrong), nothing is written and the changes are planned
 * anew on what it reads. Changes apply in the order given; a refused one changes nothing and
 * the later ones plan as if it had not been sent.
 */
export class ActivityWriter {
  readonly #heads = new TtlCache<string, Head>(60_000, 50_000);
  readonly #filters = new CachedEventFilters();
  readonly #single = new GroupCommit<IngestChange, IngestOutcome>(
    (changes, traceparent) => this.apply(changes, undefined, traceparent ?? null),
    refusedStatement,
  );

  constructor(
    private readonly db: Database,
    private readonly accessories: AccessoryService,
    private readonly signal: EventSignal,
    private readonly settledClips: SettledClips,
  ) {}

  /**
   * Applies one change, in one statement with the single changes of other requests that arrive
   * while this instance's writes are under way (./group-commit.ts).
   */
  applyOne(change: IngestChange): Promise<IngestOutcome> {
    return this.#single.submit(change, currentTraceparent() ?? undefined);
  }

  /**
   * Applies the changes in order; an AppError in the list is that item's refusal. Their events
   * carry `traceparent`, by default the current request's.
   */
  async apply(
    changes: readonly (IngestChange | AppError)[],
    idempotency?: IdempotencyRecord,
    traceparent = currentTraceparent(),
  ): Promise<IngestOutcome[]> {
    const ids = [
      ...new Set(changes.flatMap((c) => (c instanceof AppError ? [] : [c.accessoryId]))),
    ];
    // Accessories the write found deleted (while another cache still held them): 404 from then on.
    const gone = new Set<string>();
    for (let attempt = 0; ; attempt++) {
      const accessories = await this.accessories.getMany(ids);
      for (const id of gone) accessories.delete(id);
      const heads = await this.#readHeads(
        ids.filter((id) => accessories.has(id) && !this.#heads.get(id)),
      );
      const batch = this.#plan(changes, accessories, (id) => {
        const read = heads.get(id);
        return read ? { ...read, fresh: true } : { ...(this.#heads.get(id) ?? emptyHead) };
      });
      if (batch.refusedOnCache.size > 0 && attempt < MAX_REPLANS) {
        // A refusal judged on this instance's cached head may be wrong (another instance may
        // have moved the accessory on): judge those changes again on what is stored.
        for (const id of batch.refusedOnCache) this.#heads.delete(id);
        continue;
      }
      await this.#resolveOlder(batch);
      if (batch.rows.size === 0 && batch.events.length === 0 && !idempotency) {
        return batch.outcomes;
      }
      const filters = await this.#filters.judge(poolRows(this.db.pool), batch.events);
      let answer: WriteAnswer;
      try {
        answer = await this.#write(batch, idempotency, filters, traceparent);
      } catch (err) {
        if (!(err instanceof FiltersChanged) || attempt >= MAX_REPLANS) throw err;
        this.#filters.forget(batch.events);
        continue;
      }
      if ('stale' in answer) {
        for (const id of answer.missing) gone.add(id);
        for (const id of [...answer.stale, ...answer.missing]) this.#heads.delete(id);
        if (attempt < MAX_REPLANS) continue;
        throw new AppError('UNAVAILABLE', 'the accessory changes too often to apply this now');
      }
      for (const [id, working] of batch.working) {
        this.#heads.set(id, { newest: working.newest, version: answer.versions[id] ?? null });
      }
      const stored = storedEvents(
        batch.events,
        answer.events.map((row) => ({
          ...row,
          event_occurred_at: new Date(row.event_occurred_at as unknown as string),
        })),
      );
      for (const [i, index] of batch.eventOf) {
        const outcome = batch.outcomes[i];
        if (outcome?.ok) outcome.event = stored[index];
      }
      this.signal.committed(stored);
      if (answer.settled.length > 0) await this.settledClips.announce(answer.settled);
      return batch.outcomes;
    }
  }

  #plan(
    changes: readonly (IngestChange | AppError)[],
    accessories: Map<string, AccessoryView>,
    head: (accessoryId: string) => Head & { fresh?: boolean },
  ): PlannedBatch {
    const now = new Date();
    const batch: PlannedBatch = {
      outcomes: [],
      rows: new Map(),
      events: [],
      eventOf: new Map(),
      heads: new Map(),
      working: new Map(),
      older: [],
      refusedOnCache: new Set(),
    };
    changes.forEach((change, i) => {
      const outcome = this.#planOne(batch, change, accessories, head, now, i);
      batch.outcomes.push(outcome);
    });
    return batch;
  }

  #planOne(
    batch: PlannedBatch,
    change: IngestChange | AppError,
    accessories: Map<string, AccessoryView>,
    head: (accessoryId: string) => Head & { fresh?: boolean },
    now: Date,
    i: number,
  ): IngestOutcome {
    if (change instanceof AppError) return { ok: false, error: change };
    const accessory = accessories.get(change.accessoryId);
    if (!accessory) return { ok: false, error: notFound('accessory') };
    if (change.kind === 'motion') {
      batch.eventOf.set(i, batch.events.length);
      batch.events.push({
        accountId: accessory.accountId,
        accessoryId: accessory.accessoryId,
        eventType: change.state === 'started' ? 'motion_started' : 'motion_ended',
        eventData: {
          accessoryId: accessory.accessoryId,
          motionZones: change.motionZones,
          timestamp: change.at.toISOString(),
        },
      });
      return { ok: true, accessoryId: accessory.accessoryId };
    }
    const base = head(change.accessoryId);
    const current = batch.working.get(change.accessoryId) ?? base;
    let plan: ReturnType<typeof planChange>;
    try {
      plan = planChange(change.accessoryId, current.newest, change, now);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      if (!base.fresh) batch.refusedOnCache.add(change.accessoryId);
      return { ok: false, error: err };
    }
    if ('olderThan' in plan) {
      batch.older.push({ index: i, accessoryId: change.accessoryId, ...plan });
      return { ok: false, error: notFound('activity') };
    }
    if (!batch.heads.has(change.accessoryId)) batch.heads.set(change.accessoryId, current);
    for (const row of plan.rows) batch.rows.set(`${row.accessoryId}/${row.activityId}`, row);
    for (const { eventType, activity } of plan.events) {
      batch.events.push({
        accountId: accessory.accountId,
        accessoryId: accessory.accessoryId,
        eventType,
        eventData: activityEventData(activity),
      });
    }
    batch.working.set(change.accessoryId, { newest: plan.rows.at(-1)!, version: null });
    return { ok: true, accessoryId: change.accessoryId, activity: plan.result };
  }

  /** A change of an activity older than the newest: 409 if it exists, else 404 (one query). */
  async #resolveOlder(batch: PlannedBatch): Promise<void> {
    if (batch.older.length === 0) return;
    const { rows } = await this.db.pool.query<{ key: string }>(
      `SELECT accessory_id || '/' || activity_id AS key FROM activities
        WHERE (accessory_id, activity_id) IN (SELECT * FROM unnest($1::uuid[], $2::text[]))`,
      [batch.older.map((o) => o.accessoryId), batch.older.map((o) => o.activityId)],
    );
    const existing = new Set(rows.map((r) => r.key));
    for (const o of batch.older) {
      if (existing.has(`${o.accessoryId}/${o.activityId}`)) {
        batch.outcomes[o.index] = {
          ok: false,
          error: conflict(`only the newest activity (${o.olderThan}) can change`),
        };
      }
    }
  }

  async #write(
    batch: PlannedBatch,
    idempotency: IdempotencyRecord | undefined,
    filters: EventFilters,
    traceparent: string | null,
  ): Promise<WriteAnswer> {
    const heads = [...batch.heads].map(([accessoryId, h]) => ({
      accessoryId,
      activityId: h.newest?.activityId ?? null,
      version: h.version,
    }));
    const record = idempotency && {
      clientId: idempotency.clientId,
      subject: idempotency.subject,
      key: idempotency.key,
      fingerprint: idempotency.fingerprint,
      response: idempotency.response(batch.outcomes),
    };
    try {
      const { rows } = await this.db.pool.query<{ answer: WriteAnswer }>({
        // Prepared once per connection: the database parses and plans it once, not per write.
        name: 'clipgate_ingest_settled',
        text: 'SELECT clipgate_ingest_settled($1::jsonb, $2::jsonb, $3::jsonb, $4::jsonb, $5::jsonb, $6::text) AS answer',
        values: [
          JSON.stringify(heads),
          JSON.stringify([...batch.rows.values()]),
          eventsJson(batch.events),
          record ? JSON.stringify(record) : null,
          JSON.stringify(filters),
          traceparent,
        ],
      });
      return rows[0]!.answer;
    } catch (err) {
      for (const id of batch.heads.keys()) this.#heads.delete(id);
      const code = (err as { code?: unknown }).code;
      if (code === 'CGDUP') throw new IdempotencyRace();
      if (code === FILTERS_CHANGED) throw new FiltersChanged();
      throw err;
    }
  }

  /** The newest activity of each accessory as stored now, with its version, in one query. */
  async #readHeads(accessoryIds: string[]): Promise<Map<string, Head>> {
    const heads = new Map<string, Head>(accessoryIds.map((id) => [id, emptyHead]));
    if (accessoryIds.length === 0) return heads;
    const { rows } = await this.db.pool.query<StoredActivity & { version: string }>(
      `SELECT n.* FROM unnest($1::uuid[]) AS x(id)
         CROSS JOIN LATERAL (SELECT ${STORED_COLUMNS}, xmin::text AS version FROM activities
                              WHERE accessory_id = x.id ORDER BY activity_id DESC LIMIT 1) n`,
      [accessoryIds],
    );
    for (const { version, ...newest } of rows) heads.set(newest.accessoryId, { newest, version });
    return heads;
  }
}

const emptyHead: Head = { newest: null, version: null };

/**
 * PostgreSQL refused the statement for what it was given (SQLSTATE class 22, a data exception,
 * or 23, an integrity constraint): it rolled back, and one of the batch's changes caused it.
 */
const refusedStatement = (err: unknown): boolean =>
  /^2[23]/.test(String((err as { code?: unknown }).code ?? ''));

type WriteAnswer =
  | { stale: string[]; missing: string[] }
  | {
      versions: Record<string, string | null>;
      events: RecordedRow[];
      settled: { accessoryId: string; activityId: string }[];
    };

interface PlannedBatch {
  outcomes: IngestOutcome[];
  /** The rows to write, the last planned version of each. */
  rows: Map<string, StoredActivity>;
  events: NewEvent[];
  /** Which event a motion change recorded (item index -> index in events). */
  eventOf: Map<number, number>;
  /** The head each written accessory was planned on, checked by the write. */
  heads: Map<string, Head>;
  /** Each written accessory's newest activity after the batch. */
  working: Map<string, Head>;
  /** Changes of older activities, answered 404 until #resolveOlder finds them (409). */
  older: { index: number; accessoryId: string; olderThan: string; activityId: string }[];
  /** Accessories with a change refused on a cached head, not one read for this attempt. */
  refusedOnCache: Set<string>;
}
