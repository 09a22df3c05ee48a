// Listing pages pinned byte for byte: a fixed data set (fixed ids, times, zones) and a set of REST
// and GraphQL list requests whose response bodies are committed in pinned-pages.json. Any change
// to the read path (SQL, execution, serialization) must answer every one of them with exactly the
// same bytes. After a deliberate change of the answers, regenerate the file with
// PIN_PAGES_WRITE=1 npx vitest run test/activities/pinned-pages.test.ts (and review the diff).
import fs from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rectangle } from '../../src/zones/geometry.ts';
import { backends, startApp, type TestApp } from '../helpers/app.ts';

const FIXTURE = new URL('./pinned-pages.json', import.meta.url);
const ACCOUNT = '6f1c2a3b-0000-4000-8000-000000000001';
const ACCESSORY = '6f1c2a3b-0000-4000-8000-00000000000a';
/** An accessory without a zone set: motionZones conditions are exact. */
const PLAIN = '6f1c2a3b-0000-4000-8000-00000000000b';
const COUNT = 360;
/** The first activity's creation; one every 97 s after it. */
const BASE = Date.UTC(2026, 0, 5, 8, 0, 0);
/** The zones' lastModified: between activities 199 and 200 of ACCESSORY. */
const ZONES_SAVED = new Date(BASE + 199 * 97_000 + 50_000);

const idAt = (i: number) =>
  new Date(BASE + i * 97_000)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');

interface Pinned {
  name: string;
  method: 'POST';
  path: string;
  /** Sent as JSON; a string is sent as it is (malformed bodies). */
  body: unknown;
  status: number;
  response: string;
}

const PAGE = `query Page($id: ID!, $first: Int, $after: String, $last: Int, $before: String,
  $since: String, $filter: String, $where: ActivityWhere) {
  accessory(id: $id) {
    id
    activities(first: $first, after: $after, last: $last, before: $before, since: $since,
               filter: $filter, where: $where) {
      edges { cursor node { id activityId accessoryId startTime endTime playbackDuration
                            relevanceLevel inProgress motionZones objectLocations media { mp4 } } }
      pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
      nextStartActivityId
    }
  }
}`;

/** The same page as the bench's query: the fields a dashboard lists. */
const LIST = `query List($id: ID!, $after: String) { accessory(id: $id) { activities(first: 20, after: $after) {
  edges { cursor node { activityId accessoryId startTime endTime playbackDuration relevanceLevel inProgress } }
  pageInfo { hasNextPage endCursor } nextStartActivityId } } }`;

