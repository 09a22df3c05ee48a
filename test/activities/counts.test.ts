import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseActivityId } from '../../src/activity-ids.ts';
import { purgeExpiredActivities } from '../../src/activities/retention.ts';
import { graphql } from '../generated/index.ts';
import { backends, startApp, type TestApp } from '../helpers/app.ts';
import { gql, rest } from '../helpers/client.ts';
import { ok, seedAccessories, seedAccessory, UpsertAccount } from '../helpers/fixtures.ts';

const Counts = graphql(`
  query Counts(
    $from: DateTime!
    $to: DateTime!
    $bucket: CountBucket!
    $groupBy: [CountGroup!]
    $where: ActivityWhere
    $timeZone: String
  ) {
    viewer {
      activityCounts(
        from: $from
        to: $to
        bucket: $bucket
        groupBy: $groupBy
        where: $where
        timeZone: $timeZone
      ) {
        buckets {
          start
          count
          accessoryId
          relevanceLevel
          zoneId
        }
      }
    }
  }
`);

interface Listed {
  accessoryId: string;
  activityId: string;
  relevanceLevel: number;
  motionZones: string[];
}

interface Bucket {
  start: string;
  count: number;
  accessoryId: string | null;
  relevanceLevel: number | null;
  zoneId: string | null;
}

type Group = 'ACCESSORY' | 'RELEVANCE' | 'ZONE';

const HOUR = 3_600_000;

/** The local wall clock of an instant in a zone, as numbers. */
function local(t: Date, timeZone: string) {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(t);
  const get = (type: string) => Number(parts.find((p) => p.type === type)!.value);
  return {
    date: `${get('year')}-${String(get('month')).padStart(2, '0')}-${String(get('day')).padStart(2, '0')}`,
    minute: get('minute'),
    second: get('second'),
    /** The wall clock read as if it were UTC: minus the instant, the zone's offset. */
    wall: Date.UTC(
      get('year'),
      get('month') - 1,
      get('day'),
      get('hour'),
      get('minute'),
      get('second'),
    ),
  };
}

/**
 * A bucket's key computed without the database: an hour bucket is the instant its local hour
 * began (every zone used here changes offset on whole hours); a day bucket is its local date.
 */
function bucketKey(t: Date, bucket: 'HOUR' | 'DAY', timeZone: string): string {
  const wall = local(t, timeZone);
  if (bucket === 'DAY') return wall.date;
  return new Date(t.getTime() - (wall.minute * 60 + wall.second) * 1000).toISOString();
}

/** The last change of New York's UTC offset before `before` (a DST day of 23 or 25 hours). */
function lastTransition(before: number): number {
  const offset = (t: number) => local(new Date(t), 'America/New_York').wall - t;
  let t = Math.floor(before / HOUR) * HOUR;
  while (offset(t - HOUR) === offset(t)) t -= HOUR;
  return t;
}

