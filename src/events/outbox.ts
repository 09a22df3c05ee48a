import { txRows, type SqlTx } from '../storage/database.ts';
import { currentTraceparent } from '../telemetry/tracing.ts';
import { passedFilters } from './filter.ts';
import type { NewEvent, StoredEvent } from './types.ts';

/**
 * Writes events into the event log inside the caller's transaction, so an event exists exactly
 * when the change that caused it committed. Whoever commits hands the returned events to
 * `EventSignal.committed()` afterwards, so that readers (webhook dispatcher, subscriptions)
 * act at once.
 *
 * One statement, the SQL function `clipgate_record_events` (./sql/record_events.sql): it takes a transaction-scoped lock per account before the
 * events get their ids, so that an account's events commit in id order, and answers with each
 * event the id its streams (the account's, the accessory's) ended with before it, for live
 * subscribers (src/events/live/topic.ts). Lock order: ingest holds the accessory's row lock when
 * it records events; an account-level event (accessoryId null, e.g. account_deleted, which then
 * deletes the accessories) takes the account's accessory rows first, so both take accessory rows
 * before the account lock.
 *
 * The same statement queues the webhook deliveries of each event (src/notifications): one per
 * registration of the event's account that lists its type, and for `account_deleted` one per
 * registration of the account, disabled registrations left out (src/notifications/delivery/
 * health.ts), and answers the receiver origins they go to (`queuedOrigins`: the dispatcher's
 * wake-ups). A delivery carries a snapshot of its registration, so it survives the
 * registration (and the account) being deleted later in the same transaction, and the trace
 * context of the request that caused it, so that its attempts join that request's trace. A
 * registration with a filter gets only the events that pass it (src/events/filter.ts, judged
 * before the statement): the statement matches it by the filter text it was judged with, and
 * refuses the events (SQLSTATE CGFLT) if a filtered registration was not judged at all.
 */
export async function recordEvents(tx: SqlTx, events: NewEvent[]): Promise<StoredEvent[]> {
  if (events.length === 0) return [];
  const filters = await passedFilters(txRows(tx), events);
  const rows = await tx.$queryRawUnsafe<RecordedRow[]>(
    'SELECT * FROM clipgate_record_events($1::jsonb, $2::jsonb, $3::text)',
    eventsJson(events),
    JSON.stringify(filters),
    currentTraceparent(),
  );
  return storedEvents(events, rows);
}

/** The first key of the per-account advisory lock `clipgate_record_events` takes (its SQL). */
export const EVENT_LOCK_CLASS = 1818851941;

/** What `clipgate_record_events` answers per event, in input order. */
export interface RecordedRow {
  event_id: string | bigint | null;
  event_occurred_at: Date | null;
  /** The receiver origins its deliveries were queued for (null: none). */
  event_origins: string[] | null;
  previous_account_event_id: string | bigint | null;
  previous_accessory_event_id: string | bigint | null;
}

/** The events as the SQL functions take them. */
export const eventsJson = (events: readonly NewEvent[]): string =>
  JSON.stringify(
    events.map((e) => ({
      accountId: e.accountId,
      accessoryId: e.accessoryId,
      eventType: e.eventType,
      eventData: e.eventData,
    })),
  );

const idText = (id: string | bigint | null): string | null => (id === null ? null : String(id));

/** The stored form of recorded events, from the function's rows (one per event, in order). */
export function storedEvents(events: readonly NewEvent[], rows: readonly RecordedRow[]) {
  return rows.map((row, i) => {
    const stored: StoredEvent = {
      ...events[i]!,
      eventId: idText(row.event_id)!,
      occurredAt: row.event_occurred_at!,
      previousAccountEventId: idText(row.previous_account_event_id),
    };
    if (stored.accessoryId !== null) {
      stored.previousAccessoryEventId = idText(row.previous_accessory_event_id);
    }
    if (row.event_origins?.length) queuedFor.set(stored, row.event_origins);
    return stored;
  });
}

const queuedFor = new WeakMap<StoredEvent, readonly string[]>();

/**
 * The receiver origins (scheme://host:port) that recording this event queued webhook deliveries
 * for, none when it queued none: the dispatcher has work for them.
 */
export const queuedOrigins = (event: StoredEvent): readonly string[] => queuedFor.get(event) ?? [];

/** In-process notice of committed events, in commit order per accessory. */
export class EventSignal {
  readonly #listeners = new Set<(events: StoredEvent[]) => void>();

  subscribe(listener: (events: StoredEvent[]) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  committed(events: StoredEvent[]): void {
    if (events.length === 0) return;
    for (const listener of this.#listeners) listener(events);
  }
}
