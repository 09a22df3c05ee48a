import type { Queryable } from '../../../storage/database.ts';
import type { ClaimLimits } from '../slots.ts';
import type { ClaimedDelivery } from './types.ts';

// The first `$2` due, unleased (or lease-expired) deliveries in due order, at most the room of
// each receiver origin ($5, default $6) of them, saturated origins ($1) left out. Candidates are
// read without locks; only the picked rows are locked, SKIP LOCKED, and their claimability is
// checked again on the locked version (READ COMMITTED re-evaluates the conditions of a FOR
// UPDATE row that changed), so two instances never lease the same delivery.
const CLAIM_SQL = `
WITH c AS (
  SELECT id, origin, next_attempt_at FROM deliveries
   WHERE state = 'pending' AND next_attempt_at <= now()
     AND (lease_until IS NULL OR lease_until <= now())
     AND origin <> ALL ($1::text[])
   ORDER BY next_attempt_at, id
   LIMIT $2
), picked AS (
  SELECT id FROM (
    SELECT id, origin, row_number() OVER (PARTITION BY origin ORDER BY next_attempt_at, id) AS rn
      FROM c) ranked
   WHERE rn <= coalesce(($5::jsonb ->> origin)::int, $6::int)
), locked AS (
  SELECT id FROM deliveries
   WHERE id = ANY (ARRAY(SELECT id FROM picked))
     AND state = 'pending' AND (lease_until IS NULL OR lease_until <= now())
   FOR UPDATE SKIP LOCKED
)
UPDATE deliveries d
   SET lease_until = now() + $3::int * interval '1 millisecond',
       leased_by = $4,
       attempt_count = d.attempt_count + 1
 WHERE d.id = ANY (ARRAY(SELECT id FROM locked))
RETURNING d.id::text AS id, d.kind, d.event_id::text AS event_id, d.account_id, d.client_id,
          d.event_type, d.event_data, d.user_data, d.url, d.origin, d.auth_key,
          d.previous_auth_key, d.previous_key_until, d.signing_key, d.previous_signing_key,
          d.attempt_count, d.round_attempts, d.traceparent`;

/** Leases up to `limit` due deliveries to `instanceId` for `leaseMs`, within `limits`. */
export async function claimDeliveries(
  q: Queryable,
  args: {
    instanceId: string;
    leaseMs: number;
    limit: number;
    limits: ClaimLimits;
    perOrigin: number;
  },
): Promise<ClaimedDelivery[]> {
  const { rows } = await q.query<ClaimedDelivery>({
    name: 'clipgate_claim_deliveries',
    text: CLAIM_SQL,
    values: [
      args.limits.saturated,
      args.limit,
      args.leaseMs,
      args.instanceId,
      JSON.stringify(args.limits.room),
      args.perOrigin,
    ],
  });
  return rows;
}
