// The ceiling for bench/list: the same keyset query as the service's listing, through pg, served
// by a bare Node HTTP handler with no auth, validation, GraphQL or REST layer; at `/prepared`, the
// same query as a prepared statement with a generic plan, as the service runs its own (PostgreSQL
// plans it once, not at every page); and at `/fixed`, HTTP alone: the first page it served, again,
// without the database.
import http from 'node:http';
import pg from 'pg';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const prepared = new pg.Pool({
  connectionString: process.env.DATABASE_URL,
  max: 10,
  options: '-c plan_cache_mode=force_generic_plan',
});
const SQL = `SELECT accessory_id AS "accessoryId", activity_id AS "activityId", start_time AS "startTime",
  end_time AS "endTime", playback_duration AS "playbackDuration", relevance_level AS "relevanceLevel"
  FROM activities WHERE accessory_id = $1 AND activity_id >= $2 AND activity_id < $3
  ORDER BY activity_id DESC LIMIT $4`;

/** The first page it served: `/fixed` answers it again without the database (HTTP alone). */
let fixed: string | undefined;

const server = http.createServer(async (req, res) => {
  const url = new URL(req.url!, 'http://x');
  if (url.pathname === '/fixed' && fixed !== undefined) {
    res.writeHead(200, { 'content-type': 'application/json' }).end(fixed);
    return;
  }
  const values = [
    url.searchParams.get('a'),
    '00000000T000000Z',
    url.searchParams.get('start') ?? '99999999T999999Z',
    21,
  ];
  const { rows } =
    url.pathname === '/prepared'
      ? await prepared.query({ name: 'page', text: SQL, values })
      : await pool.query(SQL, values);
  const body = JSON.stringify({ activities: rows.slice(0, 20) });
  fixed ??= body;
  res.writeHead(200, { 'content-type': 'application/json' }).end(body);
});
server.listen(0, '127.0.0.1', () => {
  console.log(JSON.stringify({ port: (server.address() as { port: number }).port }));
});
process.on('SIGTERM', () =>
  server.close(() => Promise.all([pool.end(), prepared.end()]).then(() => process.exit(0))),
);
