import {
  evaluateFilter,
  parseFilter,
  type FilterNode,
  type FilterSubject,
} from '../filter/index.ts';
import { TtlCache } from '../cache.ts';
import type { RowQuery } from '../storage/database.ts';
import {
  loadZoneIndexes,
  savedZoneIndex,
  testsZones,
  zoneMembershipEvaluate,
  type ZoneIndex,
} from '../zones/membership.ts';
import type { NewEvent } from './types.ts';

/**
 * Event filters: the filter language of listing (src/filter, plus `accessoryId`)
 * applied to events, for notification registrations (src/events/outbox.ts) and live
 * subscriptions (src/events/live). What an event is tested as:
 * - `activity_*`: the activity its eventData carries, as the change left it;
 * - `motion_*`: its accessoryId and motionZones; it has no activity, so every other attribute
 *   is absent (comparisons with it are false, attribute_not_exists true);
 * - anything else (`account_deleted`, `zones_saved`): it always passes.
 * A motionZones condition follows the zones-and-time rule of listing with the accessory's
 * current zones (src/zones/membership.ts); motion events are live, so theirs are exact.
 */

type EventFields = Pick<NewEvent, 'eventType' | 'accessoryId' | 'eventData'>;

const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
const numbers = (value: unknown): number[] =>
  Array.isArray(value) ? value.filter((v): v is number => typeof v === 'number') : [];
const date = (value: unknown): Date | null => (typeof value === 'string' ? new Date(value) : null);

/** What the filter sees of the event, or null for an event every filter lets pass. */
export function filterSubject(event: EventFields): FilterSubject | null {
  const data = event.eventData;
  if (event.accessoryId === null) return null;
  if (event.eventType.startsWith('activity_')) {
    return {
      activityId: typeof data.activityId === 'string' ? data.activityId : null,
      accessoryId: event.accessoryId,
      startTime: date(data.startTime),
      endTime: date(data.endTime),
      playbackDuration: typeof data.playbackDuration === 'number' ? data.playbackDuration : null,
      relevanceLevel: typeof data.relevanceLevel === 'number' ? data.relevanceLevel : null,
      motionZones: strings(data.motionZones),
      objectLocations: numbers(data.objectLocations),
    };
  }
  if (event.eventType.startsWith('motion_')) {
    return {
      activityId: null,
      accessoryId: event.accessoryId,
      startTime: null,
      endTime: null,
      playbackDuration: null,
      relevanceLevel: null,
      motionZones: strings(data.motionZones),
      objectLocations: [],
    };
  }
  return null;
}

/** Whether the event passes the filter, with the zones of the event's accessory. */
export function eventPasses(
  node: FilterNode,
  event: EventFields,
  zones: ZoneIndex | null | undefined,
): boolean {
  const subject = filterSubject(event);
  return (
    subject === null ||
    evaluateFilter(node, subject, { inZone: zoneMembershipEvaluate(zones ?? null) })
  );
}

/** A filter's text as stored, parsed; a text that no longer parses lets nothing pass. */
function storedFilter(text: string): FilterNode | null {
  try {
    return parseFilter(text);
  } catch {
    return null;
  }
}

/** A filtered registration that an event passed, as the outbox's statement matches it. */
export interface PassedFilter {
  /** The event's position in the recorded batch, from 1. */
  ord: number;
  clientId: string;
  /** The filter text it passed. */
  filter: string;
}

/** A registration's filter as stored, and parsed (null: it no longer parses). */
interface RegistrationFilter {
  accountId: string;
  clientId: string;
  filter: string;
  node: FilterNode | null;
}

/**
 * How the filtered registrations of a batch's accounts judged its events: the ones each event
 * passed, and every (client, filter text) judged. The statement that records the events refuses
 * them (SQLSTATE CGFLT) when an account has a filtered registration that is not among the
 * judged, so a judgement made on filters read earlier (a cache) is never applied to a newer one.
 */
export interface EventFilters {
  passed: PassedFilter[];
  judged: { clientId: string; filter: string }[];
}

/** The accounts whose filtered registrations judge some of the events. */
const judgedAccounts = (events: readonly NewEvent[]): string[] => [
  ...new Set(events.flatMap((e) => (filterSubject(e) === null ? [] : [e.accountId]))),
];

async function readFilters(query: RowQuery, accountIds: string[]): Promise<RegistrationFilter[]> {
  if (accountIds.length === 0) return [];
  const rows = await query<{ accountId: string; clientId: string; filter: string }>(
    `SELECT account_id::text AS "accountId", client_id AS "clientId", filter
       FROM notification_registrations
      WHERE account_id = ANY ($1::uuid[]) AND filter IS NOT NULL`,
    [accountIds],
  );
  return rows.map((r) => ({ ...r, node: storedFilter(r.filter) }));
}

