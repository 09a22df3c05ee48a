import type { Queryable } from '../../../storage/database.ts';
import {
  CLAIM_CTES,
  CLAIM_UPDATE,
  claimForm,
  claimValues,
  type ClaimArgs,
  type ClaimForm,
} from './claim.ts';
import { RECORD_CTES, recordValues } from './record-outcomes.ts';
import type { ClaimedDelivery, Outcome } from './types.ts';

/** `sql` with its parameters $1, $2... renumbered from $`by + 1` on. */
const shifted = (sql: string, by: number) =>
  sql.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + by}`);

// The outcomes' write (./record-outcomes.ts, $1 to $3) and the next claim (./claim.ts, $4 to
// $12) in one statement: one round trip where they took two. Each part's conditions are its own
// statement's: the write is fenced by the lease of each attempt (leased_by, attempt_count), and
// the claim locks what no other instance holds, SKIP LOCKED. Both see the snapshot the statement
// started with, so a delivery recorded here is not claimed by it: those it writes are left out
// of the claim ($12, the same ids as $3), which a retry due at once reaches with the next claim.
function recordAndClaimSql(form: ClaimForm): string {
  return `WITH RECURSIVE ${RECORD_CTES},${shifted(CLAIM_CTES[form], 3)},
claimed AS (${shifted(CLAIM_UPDATE, 3)})
SELECT * FROM claimed`;
}

/** Each form of the statement (claim.ts), as it is prepared. */
const RECORD_AND_CLAIM: Record<ClaimForm, { name: string; text: string }> = {
  inDueOrder: { name: 'clipgate_record_and_claim', text: recordAndClaimSql('inDueOrder') },
  byOrigin: { name: 'clipgate_record_and_claim_by_origin', text: recordAndClaimSql('byOrigin') },
};

/**
 * Writes a batch of outcomes of `args.instanceId`'s attempts (none that discards a delivery: those
 * are written with their events, recorder.ts) and leases the next due deliveries as
 * `claimDeliveries` does, in one statement; resolves with the claimed deliveries.
 */
export async function recordAndClaim(
  q: Queryable,
  outcomes: readonly Outcome[],
  args: ClaimArgs,
): Promise<ClaimedDelivery[]> {
  const recorded = outcomes.map((o) => o.delivery.id);
  const { rows } = await q.query<ClaimedDelivery>({
    ...RECORD_AND_CLAIM[claimForm(args.limits.saturated)],
    values: [...recordValues(args.instanceId, outcomes), ...claimValues(args, recorded)],
  });
  return rows;
}
