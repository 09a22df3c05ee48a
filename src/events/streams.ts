import type { Tx } from '../storage/database.ts';
import type { NewEvent, StoredEvent } from './types.ts';

// The first key of the two-key advisory locks that serialize an account's event writes (the
// two-key space never meets the one-key locks of the migration runner).
const EVENT_LOCK_CLASS = 0x6c697665;

/** The last event id of each stream an insert touches, read under the account locks. */
export interface StreamHeads {
  /** Sets `previousAccountEventId`/`previousAccessoryEventId` on the stored events, in order. */
  link(stored: StoredEvent[]): StoredEvent[];
}

/**
 * Makes each account's events a chain in commit order, for live subscribers (see
 * src/events/live/topic.ts): takes a transaction-scoped lock per account before the events
 * get their ids, so that an account's events commit in id order, and reads the id each of its
 * streams (the account's, each accessory's) ended with, so that every event can carry its
 * predecessor's id.
 *
 * Lock order: ingest holds the accessory's row lock when it records events; an account-level
 * event (accessoryId null, e.g. account_deleted, which then deletes the accessories) takes the
 * account's accessory rows first, so both take accessory rows before the account lock.
 */
export async function lockEventStreams(tx: Tx, events: readonly NewEvent[]): Promise<StreamHeads> {
  const accounts = [...new Set(events.map((e) => e.accountId))].sort();
  for (const accountId of accounts) {
    if (events.some((e) => e.accountId === accountId && e.accessoryId === null)) {
      await tx.$queryRawUnsafe(
        'SELECT 1 AS locked FROM accessories WHERE account_id = $1::uuid ORDER BY id FOR UPDATE',
        accountId,
      );
    }
    await tx.$queryRawUnsafe(
      'SELECT 1 AS locked FROM pg_advisory_xact_lock($1::int, hashtext($2::text))',
      EVENT_LOCK_CLASS,
      accountId,
    );
  }
  const accessories = [
    ...new Set(events.flatMap((e) => (e.accessoryId === null ? [] : [e.accessoryId]))),
  ];
  // A statement of its own: under READ COMMITTED it sees what committed before the lock.
  const rows = await tx.$queryRawUnsafe<{ kind: string; key: string; head: string | null }[]>(
    `SELECT 'account' AS kind, a::text AS key,
            (SELECT max(id) FROM events WHERE account_id = a)::text AS head
       FROM unnest($1::uuid[]) AS a
     UNION ALL
     SELECT 'accessory', x::text, (SELECT max(id) FROM events WHERE accessory_id = x)::text
       FROM unnest($2::uuid[]) AS x`,
    accounts,
    accessories,
  );
  const accountHeads = new Map<string, string | null>();
  const accessoryHeads = new Map<string, string | null>();
  for (const row of rows) {
    (row.kind === 'account' ? accountHeads : accessoryHeads).set(row.key, row.head);
  }
  return {
    link(stored) {
      for (const event of stored) {
        event.previousAccountEventId = accountHeads.get(event.accountId) ?? null;
        accountHeads.set(event.accountId, event.eventId);
        if (event.accessoryId !== null) {
          event.previousAccessoryEventId = accessoryHeads.get(event.accessoryId) ?? null;
          accessoryHeads.set(event.accessoryId, event.eventId);
        }
      }
      return stored;
    },
  };
}
