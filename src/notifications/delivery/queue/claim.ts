import type { Queryable } from '../../../storage/database.ts';
import type { ClaimLimits } from '../slots.ts';
import { madeByNow } from './made-by-now.ts';
import type { ClaimedDelivery } from './types.ts';

/**
 * The origins that have deliveries pending, by a skip scan of the origins' due index from its
 * end (one probe per origin; the front of an origin's entries holds its delivered rows until
 * VACUUM). The last row's origin is null.
 */
export const PENDING_ORIGINS = `
origins AS (
  SELECT (SELECT origin FROM deliveries WHERE ${madeByNow()} AND state = 'pending'
           ORDER BY origin DESC LIMIT 1) AS origin
  UNION ALL
  SELECT (SELECT d.origin FROM deliveries d
           WHERE ${madeByNow('d')} AND d.state = 'pending' AND d.origin < o.origin
           ORDER BY d.origin DESC LIMIT 1)
    FROM origins o WHERE o.origin IS NOT NULL
)`;

/**
 * The due deliveries a claim's walk reads at most, with saturated origins, before it takes its
 * window by origin: more than a few instances hold leased, and half a millisecond's walk.
 */
export const WALK_ROWS = 2_000;

/** The two forms of the claim, by how it finds its window (CLAIM_WINDOW). */
export type ClaimForm = 'inDueOrder' | 'byOrigin';

/** A claim that leaves out saturated origins may take its window by origin. */
export const claimForm = (saturated: readonly string[]): ClaimForm =>
  saturated.length > 0 ? 'byOrigin' : 'inDueOrder';

/**
 * How a claim finds its window (c), the first `$2` due deliveries of the origins not saturated
 * ($1). With none saturated, by a walk of the due index. With some, that walk could pass every due
 * delivery of theirs, each read from the table and left out: a slow receiver's backlog of 100,000
 * made each claim of the other origins take 37 ms. So with some saturated, the walk reads at
 * most WALK_ROWS due deliveries; if they do not fill the window and there are more, the window is
 * taken by origin instead, from the origins' due index: the first `$2` of each origin not
 * saturated, then the first `$2` of those. The same rows, at about 10 µs an origin with
 * deliveries pending (decisions 0167 and 0168). The origin is written as a range of that index and the
 * order as its own: as an equality, with few origins in the queue, the planner walked the due
 * index instead, past the saturated origin's backlog (as heads do, below).
 */
const CLAIM_WINDOW: Record<ClaimForm, string> = {
  inDueOrder: `
c AS (
  SELECT id, origin, account_id, client_id, next_attempt_at FROM deliveries
   WHERE ${madeByNow()} AND state = 'pending' AND next_attempt_at <= now()
     AND (lease_until IS NULL OR lease_until <= now())
     AND origin <> ALL ($1::text[])
   ORDER BY next_attempt_at, id
   LIMIT $2
),`,
  byOrigin: `
walked AS (
  SELECT id, origin, account_id, client_id, next_attempt_at FROM (
    SELECT id, origin, account_id, client_id, next_attempt_at, lease_until FROM deliveries
     WHERE ${madeByNow()} AND state = 'pending' AND next_attempt_at <= now()
     ORDER BY next_attempt_at, id
     LIMIT ${WALK_ROWS}) walk
   WHERE (lease_until IS NULL OR lease_until <= now()) AND origin <> ALL ($1::text[])
   ORDER BY next_attempt_at, id
   LIMIT $2
), by_origin AS (
  SELECT (SELECT count(*) FROM walked) < $2 AND EXISTS (
    SELECT FROM deliveries WHERE ${madeByNow()} AND state = 'pending' AND next_attempt_at <= now()
     ORDER BY next_attempt_at, id OFFSET ${WALK_ROWS - 1}) AS needed
),${PENDING_ORIGINS}, c AS (
  SELECT * FROM walked WHERE NOT (SELECT needed FROM by_origin)
  UNION ALL
  (SELECT d.* FROM origins o, LATERAL (
     SELECT id, origin, account_id, client_id, next_attempt_at FROM deliveries
      WHERE ${madeByNow()} AND state = 'pending' AND origin >= o.origin AND origin <= o.origin
        AND next_attempt_at <= now() AND (lease_until IS NULL OR lease_until <= now())
      ORDER BY origin, next_attempt_at, id
      LIMIT $2) d
    WHERE (SELECT needed FROM by_origin) AND o.origin <> ALL ($1::text[])
    ORDER BY d.next_attempt_at, d.id
    LIMIT $2)
),`,
};

