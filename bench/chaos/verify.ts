import pg from 'pg';
import type { Kill } from './cluster.ts';
import type { Outage } from './faults.ts';
import type { ChaosAccount } from './load.ts';
import type { Arrival, ChaosReceiver } from './receivers.ts';
import type { ChaosSubscriber } from './subscribers.ts';
import { REGISTERED_TYPES } from './load.ts';

/** Everything the run recorded, to compare with the database. */
export interface RunRecords {
  databaseUrl: string;
  accounts: ChaosAccount[];
  receivers: ChaosReceiver[];
  subscribers: ChaosSubscriber[];
  acknowledged: string[];
  kills: Kill[];
  crashes: { index: number; at: number; code: number | null }[];
  outages: Outage[];
  serverErrors: { at: number; status: number; path: string }[];
  startedAt: number;
  /** When the quiet phase began (its events are held to the latency bound). */
  quietFrom: number;
  endedAt: number;
}

/** Commit-to-receipt latencies of a set of events, over every subscriber of their accounts. */
export interface Latency {
  /** Receipts measured (an event times its account's subscribers). */
  receipts: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

/** The latency of the events committed within a while after one fault. */
export interface AfterFault extends Latency {
  fault: string;
  /** Seconds from the start of the run. */
  at: number;
}

export interface Verdict {
  events: number;
  deliveries: Record<string, number>;
  /** Committed events or acknowledged writes with no accounted outcome: must be 0. */
  unaccounted: string[];
  duplicates: number;
  /** Repeats no SIGKILL or outage explains. */
  unexplainedDuplicates: string[];
  /** Two attempts of one delivery in flight at once. */
  overlaps: string[];
  /** Per subscriber: events missing, repeated or out of order after its resumes. */
  gaps: string[];
  resumes: number;
  liveEvents: number;
  /** Instances that exited on their own. */
  crashes: string[];
  /** 5xx other than 503, or a 503 outside an outage (+ slack). */
  badServerErrors: string[];
  unavailableDuringOutages: number;
  deliveriesPerSecond: number;
  fanOutP99Ms: number;
  fanOutP50Ms: number;
  /** The quiet phase's events, every receipt. */
  quiet: Latency;
  /**
   * Receipts of quiet-phase events later than QUIET_BOUND_MS after they were due: after their
   * commit, or after the end of a fault that began before then (must be none).
   */
  held: string[];
  afterFaults: AfterFault[];
}

/**
 * How long after it is due a quiet-phase event may reach a subscriber: the live path's bound
 * (about a second for an event the pub/sub never carried), with room for a loaded machine.
 */
export const QUIET_BOUND_MS = 5000;
/** The events committed this long after a fault count as after it. */
const AFTER_FAULT_MS = 10_000;

/** How far around a fault a repeat (or a 503) is put down to it. */
const SLACK_MS = 5000;

const isAccepted = (a: Arrival) => a.verified && a.answered && a.status >= 200 && a.status < 300;

const quantile = (sorted: number[], q: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]! : 0;

/** Compares the receivers' and subscribers' records with the event log and the delivery queue. */
export async function verify(records: RunRecords): Promise<Verdict> {
  const db = new pg.Client({ connectionString: records.databaseUrl });
  await db.connect();
  const accountIds = records.accounts.map((a) => a.accountId);
  try {
    const events = (
      await db.query<LoggedEvent>(
        `SELECT id::text AS id, account_id::text AS account_id, event_type,
                (event_data->>'accessoryId') || '/' || (event_data->>'activityId') AS key,
                occurred_at
           FROM events WHERE account_id = ANY($1::uuid[]) ORDER BY events.id`,
        [accountIds],
      )
    ).rows;
    const deliveries = (
      await db.query<{ event_id: string; account_id: string; state: string; finished_at: Date }>(
        `SELECT event_id::text AS event_id, account_id::text AS account_id, state, finished_at
           FROM deliveries WHERE kind = 'event' AND account_id = ANY($1::uuid[])`,
        [accountIds],
      )
    ).rows;
    return judge(records, events, deliveries);
  } finally {
    await db.end();
  }
}

interface LoggedEvent {
  id: string;
  account_id: string;
  event_type: string;
  key: string | null;
  occurred_at: Date;
}

function judge(
  records: RunRecords,
  events: LoggedEvent[],
  deliveries: { event_id: string; account_id: string; state: string; finished_at: Date }[],
): Verdict {
  const unaccounted: string[] = [];
  const byAccount = new Map(records.accounts.map((a) => [a.accountId, a]));
  const arrivals = new Map<string, Arrival[]>();
  for (const r of records.receivers) {
    for (const a of r.arrivals)
      arrivals.set(a.webhookId, [...(arrivals.get(a.webhookId) ?? []), a]);
  }

  // Every acknowledged create is in the log.
  const created = new Set(
    events.filter((e) => e.event_type === 'activity_created').map((e) => e.key),
  );
  for (const key of records.acknowledged) {
    if (!created.has(key)) unaccounted.push(`acknowledged create ${key} has no event`);
  }

  // Every event of a registered type has a delivery, for the accounts whose registration stays.
  const delivered = new Map(deliveries.map((d) => [d.event_id, d]));
  for (const e of events) {
    const account = byAccount.get(e.account_id)!;
    if (!REGISTERED_TYPES.includes(e.event_type) || account.receiver.behaviour === 'gone') continue;
    if (!delivered.has(e.id)) unaccounted.push(`event ${e.id} (${e.event_type}) has no delivery`);
  }

  // Every delivery ended in a way the receiver's records account for.
  const states: Record<string, number> = {};
  for (const d of deliveries) {
    states[d.state] = (states[d.state] ?? 0) + 1;
    const behaviour = byAccount.get(d.account_id)!.receiver.behaviour;
    const got = arrivals.get(d.event_id) ?? [];
    const ok =
      (d.state === 'delivered' && got.some(isAccepted)) ||
      (d.state === 'discarded' && behaviour === 'failing') ||
      (d.state === 'gone' && got.some((a) => a.answered && a.status === 410)) ||
      (d.state === 'dropped' && behaviour === 'gone');
    if (!ok)
      unaccounted.push(
        `delivery of event ${d.event_id}: ${d.state} on a ${behaviour} receiver, ${got.length} arrivals`,
      );
  }

  // Repeats after an accepted attempt, and attempts of one delivery in flight at once.
  const faults = [
    ...[...records.kills, ...records.crashes].map((k) => ({ from: k.at, to: k.at })),
    ...records.outages.map((o) => ({ from: o.from, to: o.to })),
  ];
  const explained = (from: number, to: number) =>
    faults.some((f) => f.to >= from - SLACK_MS && f.from <= to);
  let duplicates = 0;
  const unexplainedDuplicates: string[] = [];
  const overlaps: string[] = [];
  for (const [id, list] of arrivals) {
    list.sort((a, b) => a.arrivedAt - b.arrivedAt);
    for (let i = 1; i < list.length; i++) {
      if (list[i]!.arrivedAt < list[i - 1]!.endedAt)
        overlaps.push(`webhook-id ${id}, attempt ${i + 1}`);
    }
    const first = list.findIndex(isAccepted);
    if (first < 0) continue;
    for (const repeat of list.slice(first + 1)) {
      duplicates++;
      if (!explained(list[first]!.endedAt, repeat.arrivedAt)) unexplainedDuplicates.push(id);
    }
  }

  // Each subscriber's stream is its account's log, in order, with nothing missing or repeated.
  const logs = new Map<string, string[]>();
  for (const e of events) logs.set(e.account_id, [...(logs.get(e.account_id) ?? []), e.id]);
  const gaps: string[] = [];
  const latencies: number[] = [];
  let resumes = 0;
  let liveEvents = 0;
  for (const s of records.subscribers) {
    resumes += s.subscriptions - 1;
    liveEvents += s.received.length;
    const log = (logs.get(s.account.accountId) ?? []).filter(
      (id) => BigInt(id) > BigInt(s.account.since),
    );
    const got = s.received.map((r) => r.eventId);
    const name = `${s.transport} subscriber of ${s.account.subject}`;
    // The first position where they differ; a stream that is only short differs at its end.
    const differs = got.findIndex((id, i) => id !== log[i]);
    const at = differs >= 0 ? differs : Math.min(got.length, log.length);
    if (differs >= 0 || got.length !== log.length) {
      gaps.push(
        `${name}: ${got.length} events for ${log.length} logged; first difference at ${at} ` +
          `(got ${got.slice(at, at + 3).join()}, logged ${log.slice(at, at + 3).join()}; after ${s.account.since})`,
      );
    }
    for (const r of s.received) if (!r.replay) latencies.push(r.at - r.occurredAt);
  }
  latencies.sort((a, b) => a - b);

  // 5xx: only 503s, and only while a dependency was cut.
  const badServerErrors: string[] = [];
  let unavailableDuringOutages = 0;
  for (const e of records.serverErrors) {
    const inOutage = records.outages.some(
      (o) => e.at >= o.from - SLACK_MS && e.at <= o.to + SLACK_MS,
    );
    if (e.status === 503 && inOutage) unavailableDuringOutages++;
    else
      badServerErrors.push(
        `${e.status} on ${e.path} at +${((e.at - records.startedAt) / 1000).toFixed(1)} s`,
      );
  }

  const { quiet, held, afterFaults } = eventLatencies(records, events);
  const seconds = (records.endedAt - records.startedAt) / 1000;
  return {
    quiet,
    held,
    afterFaults,
    events: events.length,
    deliveries: states,
    unaccounted,
    duplicates,
    unexplainedDuplicates,
    overlaps,
    gaps,
    resumes,
    liveEvents,
    crashes: records.crashes.map(
      (c) =>
        `instance ${c.index} exited with ${c.code} at +${((c.at - records.startedAt) / 1000).toFixed(1)} s`,
    ),
    badServerErrors,
    unavailableDuringOutages,
    deliveriesPerSecond:
      deliveries.filter(
        (d) => d.state === 'delivered' && d.finished_at.getTime() <= records.endedAt,
      ).length / seconds,
    fanOutP99Ms: quantile(latencies, 0.99),
    fanOutP50Ms: quantile(latencies, 0.5),
  };
}

const latencyOf = (values: number[]): Latency => {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    receipts: sorted.length,
    p50Ms: quantile(sorted, 0.5),
    p99Ms: quantile(sorted, 0.99),
    maxMs: sorted.at(-1) ?? 0,
  };
};