describe.each(backends)('activity counts on %s', (backend) => {
  let t: TestApp;
  let reader: string;
  let accessories: string[];
  let otherAccessory: string;
  let transition: number;
  let listed: Listed[];

  beforeAll(async () => {
    t = await startApp(backend);
    const seeded = await seedAccessories(t, 'user-1', ['camera-1', 'camera-2', 'camera-3']);
    const { ingest } = seeded;
    await ok(t, ingest, UpsertAccount, { subject: 'user-1', retentionDays: 400 });
    accessories = seeded.accessoryIds;
    otherAccessory = (await seedAccessory(t, 'user-2', 'camera-9')).accessoryId;
    // Activities every 17..49 minutes per accessory over the three days around New York's
    // last change of offset some of them in the same second on two accessories.
    transition = lastTransition(Date.now() - 4 * 86_400_000);
    const items: object[] = [];
    for (const [k, accessoryId] of [...accessories, otherAccessory].entries()) {
      let at = transition - 36 * HOUR + k * 1000;
      for (let i = 0; at < transition + 36 * HOUR; i++) {
        items.push({
          op: 'createActivity',
          accessoryId,
          input: {
            createdAt: new Date(at).toISOString(),
            relevanceLevel: (i + k) % 4,
            motionZones: [['z1'], ['z2', 'z1'], []][(i * 7 + k) % 3],
          },
        });
        at += (17 + ((i * 13 + k * 5) % 33)) * 60_000 + (i % 2) * 7_000;
      }
    }
    for (let i = 0; i < items.length; i += 250) {
      const res = await rest(t.url, ingest, 'POST', '/api/ingest', items.slice(i, i + 250));
      expect(res.body.results.every((r: { ok: boolean }) => r.ok)).toBe(true);
    }
    reader = await t.token(['activities_basic']);
    listed = await listAll();
    expect(listed.length).toBeGreaterThan(300);
  });
  afterAll(() => t.close());

  /** The whole timeline, with motionZones. */
  async function listAll(): Promise<Listed[]> {
    const listed: Listed[] = [];
    let next: object = {};
    for (;;) {
      const res = await rest(t.url, reader, 'POST', '/api/activities', {
        limit: 100,
        extraFields: ['motionZones'],
        ...next,
      });
      listed.push(...res.body.activities);
      if (!res.body.nextStartActivityId) break;
      next = {
        startActivityId: res.body.nextStartActivityId,
        startAccessoryId: res.body.nextStartAccessoryId,
        operator: '<',
      };
    }
    return listed;
  }

  const counts = (body: object) => rest(t.url, reader, 'POST', '/api/activities/counts', body);

  it('counts what the timeline lists, by bucket and group, in any time zone', async () => {
    const filters: [string | undefined, (a: Listed) => boolean][] = [
      [undefined, () => true],
      ['relevanceLevel >= 2', (a) => a.relevanceLevel >= 2],
      ['contains(motionZones, "z1")', (a) => a.motionZones.includes('z1')],
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: -40 * 60, max: 30 * 60 }),
        fc.integer({ min: 1, max: 60 * 60 * 80 }),
        fc.constantFrom<'HOUR' | 'DAY'>('HOUR', 'DAY'),
        fc.subarray<Group>(['ACCESSORY', 'RELEVANCE', 'ZONE']),
        fc.constantFrom('UTC', 'America/New_York', 'Asia/Kolkata', 'Asia/Kathmandu'),
        fc.constantFrom(...filters),
        fc.option(fc.subarray([0, 1, 2], { minLength: 1 }), { nil: undefined }),
        async (fromMinutes, seconds, bucket, groupBy, timeZone, [filter, holds], chosen) => {
          const from = new Date(transition + fromMinutes * 60_000 + (seconds % 60) * 1000);
          const to = new Date(from.getTime() + seconds * 1000);
          const accessoryIds = chosen?.map((k) => accessories[k]!);
          const res = await counts({
            from: from.toISOString(),
            to: to.toISOString(),
            bucket,
            groupBy,
            timeZone,
            ...(filter && { filter }),
            ...(accessoryIds && { accessoryIds }),
          });
          expect(res.status).toBe(200);
          const expected = new Map<string, number>();
          for (const a of listed) {
            const at = parseActivityId(a.activityId)!;
            if (at < from || at >= to || !holds(a)) continue;
            if (accessoryIds && !accessoryIds.includes(a.accessoryId)) continue;
            const zones: (string | null)[] = groupBy.includes('ZONE')
              ? a.motionZones.length > 0
                ? a.motionZones
                : [null]
              : [null];
            for (const zoneId of zones) {
              const k = JSON.stringify([
                bucketKey(at, bucket, timeZone),
                groupBy.includes('ACCESSORY') ? a.accessoryId : null,
                groupBy.includes('RELEVANCE') ? a.relevanceLevel : null,
                zoneId,
              ]);
              expected.set(k, (expected.get(k) ?? 0) + 1);
            }
          }
          const got = new Map<string, number>();
          for (const b of res.body.buckets as Bucket[]) {
            const start = new Date(b.start);
            if (bucket === 'DAY') {
              // A day bucket begins at the first instant of its local date.
              expect(local(start, timeZone).date).not.toBe(
                local(new Date(start.getTime() - 1000), timeZone).date,
              );
            }
            const k = JSON.stringify([
              bucket === 'DAY' ? local(start, timeZone).date : start.toISOString(),
              b.accessoryId,
              b.relevanceLevel,
              b.zoneId,
            ]);
            expect(got.has(k)).toBe(false);
            got.set(k, b.count);
          }
          expect(Object.fromEntries(got)).toEqual(Object.fromEntries(expected));
        },
      ),
      { numRuns: 60 },
    );
  });

  it('has days of 23 or 25 hours where the zone changes its offset', async () => {
    const from = new Date(transition - 30 * HOUR).toISOString();
    const to = new Date(transition + 30 * HOUR).toISOString();
    const res = await counts({ from, to, bucket: 'DAY', timeZone: 'America/New_York' });
    const starts = (res.body.buckets as Bucket[]).map((b) => new Date(b.start).getTime());
    const lengths = starts.slice(1).map((s, i) => (s - starts[i]!) / HOUR);
    expect(lengths.some((h) => h === 23 || h === 25)).toBe(true);
    const utc = await counts({ from, to, bucket: 'DAY' });
    const total = (buckets: Bucket[]) => buckets.reduce((n, b) => n + b.count, 0);
    expect(total(res.body.buckets)).toBe(total(utc.body.buckets));
  });

  it('answers the same over GraphQL', async () => {
    const variables = {
      from: new Date(transition - 20 * HOUR).toISOString(),
      to: new Date(transition + 20 * HOUR).toISOString(),
      bucket: 'HOUR' as const,
      groupBy: ['RELEVANCE' as const],
      timeZone: 'Asia/Kolkata',
    };
    const res = await gql(t.url, reader, Counts, {
      ...variables,
      where: { relevanceLevel: { gte: 1 } },
    });
    const viaRest = await counts({ ...variables, filter: 'relevanceLevel >= 1' });
    expect(viaRest.body.buckets.length).toBeGreaterThan(10);
    expect(res.data!.viewer.activityCounts.buckets).toEqual(viaRest.body.buckets);
  });

  it('refuses bad arguments naming them, and other accounts’ accessories', async () => {
    const from = new Date(transition).toISOString();
    const to = new Date(transition + HOUR).toISOString();
    const bad: [object, string][] = [
      [{ from, to, bucket: 'HOUR', timeZone: 'Mars/Olympus' }, 'timeZone'],
      [{ from: to, to: from, bucket: 'HOUR' }, 'to'],
      [{ from, to: new Date(transition + 401 * 86_400_000).toISOString(), bucket: 'DAY' }, 'to'],
      [{ from, to, bucket: 'WEEK' }, 'bucket'],
      [{ from, to, bucket: 'HOUR', groupBy: ['CAMERA'] }, 'groupBy'],
      [{ from: 'yesterday', to, bucket: 'HOUR' }, 'from'],
      [{ from, to, bucket: 'HOUR', accessoryIds: [] }, 'accessoryIds'],
      [{ from, to, bucket: 'HOUR', filter: 'relevanceLevel >' }, 'filter'],
    ];
    for (const [body, field] of bad) {
      const res = await counts(body);
      expect({ body, status: res.status, field: res.body.error.details.field }).toEqual({
        body,
        status: 400,
        field: expect.stringMatching(new RegExp(`^${field}`)),
      });
    }
    const foreign = await counts({ from, to, bucket: 'HOUR', accessoryIds: [otherAccessory] });
    expect(foreign.status).toBe(404);
  });
  it('follows updates and finishes, and forgets the days dropped past retention', async () => {
    const ingest = await t.token(['ingest']);
    const range = {
      from: new Date(transition - 40 * HOUR).toISOString(),
      to: new Date(transition + 40 * HOUR).toISOString(),
      bucket: 'DAY',
      groupBy: ['RELEVANCE', 'ZONE'],
    };
    /** Counts by relevance and zone (as the rollup answers them), from the listing and counts. */
    const byGroup = (rows: Listed[]) => {
      const n = new Map<string, number>();
      for (const a of rows) {
        for (const zoneId of a.motionZones.length ? a.motionZones : [null]) {
          const k = JSON.stringify([a.relevanceLevel, zoneId]);
          n.set(k, (n.get(k) ?? 0) + 1);
        }
      }
      return Object.fromEntries(n);
    };
    const counted = async () => {
      const res = await counts(range);
      const n = new Map<string, number>();
      for (const b of res.body.buckets as Bucket[]) {
        const k = JSON.stringify([b.relevanceLevel, b.zoneId]);
        n.set(k, (n.get(k) ?? 0) + b.count);
      }
      return Object.fromEntries(n);
    };
    // Each accessory's newest activity changes relevance and zones, then finishes.
    const newest = accessories.map((id) => listed.find((a) => a.accessoryId === id)!);
    const changed = await rest(
      t.url,
      ingest,
      'POST',
      '/api/ingest',
      newest.flatMap((a) => [
        {
          op: 'updateActivity',
          accessoryId: a.accessoryId,
          activityId: a.activityId,
          input: { relevanceLevel: 7, motionZones: ['z4'] },
        },
        {
          op: 'finishActivity',
          accessoryId: a.accessoryId,
          activityId: a.activityId,
          endTime: new Date(parseActivityId(a.activityId)!.getTime() + 5000).toISOString(),
        },
      ]),
    );
    expect(changed.body.results.every((r: { ok: boolean }) => r.ok)).toBe(true);
    listed = await listAll();
    expect(listed.filter((a) => a.relevanceLevel === 7)).toHaveLength(3);
    expect(await counted()).toEqual(byGroup(listed));
    // The rollup keeps a row per key with activities, none of zero.
    const rollupRows = async () =>
      (
        await t.app.services.db.pool.query<{ rows: number; empty: number }>(
          'SELECT count(*)::int AS rows, count(*) FILTER (WHERE count <= 0)::int AS empty FROM activity_rollup',
        )
      ).rows[0]!;
    expect((await rollupRows()).empty).toBe(0);

    // Both accounts keep a day: the days of the data set go, and their counts with them.
    for (const subject of ['user-1', 'user-2']) {
      await ok(t, ingest, UpsertAccount, { subject, retentionDays: 1 });
    }
    // As the job would run three days from now: every day of the data set is past the window.
    const later = new Date(Date.now() + 3 * 86_400_000);
    expect(await purgeExpiredActivities(t.app.services.db, later)).toBeGreaterThan(0);
    await ok(t, ingest, UpsertAccount, { subject: 'user-1', retentionDays: 400 });
    expect(await listAll()).toEqual([]);
    expect(await counted()).toEqual({});
    expect(await rollupRows()).toEqual({ rows: 0, empty: 0 });
  });
});