function requests(): Omit<Pinned, 'status' | 'response'>[] {
  const out: Omit<Pinned, 'status' | 'response'>[] = [];
  const viaRest = (name: string, accessory: string, body: object) =>
    out.push({ name, method: 'POST', path: `/api/accessories/${accessory}/activities`, body });
  const viaGraphQL = (name: string, variables: object, query = PAGE) =>
    out.push({ name, method: 'POST', path: '/graphql', body: { query, variables } });

  const extra = { extraFields: ['motionZones', 'objectLocations', 'media'] };
  viaRest('rest newest page', ACCESSORY, {});
  viaRest('rest largest page with extras', ACCESSORY, { limit: 100, ...extra });
  for (const operator of ['<', '<=', '>', '>=']) {
    for (const scanDirectionNewer of [true, false]) {
      viaRest(
        `rest ${operator} ${scanDirectionNewer ? 'newer' : 'older'} from the middle`,
        ACCESSORY,
        {
          startActivityId: idAt(180),
          operator,
          scanDirectionNewer,
          limit: 7,
        },
      );
    }
  }
  viaRest('rest deep page', ACCESSORY, { startActivityId: idAt(12), operator: '<', limit: 20 });
  viaRest('rest oldest page', ACCESSORY, { scanDirectionNewer: false, limit: 20, ...extra });
  viaRest('rest past the end', ACCESSORY, { startActivityId: idAt(0), operator: '<' });
  viaRest('rest in progress', ACCESSORY, { filter: 'attribute_not_exists(endTime)' });
  const filters = [
    'relevanceLevel >= 2',
    'relevanceLevel = 3 AND size(objectLocations) >= 2',
    'contains(motionZones, "z1")',
    'contains_any(motionZones, ["z1", "z2"])',
    'contains_all(motionZones, ["z1", "z2"])',
    'NOT contains(motionZones, "zR") AND relevanceLevel <> 0',
    'contains(motionZones, "zR") OR contains(objectLocations, 5)',
    'contains(motionZones, "z4")',
    `startTime BETWEEN "${new Date(BASE + 100 * 97_000).toISOString()}" AND "${new Date(BASE + 260 * 97_000).toISOString()}"`,
    'playbackDuration > 30000 OR attribute_exists(motionZones)',
  ];
  for (const [n, filter] of filters.entries()) {
    viaRest(`rest filter ${n}`, ACCESSORY, { filter, limit: 15, ...extra });
    viaRest(`rest filter ${n}, older from the middle`, ACCESSORY, {
      filter,
      limit: 15,
      scanDirectionNewer: false,
      startActivityId: idAt(150),
      operator: '>=',
    });
    for (const accessory of [ACCESSORY, PLAIN]) {
      viaRest(
        `rest filter ${n}, deep, ${accessory === PLAIN ? 'no zone set' : 'zones'}`,
        accessory,
        {
          filter,
          limit: 15,
          startActivityId: idAt(150),
          operator: '<',
          ...extra,
        },
      );
    }
  }
  // Zone-filtered pages at every depth, newest to oldest (across lastModified).
  for (let start = COUNT; start > 0; start -= 40) {
    viaRest(`rest zone page from ${start}`, ACCESSORY, {
      filter: 'contains_any(motionZones, ["z1", "z3"])',
      startActivityId: idAt(start),
      operator: '<',
      limit: 20,
    });
  }
  viaGraphQL('graphql newest page', { id: ACCESSORY });
  viaGraphQL('graphql list page', { id: ACCESSORY }, LIST);
  viaGraphQL('graphql list page deep', { id: ACCESSORY, after: idAt(25) }, LIST);
  viaGraphQL('graphql first 50 after', { id: ACCESSORY, first: 50, after: idAt(300) });
  viaGraphQL('graphql last 9 before', { id: ACCESSORY, last: 9, before: idAt(40) });
  viaGraphQL('graphql last 9', { id: ACCESSORY, last: 9 });
  viaGraphQL('graphql since', { id: ACCESSORY, first: 30, since: idAt(345) });
  viaGraphQL('graphql deep', { id: ACCESSORY, first: 20, after: idAt(21) });
  for (const [n, filter] of filters.entries()) {
    viaGraphQL(`graphql filter ${n}`, { id: ACCESSORY, first: 12, after: idAt(230), filter });
  }
  viaGraphQL('graphql where zones', {
    id: ACCESSORY,
    first: 25,
    where: { motionZones: { containsAny: ['z1', 'z3'] }, relevanceLevel: { gte: 1 } },
  });
  viaGraphQL('graphql where zones and filter', {
    id: ACCESSORY,
    last: 25,
    filter: 'size(objectLocations) > 1',
    where: { motionZones: { containsAll: ['z2'] }, startTime: { lt: ZONES_SAVED.toISOString() } },
  });
  viaGraphQL('graphql plain accessory', {
    id: PLAIN,
    first: 10,
    filter: 'contains(motionZones, "z1")',
  });
  viaGraphQL('graphql bad cursor', { id: ACCESSORY, first: 10, after: 'yesterday' });
  viaGraphQL('graphql bad filter', { id: ACCESSORY, first: 10, filter: 'relevanceLevel >>' });
  out.push({
    name: 'graphql malformed JSON',
    method: 'POST',
    path: '/graphql',
    body: '{"query": ',
  });
  out.push({
    name: 'graphql no query',
    method: 'POST',
    path: '/graphql',
    body: '{"variables": {}}',
  });
  out.push({
    name: 'graphql body too large',
    method: 'POST',
    path: '/graphql',
    body: ' '.repeat(70_000) + '{}',
  });
  viaRest('rest bad filter', ACCESSORY, { filter: 'contains(motionZones' });
  return out;
}