/**
 * Per event and subscriber of its account, from the commit (the event's `occurred_at`) to the
 * first receipt: the quiet phase's figures and held receipts, and the figures after each fault.
 */
function eventLatencies(records: RunRecords, events: LoggedEvent[]) {
  const faults = [
    ...records.kills.map((k) => ({ what: 'SIGKILL', from: k.at, to: k.at })),
    ...records.crashes.map((c) => ({ what: 'crash', from: c.at, to: c.at })),
    ...records.outages.map((o) => ({
      what: o.atCommit ? `${o.what} cut at a commit` : `${o.what} cut`,
      from: o.from,
      to: o.to,
    })),
  ].sort((a, b) => a.from - b.from);
  const receipts = records.subscribers.map((s) => {
    const at = new Map<string, number>();
    for (const r of s.received) if (!at.has(r.eventId)) at.set(r.eventId, r.at);
    return { subscriber: s, at };
  });
  /** The latencies of the events `pick` selects, with the commit time of each. */
  const measure = (pick: (committed: number) => boolean) => {
    const measured: { event: LoggedEvent; name: string; committed: number; ms: number }[] = [];
    for (const event of events) {
      const committed = event.occurred_at.getTime();
      if (!pick(committed)) continue;
      for (const { subscriber, at } of receipts) {
        if (subscriber.account.accountId !== event.account_id) continue;
        if (BigInt(event.id) <= BigInt(subscriber.account.since)) continue;
        const received = at.get(event.id);
        if (received === undefined) continue; // a gap, reported as one
        const name = `${subscriber.transport} subscriber of ${subscriber.account.subject}`;
        measured.push({ event, name, committed, ms: received - committed });
      }
    }
    return measured;
  };
  const quietReceipts = measure((committed) => committed >= records.quietFrom);
  const held: string[] = [];
  for (const r of quietReceipts) {
    // Due at its commit, or when a fault that began before it could arrive was over.
    const due = Math.max(
      r.committed,
      ...faults.filter((f) => f.from <= r.committed + QUIET_BOUND_MS).map((f) => f.to),
    );
    const late = r.committed + r.ms - due;
    if (late > QUIET_BOUND_MS) {
      held.push(
        `${r.name}: event ${r.event.id} (${r.event.event_type}) arrived ${late} ms after it was due (${r.ms} ms after its commit)`,
      );
    }
  }
  const afterFaults = faults.map((f) => ({
    fault: f.what,
    at: Math.round((f.from - records.startedAt) / 100) / 10,
    ...latencyOf(
      measure((committed) => committed >= f.from && committed < f.from + AFTER_FAULT_MS).map(
        (r) => r.ms,
      ),
    ),
  }));
  return { quiet: latencyOf(quietReceipts.map((r) => r.ms)), held, afterFaults };
}

/** True when the verdict holds every promise. */
export const holds = (v: Verdict) =>
  v.unaccounted.length === 0 &&
  v.unexplainedDuplicates.length === 0 &&
  v.overlaps.length === 0 &&
  v.gaps.length === 0 &&
  v.crashes.length === 0 &&
  v.badServerErrors.length === 0 &&
  v.held.length === 0;
