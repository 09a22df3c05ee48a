import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventSignal } from '../../../src/events/outbox.ts';
import { createLogger } from '../../../src/logger.ts';
import {
  claimDeliveries,
  claimForm,
  claimValues,
  WALK_ROWS,
  type ClaimArgs,
} from '../../../src/notifications/delivery/queue/claim.ts';
import { dispatcherPool } from '../../../src/notifications/delivery/queue/pool.ts';
import { analyzeQueue, nextDueMs } from '../../../src/notifications/delivery/queue/reads.ts';
import { recordAndClaim } from '../../../src/notifications/delivery/queue/record-and-claim.ts';
import { recordValues } from '../../../src/notifications/delivery/queue/record-outcomes.ts';
import type { ClaimedDelivery, Outcome } from '../../../src/notifications/delivery/queue/types.ts';
import type { NextStep } from '../../../src/notifications/delivery/policy.ts';
import { OutcomeRecorder } from '../../../src/notifications/delivery/recorder.ts';
import { openDatabase, type Database } from '../../../src/storage/database.ts';
import { createPartitionsAhead } from '../../../src/storage/partitions.ts';
import { backends, directUrlOf, freshPostgres, migratedImage } from '../../helpers/app.ts';

const ACCOUNT = '0b7c0000-0000-4000-8000-000000000001';
let origins = 0;

/**
 * `count` due deliveries to an origin of their own (so that no other test's claim takes them), or
 * to `origin`, of the registration of `clientId`.
 */
async function queue(
  db: Database,
  count: number,
  origin = `http://127.0.0.1:${9000 + ++origins}`,
  clientId = 'client',
): Promise<string> {
  await db.pool.query(
    `INSERT INTO deliveries (kind, account_id, client_id, event_type, event_data, url, origin, auth_key)
     SELECT 'test', $1, $4, 'test_notification', '{}', $2 || '/hook', $2, 'sealed'
       FROM generate_series(1, $3)`,
    [ACCOUNT, origin, count, clientId],
  );
  return origin;
}

/** A claim of up to `limit` deliveries of `origin` alone (every other origin left out). */
async function claimArgs(
  db: Database,
  instanceId: string,
  origin: string,
  limit: number,
  leaseMs = 60_000,
): Promise<ClaimArgs> {
  const { rows } = await db.pool.query<{ origin: string }>(
    'SELECT DISTINCT origin FROM deliveries WHERE origin <> $1',
    [origin],
  );
  return {
    instanceId,
    leaseMs,
    limit,
    limits: { saturated: rows.map((r) => r.origin), room: {}, held: {} },
    perOrigin: 16,
  };
}

const outcome = (delivery: ClaimedDelivery, next: NextStep, attempt?: number): Outcome => ({
  delivery: { ...delivery, attempt_count: attempt ?? delivery.attempt_count },
  startedAt: new Date(),
  result: {
    outcome: next.state === 'delivered' ? 'accepted' : 'failed',
    status: next.state === 'delivered' ? 204 : 500,
    error: null,
    errorMessage: null,
    durationMs: 2,
    responseSnippet: '',
  },
  next,
});

interface Row {
  id: string;
  state: string;
  attempt_count: number;
  round_attempts: number;
  leased_by: string | null;
  attempts: number;
}

async function rows(db: Database, origin: string): Promise<Row[]> {
  const { rows } = await db.pool.query<Row>(
    `SELECT d.id::text AS id, d.state, d.attempt_count, d.round_attempts, d.leased_by,
            (SELECT count(*)::int FROM delivery_attempts a WHERE a.delivery_id = d.id) AS attempts
       FROM deliveries d WHERE d.origin = $1 ORDER BY d.id`,
    [origin],
  );
  return rows;
}

const ids = (claimed: readonly { id: string }[]) => claimed.map((d) => d.id).sort();

/** The database's pool, each query outside a transaction shown to `seen` as it starts. */
const watched = (
  db: Database,
  seen: (config: unknown, running: Promise<unknown>) => void,
): pg.Pool =>
  ({
    query: (config: unknown, values?: unknown) => {
      const running = db.pool.query(config as never, values as never);
      seen(config, running);
      return running;
    },
    connect: () => db.pool.connect(),
  }) as unknown as pg.Pool;

