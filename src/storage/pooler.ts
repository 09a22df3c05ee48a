import pg from 'pg';

/** Statements per connection of the probe: enough for a pooler handing out servers in turn. */
const PROBE_ROUNDS = 5;

/**
 * Whether `connectionString` reaches PostgreSQL through a transaction (or statement) pooler,
 * such as PgBouncer in transaction mode, told by what the server sessions do: two connections of
 * ours run their statements alternately, each asking for its server session's pid. A connection
 * of its own, or one through a session pooler, keeps one session, which no other connection
 * shares; behind a transaction pooler a session goes back to the pooler after each statement,
 * and the next statement of either connection is served by whichever session the pooler picks
 * (PgBouncer: the one just released). So a pid that changes, or one both connections see, can
 * only be a transaction pooler's. A pooler whose sessions were all busy elsewhere during the
 * probe could go unseen; never the other way round.
 */
export async function isTransactionPooler(
  connectionString: string,
  connectionTimeoutMillis: number,
): Promise<boolean> {
  const clients = [0, 1].map(
    () =>
      new pg.Client({ connectionString, connectionTimeoutMillis, application_name: 'clipgate' }),
  );
  try {
    await Promise.all(clients.map((c) => c.connect()));
    const seen = [new Set<number>(), new Set<number>()];
    for (let round = 0; round < PROBE_ROUNDS; round++) {
      for (const [i, client] of clients.entries()) {
        const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
        seen[i]!.add(rows[0]!.pid);
      }
      const [a, b] = seen as [Set<number>, Set<number>];
      if (a.size > 1 || b.size > 1 || [...a].some((pid) => b.has(pid))) return true;
    }
    return false;
  } finally {
    await Promise.all(clients.map((c) => c.end().catch(() => undefined)));
  }
}
