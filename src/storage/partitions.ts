import type pg from 'pg';

/**
 * The time-partitioned tables (migration 20261123020000_partitions,
 * docs/decisions/0008-daily-partitions.md): one partition per UTC day named `<table>_pYYYYMMDD`, below them the
 * `<table>_archive` partition holding what the table held before partitioning (from MINVALUE),
 * above them `<table>_future` (to MAXVALUE), the guard for rows beyond the days created so far.
 *
 * `createPartitionsAhead` splits days off the guard ahead of time; `dropPartitions` detaches and
 * drops the partitions whose every row is past a cutoff. Reads keep their own row-level window,
 * so a row is invisible from the moment it expires until its partition goes.
 */
export interface PartitionedTable {
  name: string;
  /** `activity-id`: text bounds 'YYYYMMDD' on activity ids; `timestamp`: timestamptz bounds. */
  key: 'activity-id' | 'timestamp';
  /** Storage parameters of each partition (a partitioned table has none of its own). */
  storage?: string;
}

export const activitiesTable: PartitionedTable = { name: 'activities', key: 'activity-id' };
export const mediaObjectsTable: PartitionedTable = { name: 'media_objects', key: 'activity-id' };
export const eventsTable: PartitionedTable = { name: 'events', key: 'timestamp' };
export const deliveriesTable: PartitionedTable = {
  name: 'deliveries',
  key: 'timestamp',
  // Room for the claim's HOT update: see the migration 20261127010000_delivery_fillfactor.
  storage:
    'fillfactor = 50, autovacuum_vacuum_scale_factor = 0.02, autovacuum_analyze_scale_factor = 0.02',
};
export const deliveryAttemptsTable: PartitionedTable = {
  name: 'delivery_attempts',
  key: 'timestamp',
};

export const partitionedTables: readonly PartitionedTable[] = [
  activitiesTable,
  mediaObjectsTable,
  eventsTable,
  deliveriesTable,
  deliveryAttemptsTable,
];

/** Days of partitions kept ready beyond today, so that a stopped job has a week to come back. */
export const PARTITIONS_AHEAD_DAYS = 7;

const DAY_MS = 86_400_000;
// Any constant works; it only has to be the same for every instance of the service.
const PARTITIONS_LOCK = 7_270_318_113;
/** Partition DDL waits this long for a lock, then gives up until the next round. */
const LOCK_TIMEOUT = '5s';

/** One partition and its range; `from` undefined: MINVALUE, `to` undefined: MAXVALUE. */
export interface Partition {
  name: string;
  from: Date | undefined;
  to: Date | undefined;
}

/** The range of `FOR VALUES FROM (..) TO (..)` as pg_get_expr prints it (TimeZone UTC). */
export function parseBound(name: string, expr: string): Partition {
  const m = /FROM \((.+)\) TO \((.+)\)/.exec(expr);
  if (!m) throw new Error(`unexpected partition bound of ${name}: ${expr}`);
  return { name, from: parseBoundValue(m[1]!), to: parseBoundValue(m[2]!) };
}

function parseBoundValue(value: string): Date | undefined {
  if (value === 'MINVALUE' || value === 'MAXVALUE') return undefined;
  const m = /^'(\d{4})-?(\d{2})-?(\d{2})/.exec(value);
  if (!m) throw new Error(`unexpected partition bound value: ${value}`);
  return new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
}

const startOfDay = (t: Date) => new Date(Math.floor(t.getTime() / DAY_MS) * DAY_MS);

/** The days to split off the guard partition (starting at `guardFrom`) to cover `aheadDays` past `now`. */
export function daysToCreate(guardFrom: Date, now: Date, aheadDays: number): Date[] {
  const until = startOfDay(now).getTime() + (aheadDays + 1) * DAY_MS;
  const days: Date[] = [];
  for (let t = guardFrom.getTime(); t < until; t += DAY_MS) days.push(new Date(t));
  return days;
}