describe.each(backends)('outcomes written and the next claim, in one statement (%s)', (backend) => {
  let db: Database;
  let drop = async () => {};
  beforeAll(async () => {
    const logger = createLogger('silent');
    if (backend === 'pglite') {
      db = await openDatabase({
        databaseUrl: undefined,
        embeddedDir: 'memory://',
        embeddedImage: await migratedImage(),
        logger,
      });
    } else {
      const pg = await freshPostgres({ migrated: true });
      drop = pg.drop;
      db = await openDatabase({
        databaseUrl: pg.url,
        directUrl: directUrlOf(pg.url),
        embeddedDir: '',
        logger,
      });
    }
  });
  afterAll(async () => {
    await db?.close();
    await drop();
  });

  it('writes the outcomes its lease fences and leases the next due deliveries', async () => {
    const origin = await queue(db, 5);
    const [first, second] = await claimDeliveries(db.pool, await claimArgs(db, 'a', origin, 2));
    // The second outcome names an attempt before the lease's: fenced out, as alone.
    const claimed = await recordAndClaim(
      db.pool,
      [outcome(first!, { state: 'delivered' }), outcome(second!, { state: 'delivered' }, 0)],
      await claimArgs(db, 'a', origin, 2),
    );
    expect(claimed).toHaveLength(2);
    expect(claimed.every((d) => d.attempt_count === 1)).toBe(true);
    const after = await rows(db, origin);
    expect(after.map((r) => [r.state, r.attempt_count, r.leased_by, r.attempts])).toEqual([
      ['delivered', 1, null, 1],
      ['pending', 1, 'a', 1], // its attempt is logged; the delivery stays leased
      ['pending', 1, 'a', 0],
      ['pending', 1, 'a', 0],
      ['pending', 0, null, 0],
    ]);
    expect(ids(claimed)).toEqual([after[2]!.id, after[3]!.id]);
  });

  it("writes nothing over another instance's lease, and claims what is due around it", async () => {
    const origin = await queue(db, 2);
    const [taken] = await claimDeliveries(db.pool, await claimArgs(db, 'a', origin, 1, 1));
    await new Promise((resolve) => setTimeout(resolve, 20)); // a's lease expires
    // b claims it again: the next attempt, fenced by attempt_count 2.
    const [again] = await claimDeliveries(db.pool, await claimArgs(db, 'b', origin, 1));
    expect(again!.id).toBe(taken!.id);
    expect(again!.attempt_count).toBe(2);
    // a's late outcome, written with a's next claim, changes nothing of b's lease.
    const claimed = await recordAndClaim(
      db.pool,
      [outcome(taken!, { state: 'discarded' })],
      await claimArgs(db, 'a', origin, 5),
    );
    const after = await rows(db, origin);
    expect(after.map((r) => [r.state, r.attempt_count, r.leased_by])).toEqual([
      ['pending', 2, 'b'],
      ['pending', 1, 'a'],
    ]);
    expect(ids(claimed)).toEqual([after[1]!.id]);
  });

  it('never claims a delivery whose outcome it writes, even when its lease has expired', async () => {
    const origin = await queue(db, 1);
    const [taken] = await claimDeliveries(db.pool, await claimArgs(db, 'a', origin, 1, 1));
    await new Promise((resolve) => setTimeout(resolve, 20)); // expired: claimable again
    const claimed = await recordAndClaim(
      db.pool,
      [outcome(taken!, { state: 'pending', delayMs: 0 })],
      await claimArgs(db, 'a', origin, 5),
    );
    expect(claimed).toEqual([]);
    // The retry is written (due at once), and the next claim takes it as the second attempt.
    expect(await rows(db, origin)).toMatchObject([
      { state: 'pending', attempt_count: 1, round_attempts: 1, leased_by: null, attempts: 1 },
    ]);
    const [next] = await claimDeliveries(db.pool, await claimArgs(db, 'a', origin, 5));
    expect(next).toMatchObject({ id: taken!.id, attempt_count: 2, round_attempts: 1 });
  });

  it('the recorder claims with the batch being gathered, and alone when none is', async () => {
    const origin = await queue(db, 5);
    const statements: string[] = [];
    // The database itself, the name of each named statement outside a transaction noted (not
    // ANALYZE's).
    const pool = watched(db, (config) => {
      const { name } = config as { name?: string };
      if (name) statements.push(name);
    });
    // Busy from the first outcome on, gathering for 5 s.
    const recorder = new OutcomeRecorder(pool, 'a', createLogger('silent'), new EventSignal(), {
      ms: 5000,
      busyPerSecond: 10,
    });
    // Nothing to write: alone (by origin: claimArgs leaves every other origin out).
    const [first] = await recorder.claim(await claimArgs(db, 'a', origin, 1));
    expect(statements).toEqual(['clipgate_claim_deliveries_by_origin']);
    // A batch gathering: the claim ends the wait and rides its statement.
    const args = await claimArgs(db, 'a', origin, 2);
    const started = performance.now();
    const written = recorder.record(outcome(first!, { state: 'delivered' }));
    const claimed = await recorder.claim(args);
    await written;
    expect(performance.now() - started).toBeLessThan(4000);
    expect(statements).toEqual([
      'clipgate_claim_deliveries_by_origin',
      'clipgate_record_and_claim_by_origin',
    ]);
    expect(claimed).toHaveLength(2);
    // A batch that discards is written with its events in a transaction; the claim goes alone.
    const [third] = await recorder.claim(await claimArgs(db, 'a', origin, 1));
    const discardArgs = await claimArgs(db, 'a', origin, 1);
    const discarding = recorder.record(outcome(third!, { state: 'discarded' }));
    expect(await recorder.claim(discardArgs)).toHaveLength(1);
    await discarding;
    expect(statements.slice(2)).toEqual([
      'clipgate_claim_deliveries_by_origin',
      'clipgate_claim_deliveries_by_origin',
    ]);
    // Not busy: an outcome is written at once, and a claim meanwhile goes alone beside it.
    statements.length = 0;
    const quiet = new OutcomeRecorder(pool, 'a', createLogger('silent'), new EventSignal());
    const [, fifth] = await claimDeliveries(db.pool, await claimArgs(db, 'a', origin, 5));
    expect(fifth).toBeUndefined(); // all five taken
    await Promise.all([
      quiet.record(outcome(claimed[0]!, { state: 'delivered' })),
      quiet.claim(await claimArgs(db, 'a', origin, 5)),
    ]);
    await recorder.settled();
    await quiet.settled();
    expect(statements.sort()).toEqual([
      'clipgate_claim_deliveries_by_origin',
      'clipgate_record_outcomes',
    ]);
    expect((await rows(db, origin)).map((r) => r.state)).toEqual([
      'delivered',
      'delivered',
      'pending',
      'discarded',
      'pending',
    ]);
  });

  it('the recorder analyzes the queue at start and on a burst after an empty claim', async () => {
    const analyzes: Promise<unknown>[] = [];
    const pool = watched(db, (config, running) => {
      if (typeof config === 'string' && config.includes('ANALYZE')) analyzes.push(running);
    });
    const recorder = new OutcomeRecorder(pool, 'a', createLogger('silent'), new EventSignal());
    // Room for all of an origin's deliveries in one claim.
    const claimAll = async (origin: string) => {
      const args = await claimArgs(db, 'a', origin, 400);
      return recorder.claim({ ...args, limits: { ...args.limits, room: { [origin]: 400 } } });
    };
    recorder.churned(0); // at start
    expect(analyzes).toHaveLength(1);
    const none = await queue(db, 0);
    expect(await claimAll(none)).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 2100)); // ANALYZE_MIN_INTERVAL_MS
    // A few after an empty claim: no burst.
    expect(await claimAll(await queue(db, 5))).toHaveLength(5);
    expect(analyzes).toHaveLength(1);
    // A burst, but not after an empty claim: the statistics know of the queue's work.
    expect(await claimAll(await queue(db, 150))).toHaveLength(150);
    expect(analyzes).toHaveLength(1);
    // A burst after an empty claim: analyzed at once.
    expect(await claimAll(none)).toEqual([]);
    expect(await claimAll(await queue(db, 150))).toHaveLength(150);
    expect(analyzes).toHaveLength(2);
    await Promise.all(analyzes);
  });
});