// The first `$2` due, unleased (or lease-expired) deliveries in due order (c, CLAIM_WINDOW),
// saturated origins ($1) left out, and, when that window is full, the first due ones of each other
// registration (account and client) of its origins (heads): their deliveries may lie beyond the
// window, behind another registration's backlog. Registrations are found by a skip scan of the
// registration index (one probe per registration with pending deliveries at the origin, at most
// $8 of them), from its end: the front of each registration's entries holds its delivered rows
// until VACUUM.
// A head is read from the same index, the registration written as a range of it and the order
// as its own: as an equality, the planner may walk the due index instead, past the whole backlog
// of the origin's other registrations.
// Of these, at most the room of each receiver origin ($5, default $6) is picked, in turns: a
// registration's k-th candidate has turn k plus what the instance holds of it ($7), and the
// lowest turns go first, so the registrations of an origin share its slots and prefetch.
// Candidates are read without locks; only the picked rows are locked, SKIP LOCKED, and their
// claimability is checked again on the locked version (READ COMMITTED re-evaluates the
// conditions of a FOR UPDATE row that changed), so two instances never lease the same delivery.
// Rows named in $9 are not locked: they are those whose outcomes the same statement writes
// (./record-and-claim.ts), which a statement must not change twice.
const CLAIM_PICK = `
cut AS (
  SELECT DISTINCT origin FROM c WHERE (SELECT count(*) FROM c) >= $2
), registrations AS (
  SELECT f.origin, f.account_id, f.client_id, 1 AS n FROM cut, LATERAL (
    SELECT origin, account_id, client_id FROM deliveries
     WHERE ${madeByNow()} AND state = 'pending' AND origin = cut.origin
     ORDER BY origin DESC, account_id DESC, client_id DESC
     LIMIT 1) f
  UNION ALL
  SELECT f.origin, f.account_id, f.client_id, r.n + 1 FROM registrations r, LATERAL (
    SELECT origin, account_id, client_id FROM deliveries
     WHERE ${madeByNow()} AND state = 'pending' AND origin = r.origin
       AND (account_id, client_id) < (r.account_id, r.client_id)
     ORDER BY origin DESC, account_id DESC, client_id DESC
     LIMIT 1) f
   WHERE r.n < $8
), heads AS (
  SELECT h.* FROM registrations r, LATERAL (
    SELECT id, origin, account_id, client_id, next_attempt_at FROM deliveries
     WHERE ${madeByNow()} AND state = 'pending' AND origin = r.origin
       AND (account_id, client_id) >= (r.account_id, r.client_id)
       AND (account_id, client_id) <= (r.account_id, r.client_id)
       AND next_attempt_at <= now() AND (lease_until IS NULL OR lease_until <= now())
     ORDER BY account_id, client_id, next_attempt_at, id
     LIMIT $6) h
   WHERE NOT EXISTS (SELECT 1 FROM c WHERE c.origin = r.origin
                        AND c.account_id = r.account_id AND c.client_id = r.client_id)
), turns AS (
  SELECT id, origin, next_attempt_at,
         coalesce(($7::jsonb ->> (origin || ' ' || account_id::text || ' ' || client_id))::int, 0)
         + row_number() OVER (PARTITION BY origin, account_id, client_id
                              ORDER BY next_attempt_at, id) AS turn
    FROM (SELECT * FROM c UNION ALL SELECT * FROM heads) candidates
), picked AS (
  SELECT id FROM (
    SELECT id, origin, row_number() OVER (PARTITION BY origin ORDER BY turn, next_attempt_at, id) AS rn
      FROM turns) ranked
   WHERE rn <= coalesce(($5::jsonb ->> origin)::int, $6::int)
), locked AS (
  SELECT id FROM deliveries
   WHERE ${madeByNow()} AND id = ANY (ARRAY(SELECT id FROM picked)) AND id <> ALL ($9::bigint[])
     AND state = 'pending' AND (lease_until IS NULL OR lease_until <= now())
   FOR UPDATE SKIP LOCKED
)`;

