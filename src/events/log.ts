import type { Database } from '../storage/database.ts';
import { dropPartitions, eventsTable } from '../storage/partitions.ts';
import type { EventLogReader, LogRead } from './live/ports.ts';
import type { LiveEvent, Stream } from './live/stream.ts';

/**
 * The event log (the `events` table) as live subscriptions read it: a stream's events after an
 * id, streams' last ids, whether an event is still held. Events leave it past the retention
 * (`purgeEventLog`).
 */
export class EventLog implements EventLogReader {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  async read(stream: Stream, range: LogRead): Promise<LiveEvent[]> {
    const [column, key] = streamKey(stream);
    const params: unknown[] = [key, range.after];
    let where = `${column} = $1::uuid AND id > $2::bigint`;
    if (range.before !== undefined) {
      params.push(range.before);
      where += ` AND id < $${params.length}::bigint`;
    }
    if (range.eventTypes) {
      params.push([...range.eventTypes]);
      where += ` AND event_type = ANY($${params.length}::text[])`;
    }
    const { rows } = await this.#db.pool.query<LiveEvent>(
      `SELECT id::text AS "eventId", account_id AS "accountId", accessory_id AS "accessoryId",
              event_type AS "eventType", event_data AS "eventData", occurred_at AS "occurredAt"
         FROM events WHERE ${where} ORDER BY id LIMIT ${range.limit}`,
      params,
    );
    return rows;
  }

  /** One statement per kind of stream: an index probe per stream, in one round trip. */
  async heads(streams: readonly Stream[]): Promise<string[]> {
    const heads = streams.map(() => '0');
    for (const kind of ['account', 'accessory'] as const) {
      const at = streams.flatMap((stream, i) => (stream.kind === kind ? [i] : []));
      if (at.length === 0) continue;
      const keys = at.map((i) => streamKey(streams[i]!));
      const column = keys[0]![0];
      const { rows } = await this.#db.pool.query<{ head: string | null }>(
        `SELECT (SELECT max(e.id) FROM events e WHERE e.${column} = s.key)::text AS head
           FROM unnest($1::uuid[]) WITH ORDINALITY AS s(key, n) ORDER BY s.n`,
        [keys.map(([, key]) => key)],
      );
      rows.forEach((row, j) => (heads[at[j]!] = row.head ?? '0'));
    }
    return heads;
  }

  async holds(accountId: string, eventId: string): Promise<boolean> {
    const { rowCount } = await this.#db.pool.query(
      'SELECT 1 FROM events WHERE id = $1::bigint AND account_id = $2::uuid',
      [eventId, accountId],
    );
    return Boolean(rowCount);
  }
}

const streamKey = (stream: Stream): ['account_id' | 'accessory_id', string] =>
  stream.kind === 'account'
    ? ['account_id', stream.accountId]
    : ['accessory_id', stream.accessoryId];

/**
 * Drops the days of the event log whose every event is older than the retention: the log keeps
 * an event at least `retentionHours`, and at most a day longer. Resolves with the partitions
 * dropped; several instances may run it at once.
 */
export function purgeEventLog(
  db: Database,
  retentionHours: number,
  now = new Date(),
): Promise<number> {
  const cutoff = new Date(now.getTime() - retentionHours * 3_600_000);
  return dropPartitions(db.pool, [{ table: eventsTable }], cutoff, now);
}
