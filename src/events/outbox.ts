import type { Tx } from '../storage/database.ts';
import type { NewEvent, StoredEvent } from './types.ts';

/**
 * Writes events into the event log inside the caller's transaction, so an event exists exactly
 * when the change that caused it committed. Whoever commits hands the returned events to
 * `EventSignal.committed()` afterwards, so that readers (webhook dispatcher, subscriptions)
 * act at once.
 */
export async function recordEvents(tx: Tx, events: NewEvent[]): Promise<StoredEvent[]> {
  if (events.length === 0) return [];
  const rows = await tx.event.createManyAndReturn({
    data: events.map((e) => ({
      accountId: e.accountId,
      accessoryId: e.accessoryId,
      eventType: e.eventType,
      eventData: e.eventData as object,
    })),
  });
  return rows.map((row, i) => ({
    ...events[i]!,
    eventId: String(row.id),
    occurredAt: row.occurredAt,
  }));
}

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