/** The lease itself, of the rows `locked` (CLAIM_CTES) holds; answers the claimed deliveries. */
export const CLAIM_UPDATE = `
UPDATE deliveries d
   SET lease_until = now() + $3::int * interval '1 millisecond',
       leased_by = $4,
       attempt_count = d.attempt_count + 1
 WHERE ${madeByNow('d')} AND d.id = ANY (ARRAY(SELECT id FROM locked))
RETURNING d.id::text AS id, d.kind, d.event_id::text AS event_id, d.account_id, d.client_id,
          d.event_type, d.event_data, d.user_data, d.url, d.origin, d.auth_key,
          d.previous_auth_key, d.previous_key_until, d.signing_key, d.previous_signing_key,
          d.attempt_count, d.round_attempts, d.traceparent, d.destination`;

/** The claim's common table expressions, in each form, up to its update (CLAIM_UPDATE). */
export const CLAIM_CTES: Record<ClaimForm, string> = {
  inDueOrder: CLAIM_WINDOW.inDueOrder + CLAIM_PICK,
  byOrigin: CLAIM_WINDOW.byOrigin + CLAIM_PICK,
};

/** Each form of the claim, as it is prepared. */
const CLAIM: Record<ClaimForm, { name: string; text: string }> = {
  inDueOrder: {
    name: 'clipgate_claim_deliveries',
    text: `WITH RECURSIVE ${CLAIM_CTES.inDueOrder}${CLAIM_UPDATE}`,
  },
  byOrigin: {
    name: 'clipgate_claim_deliveries_by_origin',
    text: `WITH RECURSIVE ${CLAIM_CTES.byOrigin}${CLAIM_UPDATE}`,
  },
};

/**
 * The registrations of one origin a claim looks past its window for: beyond, the others wait
 * for their deliveries to come up in due order.
 */
const REGISTRATIONS_PER_ORIGIN = 100;

/** What a claim asks for: up to `limit` deliveries for `leaseMs`, within `limits`. */
export interface ClaimArgs {
  instanceId: string;
  leaseMs: number;
  limit: number;
  limits: ClaimLimits;
  perOrigin: number;
}

/** The values of CLAIM_CTES and CLAIM_UPDATE, $1 to $9, leaving out the deliveries `except`. */
export const claimValues = (args: ClaimArgs, except: readonly string[] = []): unknown[] => [
  args.limits.saturated,
  args.limit,
  args.leaseMs,
  args.instanceId,
  JSON.stringify(args.limits.room),
  args.perOrigin,
  JSON.stringify(args.limits.held),
  REGISTRATIONS_PER_ORIGIN,
  except,
];

/**
 * Leases up to `limit` due deliveries to `instanceId` for `leaseMs`, within `limits`, the
 * registrations of each origin in turns.
 */
export async function claimDeliveries(q: Queryable, args: ClaimArgs): Promise<ClaimedDelivery[]> {
  const { rows } = await q.query<ClaimedDelivery>({
    ...CLAIM[claimForm(args.limits.saturated)],
    values: claimValues(args),
  });
  return rows;
}