describe.runIf(backends.includes('postgres'))("the dispatcher's connections on postgres", () => {
  let db: Database;
  let drop = async () => {};
  beforeAll(async () => {
    const pg = await freshPostgres({ migrated: true });
    drop = pg.drop;
    // Settings go to a database connected directly (behind a pooler none are sent).
    db = await openDatabase({
      databaseUrl: directUrlOf(pg.url) ?? pg.url,
      embeddedDir: '',
      logger: createLogger('silent'),
    });
  });
  afterAll(async () => {
    await db?.close();
    await drop();
  });

  it('plan each form of the claim once per connection (a generic plan), without JIT', () =>
    onDispatcherConnection(db, async (client) => {
      const origin = await queue(db, 24);
      const inDueOrder = await claimArgs(db, 'a', origin, 2); // the only origin
      const byOrigin = {
        ...inDueOrder,
        limits: { ...inDueOrder.limits, saturated: ['http://127.0.0.1:1'] },
      };
      for (let i = 0; i < 6; i++) {
        for (const args of [byOrigin, inDueOrder]) {
          expect(await claimDeliveries(client, args)).toHaveLength(2);
        }
      }
      const { rows } = await client.query<{ custom: string; generic: string; jit: string }>(
        `SELECT name, custom_plans AS custom, generic_plans AS generic,
                current_setting('jit') AS jit
           FROM pg_prepared_statements WHERE name LIKE 'clipgate_claim_deliveries%' ORDER BY name`,
      );
      expect(rows).toEqual([
        { name: 'clipgate_claim_deliveries', custom: '0', generic: '6', jit: 'off' },
        { name: 'clipgate_claim_deliveries_by_origin', custom: '0', generic: '6', jit: 'off' },
      ]);
    }));

  it("walk the registrations' index past a backlog, once the queue is analyzed", () =>
    onDispatcherConnection(db, async (client) => {
      // A registration's backlog, and a second registration's deliveries behind it: a claim
      // fills its window with the first and looks for the second's by the registrations' index.
      const origin = await queue(db, 40_000);
      await queue(db, 3, origin, 'second');
      await analyzeQueue(client);
      const byOrigin = await claimArgs(db, 'a', origin, 16);
      // The other origins' deliveries are leased by the test before: in due order, the same.
      const inDueOrder = { ...byOrigin, limits: { ...byOrigin.limits, saturated: [] } };
      for (const args of [byOrigin, inDueOrder]) {
        const plan = await explained(client, args);
        // Without the registration's columns analyzed, the plan sorted the whole backlog; with
        // the second registration's deliveries found through the due index, it walked it.
        expect(mostRows(plan)).toBeLessThan(500);
        expect(mostRows(plan)).toBeGreaterThanOrEqual(16);
      }
    }));

  it("take the window by origin past a saturated origin's backlog", () =>
    onDispatcherConnection(db, async (client) => {
      // A slow receiver's backlog, due before the deliveries of another origin, alone in the
      // queue: with few origins, each is estimated to hold much of it.
      await db.pool.query('DELETE FROM deliveries');
      const saturated = await queue(db, 40_000);
      const origin = await queue(db, 3);
      await analyzeQueue(client);
      const args = await claimArgs(db, 'a', origin, 16);
      expect(args.limits.saturated).toEqual([saturated]);
      // In due order, the claim read all 40,000 of the saturated origin to leave them out; now
      // it stops after the walk's rows and reads the other origin's by itself.
      expect(mostRows(await explained(client, args))).toBeLessThanOrEqual(WALK_ROWS);
      expect(await claimDeliveries(client, args)).toHaveLength(3);
      // The next due, as the dispatcher looks for it after an empty claim: the saturated
      // origin's backlog is not read either.
      await db.pool.query(
        `UPDATE deliveries SET next_attempt_at = now() + interval '1 hour', lease_until = NULL
          WHERE origin = $1`,
        [origin],
      );
      const due = await nextDueMs(client, args.limits.saturated);
      expect(due).toBeGreaterThan(3_500_000);
      expect(due).toBeLessThanOrEqual(3_600_000);
      expect(await nextDueMs(client, [])).toBeLessThanOrEqual(0);
      const nextDue = await planOf(client, 'clipgate_next_due_by_origin', [[saturated]]);
      expect(mostRows(nextDue)).toBeLessThanOrEqual(WALK_ROWS);
    }));

  it("open none of the day partitions made ahead: no delivery's row is made there", () =>
    onDispatcherConnection(db, async (client) => {
      await createPartitionsAhead(db.pool);
      const { rows: ahead } = await client.query<{ name: string }>(
        `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
          WHERE i.inhparent = 'deliveries'::regclass
            AND (regexp_match(pg_get_expr(c.relpartbound, c.oid), 'FROM \\(''([^'']+)''\\)'))[1]
                ::timestamptz > now() + interval '1 hour'`,
      );
      expect(ahead.length).toBeGreaterThanOrEqual(7); // a week of days, and the guard above
      await queue(db, 4);
      const inDueOrder: ClaimArgs = {
        instanceId: 'a',
        leaseMs: 60_000,
        limit: 2,
        limits: { saturated: [], room: {}, held: {} },
        perOrigin: 16,
      };
      const byOrigin = {
        ...inDueOrder,
        limits: { ...inDueOrder.limits, saturated: ['http://127.0.0.1:1'] },
      };
      const plans = [await explained(client, inDueOrder), await explained(client, byOrigin)];
      for (const [name, saturated] of [
        ['clipgate_next_due', []],
        ['clipgate_next_due_by_origin', ['http://127.0.0.1:1']],
      ] as const) {
        await nextDueMs(client, [...saturated]);
        plans.push(await planOf(client, name, [saturated]));
      }
      await client.query('BEGIN');
      try {
        const claimed = await claimDeliveries(client, inDueOrder);
        const outcomes = claimed.map((d) => outcome(d, { state: 'delivered' }));
        await recordAndClaim(client, outcomes, inDueOrder);
        const values = [...recordValues('a', outcomes), ...claimValues(inDueOrder, [])];
        plans.push(await planOf(client, 'clipgate_record_and_claim', values));
      } finally {
        await client.query('ROLLBACK');
      }
      const read = new Set(plans.flatMap(relations));
      expect(read).toContain('deliveries_archive');
      expect([...read].filter((r) => ahead.some((a) => a.name === r))).toEqual([]);
    }));
});