/**
 * Judges each event with the filters of its account (reading the zones of the accessories that
 * a zone condition needs, as they are now).
 */
async function judge(
  query: RowQuery,
  events: readonly NewEvent[],
  filters: readonly RegistrationFilter[],
): Promise<EventFilters> {
  const judged = filters.map(({ clientId, filter }) => ({ clientId, filter }));
  if (filters.length === 0) return { passed: [], judged };
  const subjects = events.flatMap((event, i) =>
    filterSubject(event) === null ? [] : [{ event, ord: i + 1 }],
  );
  const zoneAccessories = new Set(
    subjects.flatMap(({ event }) =>
      filters.some((f) => f.accountId === event.accountId && f.node && testsZones(f.node))
        ? [event.accessoryId!]
        : [],
    ),
  );
  const zones =
    zoneAccessories.size > 0
      ? await loadZoneIndexes(query, { accessoryIds: [...zoneAccessories] })
      : new Map<string, ZoneIndex>();
  const passed = subjects.flatMap(({ event, ord }) =>
    filters
      .filter(
        (f) =>
          f.accountId === event.accountId &&
          f.node !== null &&
          eventPasses(f.node, event, zones.get(event.accessoryId!)),
      )
      .map((f) => ({ ord, clientId: f.clientId, filter: f.filter })),
  );
  return { passed, judged };
}

/**
 * Which filtered registrations of the events' accounts each event passes, with the filters read
 * now (in the events' transaction when `query` is one). Registrations without a filter are not
 * read: the outbox sends them every event of their types.
 */
export async function passedFilters(
  query: RowQuery,
  events: readonly NewEvent[],
): Promise<EventFilters> {
  return judge(query, events, await readFilters(query, judgedAccounts(events)));
}

/**
 * The write path's judge: the filters of each account kept between changes (most accounts have
 * none, and then judging costs no query), forgotten when the recording statement finds they
 * changed (CGFLT) so that the change is judged again on fresh ones.
 */
export class CachedEventFilters {
  readonly #byAccount = new TtlCache<string, RegistrationFilter[]>(60_000, 50_000);

  async judge(query: RowQuery, events: readonly NewEvent[]): Promise<EventFilters> {
    const accounts = judgedAccounts(events);
    const known = new Map(accounts.map((id) => [id, this.#byAccount.get(id)]));
    const missing = accounts.filter((id) => !known.get(id));
    const read = await readFilters(query, missing);
    for (const id of missing) {
      const filters = read.filter((f) => f.accountId === id);
      this.#byAccount.set(id, filters);
      known.set(id, filters);
    }
    return judge(
      query,
      events,
      accounts.flatMap((id) => known.get(id) ?? []),
    );
  }

  forget(events: readonly NewEvent[]): void {
    for (const id of judgedAccounts(events)) this.#byAccount.delete(id);
  }
}

/** SQLSTATE of the recording statement when an account's filters are not the ones judged. */
export const FILTERS_CHANGED = 'CGFLT';

/**
 * A live subscription's filter: judges each event of its stream in order, keeping the zones of
 * the stream's accessories current from the `zones_saved` events that pass through it.
 */
export class LiveEventFilter {
  readonly #node: FilterNode;
  readonly #zones: Map<string, ZoneIndex>;

  private constructor(node: FilterNode, zones: Map<string, ZoneIndex>) {
    this.#node = node;
    this.#zones = zones;
  }

  /**
   * Parses the filter (INVALID_ARGUMENT on field "filter" with the position) and loads the
   * current zones of the stream's accessories if it tests zones.
   */
  static async open(
    text: string,
    query: RowQuery,
    of: { accessoryIds: readonly string[] } | { accountId: string },
  ): Promise<LiveEventFilter> {
    const node = parseFilter(text);
    const zones = testsZones(node) ? await loadZoneIndexes(query, of) : new Map();
    return new LiveEventFilter(node, zones);
  }

  /** Whether the event passes; call it with every event of the stream, in order. */
  accepts(event: EventFields): boolean {
    if (event.eventType === 'zones_saved' && event.accessoryId !== null) {
      this.#zones.set(
        event.accessoryId,
        savedZoneIndex(event.eventData as Parameters<typeof savedZoneIndex>[0]),
      );
    }
    return eventPasses(this.#node, event, this.#zones.get(event.accessoryId ?? ''));
  }
}
