import type { Tx } from '../storage/database.ts';
import { lockEventStreams } from './streams.ts';
import type { NewEvent, StoredEvent } from './types.ts';

/**
 * Writes events into the event log inside the caller's transaction, so an event exists exactly
 * when the change that caused it committed. Whoever commits hands the returned events to
 * `EventSignal.committed()` afterwards, so that readers (webhook dispatcher, subscriptions)
 * act at once.
 *
 * The same statement queues the webhook deliveries of each event (src/notifications): one per
 * registration of the event's account that lists its type, and for `account_deleted` one per
 * registration of the account. A delivery carries a snapshot of its registration, so it survives
 * the registration (and the account) being deleted later in the same transaction.
 */
export async function recordEvents(tx: Tx, events: NewEvent[]): Promise<StoredEvent[]> {
  if (events.length === 0) return [];
  const input = JSON.stringify(
    events.map((e) => ({
      accountId: e.accountId,
      accessoryId: e.accessoryId,
      eventType: e.eventType,
      eventData: e.eventData,
    })),
  );
  // Live subscribers: an account's events commit in id order, each knowing its predecessor.
  const streams = await lockEventStreams(tx, events);
  const rows = await tx.$queryRawUnsafe<{ id: string; occurred_at: Date; queued: boolean }[]>(
    RECORD_EVENTS_SQL,
    input,
  );
  return streams.link(
    rows.map((row, i) => {
      const stored: StoredEvent = { ...events[i]!, eventId: row.id, occurredAt: row.occurred_at };
      if (row.queued) withDeliveries.add(stored);
      return stored;
    }),
  );
}

// Ids are assigned in input order (ORDER BY ord), so sorting by id restores it.
const RECORD_EVENTS_SQL = `
WITH input AS (
  SELECT x, ord FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS i(x, ord)
), ev AS (
  INSERT INTO events (account_id, accessory_id, event_type, event_data)
  SELECT (x->>'accountId')::uuid, (x->>'accessoryId')::uuid, x->>'eventType', x->'eventData'
    FROM input ORDER BY ord
  RETURNING id, account_id, event_type, event_data, occurred_at
), queued AS (
  INSERT INTO deliveries (kind, event_id, account_id, client_id, event_type, event_data,
                          user_data, url, origin, auth_key)
  SELECT 'event', ev.id, r.account_id, r.client_id, ev.event_type, ev.event_data,
         r.user_data, r.url, r.origin, r.auth_key
    FROM ev JOIN notification_registrations r ON r.account_id = ev.account_id
   WHERE ev.event_type = ANY (r.event_types) OR ev.event_type = 'account_deleted'
  RETURNING event_id
)
SELECT ev.id::text AS id, ev.occurred_at,
       EXISTS (SELECT 1 FROM queued q WHERE q.event_id = ev.id) AS queued
  FROM ev ORDER BY ev.id`;

const withDeliveries = new WeakSet<StoredEvent>();

/** Whether recording this event queued webhook deliveries (so the dispatcher has work). */
export const queuedDeliveries = (event: StoredEvent): boolean => withDeliveries.has(event);

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