/** Deterministic rows: zones, cells, relevance and durations vary with the index. */
async function seed(t: TestApp): Promise<void> {
  const pool = t.app.services.db.pool;
  await pool.query(
    `INSERT INTO accounts (id, subject, retention_days) VALUES ($1, 'user-1', 36500)`,
    [ACCOUNT],
  );
  for (const [id, deviceId] of [
    [ACCESSORY, 'camera-1'],
    [PLAIN, 'camera-2'],
  ]) {
    await pool.query(
      `INSERT INTO accessories (id, account_id, device_id, name) VALUES ($1, $2, $3, $4)`,
      [id, ACCOUNT, deviceId, `Camera ${deviceId}`],
    );
    await pool.query(
      `INSERT INTO activities (accessory_id, account_id, activity_id, created_at, start_time, end_time,
                               playback_duration, relevance_level, motion_zones, object_locations)
       SELECT $1::uuid, $4::uuid, to_char(ts AT TIME ZONE 'UTC', 'YYYYMMDD"T"HH24MISS"Z"'), ts,
              ts + make_interval(secs => i % 5),
              CASE WHEN i = $3 - 1 THEN NULL ELSE ts + make_interval(secs => 10 + (i * 7) % 50) END,
              CASE WHEN i = $3 - 1 THEN NULL ELSE (10 + (i * 7) % 50 - i % 5) * 1000 END,
              (i * 5) % 4,
              CASE (i * 3) % 7 WHEN 0 THEN ARRAY[]::text[] WHEN 1 THEN ARRAY['z1']
                   WHEN 2 THEN ARRAY['z2'] WHEN 3 THEN ARRAY['z1', 'z2'] WHEN 4 THEN ARRAY['zR']
                   WHEN 5 THEN ARRAY['z3', 'zR'] ELSE ARRAY['z4'] END,
              CASE WHEN i % 6 = 0 THEN ARRAY[]::smallint[]
                   ELSE ARRAY[(i * 11) % 128, (i * 29 + 3) % 128]::smallint[] END
         FROM (SELECT i, $2::timestamptz + make_interval(secs => i * 97) AS ts
                 FROM generate_series(0, $3::int - 1) AS i) AS s`,
      [id, new Date(BASE).toISOString(), COUNT, ACCOUNT],
    );
  }
  const zonesToken = await t.token(['zones']);
  const res = await fetch(`${t.url}/api/accessories/${ACCESSORY}/zones`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${zonesToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      zones: [
        { id: 'z1', name: 'Left', color: '#ff8800', vertices: rectangle(0, 0, 0.25, 1) },
        { id: 'z2', name: 'Top right', color: '#0088ff', vertices: rectangle(0.5, 0, 1, 0.5) },
        { id: 'z3', name: 'Middle', color: '#00aa00', vertices: rectangle(0.3, 0.3, 0.6, 0.7) },
      ],
    }),
  });
  expect(res.status).toBe(200);
  await pool.query('UPDATE zone_sets SET last_modified = $2 WHERE accessory_id = $1', [
    ACCESSORY,
    ZONES_SAVED,
  ]);
}

describe.each(backends)('pinned listing pages on %s', (backend) => {
  let t: TestApp;
  let reader: string;

  beforeAll(async () => {
    t = await startApp(backend);
    await seed(t);
    reader = await t.token(['activities_basic']);
  });
  afterAll(() => t.close());

  it('answers every pinned request with the same status and the same bytes', async () => {
    const answers: Pinned[] = [];
    for (const r of requests()) {
      const res = await fetch(`${t.url}${r.path}`, {
        method: r.method,
        headers: {
          authorization: `Bearer ${reader}`,
          'content-type': 'application/json',
          accept: 'application/graphql-response+json, application/json',
        },
        body: typeof r.body === 'string' ? r.body : JSON.stringify(r.body),
      });
      answers.push({ ...r, status: res.status, response: await res.text() });
    }
    if (process.env.PIN_PAGES_WRITE) {
      await fs.writeFile(FIXTURE, `${JSON.stringify(answers, null, 1)}\n`);
    }
    const pinned = JSON.parse(await fs.readFile(FIXTURE, 'utf8')) as Pinned[];
    expect(answers.map((a) => a.name)).toEqual(pinned.map((p) => p.name));
    for (const [i, answer] of answers.entries()) {
      expect({ name: answer.name, status: answer.status, response: answer.response }).toEqual({
        name: pinned[i]!.name,
        status: pinned[i]!.status,
        response: pinned[i]!.response,
      });
    }
  });
});
