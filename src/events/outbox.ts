import type { Tx } from '../storage/database.ts';
import type { NewEvent } from './types.ts';

/**
 * Writes events into the event log inside the caller's transaction, so an event exists exactly
 * when the change that caused it committed. Whoever commits calls `EventSignal.committed()`
 * afterwards so that readers of the log (dispatcher, subscriptions) look at once.
 */
export async function recordEvents(tx: Tx, events: NewEvent[]): Promise<void> {
  if (events.length === 0) return;
  await tx.event.createMany({
    data: events.map((e) => ({
      accountId: e.accountId,
      accessoryId: e.accessoryId,
      eventType: e.eventType,
      eventData: e.eventData as object,
    })),
  });
}

/** In-process wake-up for readers of the event log after a commit. */
export class EventSignal {
  readonly #listeners = new Set<() => void>();

  subscribe(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  committed(): void {
    for (const listener of this.#listeners) listener();
  }
}