/** `run` on a connection of the dispatcher's own pool, which ends after it. */
async function onDispatcherConnection(
  db: Database,
  run: (client: pg.PoolClient) => Promise<void>,
): Promise<void> {
  const { pool, end } = dispatcherPool(db);
  const client = await pool.connect();
  try {
    await run(client);
  } finally {
    client.release();
    await end();
  }
}

/**
 * The plan of a claim with `args` on `client`, in the form they call for: prepared as the
 * dispatcher prepares it (its generic plan), then run again, explained, and rolled back.
 */
async function explained(client: pg.PoolClient, args: ClaimArgs): Promise<PlanNode> {
  const name = {
    inDueOrder: 'clipgate_claim_deliveries',
    byOrigin: 'clipgate_claim_deliveries_by_origin',
  }[claimForm(args.limits.saturated)];
  await client.query('BEGIN');
  try {
    await claimDeliveries(client, args);
    return await planOf(client, name, claimValues(args));
  } finally {
    await client.query('ROLLBACK');
  }
}

/** The plan of the statement prepared as `name` on `client`, run with `values`, explained. */
async function planOf(client: pg.PoolClient, name: string, values: unknown[]): Promise<PlanNode> {
  const literals = values.map((value) =>
    client.escapeLiteral(Array.isArray(value) ? `{${value.join(',')}}` : String(value)),
  );
  const { rows } = await client.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
    `EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE ${name}(${literals.join(', ')})`,
  );
  return rows[0]!['QUERY PLAN'][0].Plan;
}

/** What EXPLAIN (FORMAT JSON) tells of a node. */
interface PlanNode {
  'Relation Name'?: string;
  'Actual Rows': number;
  'Actual Loops': number;
  'Rows Removed by Filter'?: number;
  Plans?: PlanNode[];
}

/** The tables and partitions a plan reads. */
const relations = (node: PlanNode): string[] => [
  ...(node['Relation Name'] ? [node['Relation Name']] : []),
  ...(node.Plans ?? []).flatMap(relations),
];

/** The most rows any one node of a plan read: those it produced and those its filter removed. */
const mostRows = (node: PlanNode): number =>
  Math.max(
    (node['Actual Rows'] + (node['Rows Removed by Filter'] ?? 0)) * node['Actual Loops'],
    ...(node.Plans ?? []).map(mostRows),
  );