/** The partitions whose every row sorts before `cutoff`: bounded above at or before it. */
export function expiredPartitions(partitions: readonly Partition[], cutoff: Date): Partition[] {
  return partitions.filter((p) => p.to !== undefined && p.to.getTime() <= cutoff.getTime());
}

/** A bound as SQL: 'YYYYMMDD' (an activity id prefix) or a UTC timestamp. */
function boundSql(table: PartitionedTable, day: Date): string {
  const iso = day.toISOString();
  return table.key === 'activity-id'
    ? `'${iso.slice(0, 10).replace(/-/g, '')}'`
    : `'${iso.slice(0, 10)} 00:00:00+00'`;
}

const partitionName = (table: PartitionedTable, day: Date) =>
  `${table.name}_p${day.toISOString().slice(0, 10).replace(/-/g, '')}`;

const quote = (identifier: string) => `"${identifier.replace(/"/g, '""')}"`;

/** Runs `work` in a transaction holding the partition lock, with UTC bounds and a lock timeout. */
async function partitionTransaction<T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    try {
      await client.query(`SET LOCAL lock_timeout = '${LOCK_TIMEOUT}'`);
      await client.query(`SET LOCAL TimeZone = 'UTC'`);
      await client.query('SELECT pg_advisory_xact_lock($1)', [PARTITIONS_LOCK]);
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK');
      throw err;
    }
  } finally {
    client.release();
  }
}

async function listPartitions(client: pg.PoolClient, table: PartitionedTable) {
  const { rows } = await client.query<{ name: string; bound: string }>(
    `SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound
       FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent = $1::regclass`,
    [table.name],
  );
  return rows.map((r) => parseBound(r.name, r.bound));
}

/**
 * Splits the days up to `aheadDays` after `now` off each table's guard partition: detaches the
 * guard, creates the days and a new guard above them, and moves back the rows the old guard
 * held (none, unless rows arrived beyond the created days). Resolves with the partitions created.
 */
export function createPartitionsAhead(
  pool: pg.Pool,
  now = new Date(),
  tables: readonly PartitionedTable[] = partitionedTables,
): Promise<number> {
  return partitionTransaction(pool, async (client) => {
    let created = 0;
    for (const table of tables) created += await splitGuard(client, table, now);
    return created;
  });
}

async function splitGuard(client: pg.PoolClient, table: PartitionedTable, now: Date) {
  const guard = (await listPartitions(client, table)).find((p) => p.to === undefined);
  if (!guard?.from) throw new Error(`${table.name} has no guard partition`);
  const days = daysToCreate(guard.from, now, PARTITIONS_AHEAD_DAYS);
  if (days.length === 0) return 0;
  const parent = quote(table.name);
  const storage = table.storage ? ` WITH (${table.storage})` : '';
  await client.query(`ALTER TABLE ${parent} DETACH PARTITION ${quote(guard.name)}`);
  const { rowCount } = await client.query(`SELECT 1 FROM ${quote(guard.name)} LIMIT 1`);
  const old = rowCount ? `${table.name}_moving` : undefined;
  if (old) await client.query(`ALTER TABLE ${quote(guard.name)} RENAME TO ${quote(old)}`);
  else await client.query(`DROP TABLE ${quote(guard.name)}`);
  for (const day of days) {
    const next = new Date(day.getTime() + DAY_MS);
    await client.query(
      `CREATE TABLE ${quote(partitionName(table, day))} PARTITION OF ${parent}
         FOR VALUES FROM (${boundSql(table, day)}) TO (${boundSql(table, next)})${storage}`,
    );
  }
  const top = new Date(days.at(-1)!.getTime() + DAY_MS);
  await client.query(
    `CREATE TABLE ${quote(`${table.name}_future`)} PARTITION OF ${parent}
       FOR VALUES FROM (${boundSql(table, top)}) TO (MAXVALUE)${storage}`,
  );
  if (old) {
    // The rows move; triggers that count rows (activity_rollup) leave them as they were.
    await client.query(`SELECT set_config('clipgate.moving', 'on', true)`);
    await client.query(`INSERT INTO ${parent} SELECT * FROM ${quote(old)}`);
    await client.query(`SELECT set_config('clipgate.moving', 'off', true)`);
    await client.query(`DROP TABLE ${quote(old)}`);
  }
  return days.length;
}

