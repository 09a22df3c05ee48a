import type { Database } from '../storage/database.ts';
import { dropPartitions, eventsTable } from '../storage/partitions.ts';
import type { EventLogReader, LogRead } from './live/ports.ts';
import type { LiveEvent, Stream } from './live/stream.ts';

/**
 * The event log (the `events` table) as live subscriptions read it: a stream's events after an
 * id, a stream's last id, whether an event is still held. Events leave it past the retention
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

  async head(stream: Stream): Promise<string> {
    const [column, key] = streamKey(stream);
    const { rows } = await this.#db.pool.query<{ head: string | null }>(
      `SELECT max(id)::text AS head FROM events WHERE ${column} = $1::uuid`,
      [key],
    );
    return rows[0]?.head ?? '0';
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