export interface PartitionDrop {
  table: PartitionedTable;
  /** SQL over the partition `p` run before it goes, e.g. to queue stored objects. */
  before?: (partition: string) => string;
  /** SQL condition over the partition `p` that keeps it for now, e.g. pending rows. */
  keepIf?: (partition: string) => string;
}

/**
 * Detaches and drops, in one transaction, every partition of these tables that holds nothing
 * at or after `cutoff` (and that `keepIf` does not keep). The days up to a week after `now` are
 * created first if missing (normally a no-op), so that no row waits in the guard partition.
 * Rows are never left without a partition: an empty `<table>_archive` from MINVALUE takes the
 * place of the dropped bottom, and a dropped day above a kept one comes back empty. Resolves
 * with the partitions dropped.
 */
export function dropPartitions(
  pool: pg.Pool,
  drops: readonly PartitionDrop[],
  cutoff: Date,
  now: Date,
): Promise<number> {
  return partitionTransaction(pool, async (client) => {
    let dropped = 0;
    for (const drop of drops) dropped += await dropExpired(client, drop, cutoff, now);
    return dropped;
  });
}

async function dropExpired(
  client: pg.PoolClient,
  { table, before, keepIf }: PartitionDrop,
  cutoff: Date,
  now: Date,
): Promise<number> {
  await splitGuard(client, table, now);
  const isEmpty = async (name: string) =>
    !(await client.query(`SELECT 1 FROM ${quote(name)} LIMIT 1`)).rowCount;
  let going: Partition[] = [];
  let kept = false;
  for (const partition of expiredPartitions(await listPartitions(client, table), cutoff)) {
    const keep =
      keepIf &&
      (await client.query<{ keep: boolean }>(`SELECT ${keepIf(quote(partition.name))} AS keep`))
        .rows[0]?.keep;
    if (keep) kept = true;
    else going.push(partition);
  }
  // Above a kept partition a dropped day comes back empty: an empty one would come back as it
  // was, as would an empty bottom partition.
  if (kept) {
    const full: Partition[] = [];
    for (const p of going) if (!(await isEmpty(p.name))) full.push(p);
    going = full;
  }
  if (going.length === 1 && !going[0]!.from && (await isEmpty(going[0]!.name))) return 0;
  const parent = quote(table.name);
  const storage = table.storage ? ` WITH (${table.storage})` : '';
  for (const partition of going) {
    const name = quote(partition.name);
    if (before) await client.query(before(name));
    await client.query(`ALTER TABLE ${parent} DETACH PARTITION ${name}`);
    await client.query(`DROP TABLE ${name}`);
  }
  const left = (await listPartitions(client, table)).sort(
    (a, b) => (a.from?.getTime() ?? -Infinity) - (b.from?.getTime() ?? -Infinity),
  );
  // Where a MINVALUE partition remains, `bottom` is undefined and every dropped day is a hole.
  const bottom = left[0]!.from;
  const create = (name: string, from: string, to: string) =>
    client.query(
      `CREATE TABLE ${quote(name)} PARTITION OF ${parent} FOR VALUES FROM (${from}) TO (${to})${storage}`,
    );
  for (const hole of going.filter((p) => p.from && (!bottom || p.from >= bottom))) {
    await create(hole.name, boundSql(table, hole.from!), boundSql(table, hole.to!));
  }
  if (bottom) await create(`${table.name}_archive`, 'MINVALUE', boundSql(table, bottom));
  return going.length;
}
