import { encodeGlobalID } from '@pothos/plugin-relay';
import { createClient, type Client } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { backends, startApp, type TestApp } from '../helpers/app.ts';
import { rest } from '../helpers/client.ts';
import { seedAccessory, seedActivities } from '../helpers/fixtures.ts';

/**
 * Ids, cursors, timestamps and numbers at and just past the bounds of the type each becomes in
 * the database (bigint, integer, timestamptz, uuid) and of its own form, sent in every argument
 * that takes one, over every transport. None may reach SQL out of range: a value is either
 * served or refused as the caller's fault (4xx, INVALID_ARGUMENT naming the argument where it is
 * the value's form), never a 5xx, and the instance serves its tenants as before afterwards.
 */

/** Decimal strings around bigint's range (event and delivery ids, their cursors). */
const BIGINT_TEXT = [
  '0',
  '1',
  '01',
  '9223372036854775807',
  '9223372036854775808',
  '9999999999999999999',
  '99999999999999999999999',
  '-1',
  '-9223372036854775809',
  '1e3',
  '1.5',
  ' 1',
  '',
];

/** activityIds: the form's first and last seconds, days that do not exist, bigint text. */
const ACTIVITY_IDS = [
  '00000101T000000Z',
  '00010101T000000Z',
  '19691231T235959Z',
  '99991231T235959Z',
  '20261301T000000Z',
  '20260230T000000Z',
  '20261121T246060Z',
  '9223372036854775808',
  '',
];

const UUIDS = [
  '00000000-0000-4000-8000-000000000000',
  'ffffffff-ffff-4fff-bfff-ffffffffffff',
  'FFFFFFFF-FFFF-4FFF-BFFF-FFFFFFFFFFFF',
  '00000000-0000-0000-0000-000000000000',
  'self',
  '9223372036854775808',
];

/** Instants at the ends of what ISO 8601 with four-digit years writes, and past JS's range. */
const TIMESTAMPS = [
  '0000-01-01T00:00:00Z',
  '0000-01-01T00:00:00+14:00',
  '0001-01-01T00:00:00Z',
  '1969-12-31T23:59:59.999Z',
  '9999-12-31T23:59:59.999Z',
  '9999-12-31T23:59:59-14:00',
  '2026-02-30T00:00:00Z',
  '+275760-09-13T00:00:00.000Z',
  '-000001-01-01T00:00:00Z',
];

/** Numbers around integer's and JavaScript's safe range. */
const NUMBERS = [
  0,
  -1,
  2147483647,
  2147483648,
  -2147483649,
  Number.MAX_SAFE_INTEGER + 2,
  1e21,
  1e308,
  -1e308,
  0.5,
];

/** Filters whose literals sit at and past the attributes' ranges. */
const FILTERS = [
  ...NUMBERS.map((n) => `relevanceLevel >= ${n}`),
  ...NUMBERS.map((n) => `playbackDuration < ${n}`),
  ...NUMBERS.map((n) => `size(objectLocations) = ${n}`),
  ...NUMBERS.map((n) => `contains(objectLocations, ${n})`),
  'relevanceLevel = 9223372036854775808',
  'relevanceLevel = 99999999999999999999999999999999999999',
  ...TIMESTAMPS.map((ts) => `startTime > "${ts}"`),
  ...ACTIVITY_IDS.map((id) => `activityId <= "${id}"`),
];

/** Strings PostgreSQL's text and jsonb cannot store: NUL, and surrogates without their pair. */
const UNSTORABLE = ['\u0000', 'a\u0000b', '\ud800', 'x\udfff', '\udc00\ud800'];

type Holder = 'reader' | 'ingest' | 'zones';

/** One input carrying `v` where it would reach a text or jsonb column, and the field to name. */
type UnstorableCase = { label: string; field: string; token: Holder } & (
  | { rest: { method: string; path: string; body: unknown }; graphql?: never }
  | { graphql: { query: string; variables: Record<string, unknown> }; rest?: never }
);

function unstorableCases(v: string, accessoryId: string): UnstorableCase[] {
  const registration = {
    url: 'https://receiver.example/hooks',
    authKey: 'bounds-key-0123456789',
    eventTypes: ['activity_created'],
  };
  const zone = {
    id: 'z1',
    name: 'door',
    color: '#ff0000',
    vertices: [
      { x: 0, y: 0 },
      { x: 1, y: 0 },
      { x: 0, y: 1 },
    ],
  };
  const notifications = '/api/accounts/self/notifications';
  const rest = (
    label: string,
    field: string,
    token: Holder,
    method: string,
    path: string,
    body: unknown,
  ): UnstorableCase => ({
    label: `unstorable ${label}`,
    field,
    token,
    rest: { method, path, body },
  });
  const graphql = (
    label: string,
    field: string,
    token: Holder,
    query: string,
    variables: Record<string, unknown>,
  ): UnstorableCase => ({
    label: `unstorable ${label}`,
    field,
    token,
    graphql: { query, variables },
  });
  return [
    rest('userData value', 'userData.a', 'reader', 'PUT', notifications, {
      ...registration,
      userData: { a: v },
    }),
    rest('userData key', 'userData', 'reader', 'PUT', notifications, {
      ...registration,
      userData: { [`a${v}`]: 1 },
    }),
    rest('userData nested', 'userData.a.0.b', 'reader', 'PUT', notifications, {
      ...registration,
      userData: { a: [{ b: v }] },
    }),
    rest('filter of a registration', 'filter', 'reader', 'PUT', notifications, {
      ...registration,
      filter: `accessoryId = "${v}"`,
    }),
    rest('zone name', 'zones.0.name', 'zones', 'PUT', `/api/accessories/${accessoryId}/zones`, {
      zones: [{ ...zone, name: v }],
    }),
    rest('ingest motionZones', '0.motionZones.0', 'ingest', 'POST', '/api/ingest', [
      { op: 'reportMotion', accessoryId, state: 'started', motionZones: [v] },
    ]),
    rest('activity motionZones', '1.input.motionZones.0', 'ingest', 'POST', '/api/ingest', [
      { op: 'createActivity', accessoryId },
      { op: 'createActivity', accessoryId, input: { motionZones: [v] } },
    ]),
    rest(
      'listing filter',
      'filter',
      'reader',
      'POST',
      `/api/accessories/${accessoryId}/activities`,
      {
        filter: `contains(motionZones, "${v}")`,
      },
    ),
    graphql(
      'registerNotifications(userData)',
      'variables.u.a',
      'reader',
      'mutation($a: ID!, $u: JSON) { registerNotifications(input: { accountId: $a, url: "https://receiver.example/hooks", authKey: "bounds-key-0123456789", eventTypes: [activity_created], userData: $u }) { accountId } }',
      { a: 'self', u: { a: v } },
    ),
    graphql(
      'registerNotifications(userData key)',
      'variables.u',
      'reader',
      'mutation($a: ID!, $u: JSON) { registerNotifications(input: { accountId: $a, url: "https://receiver.example/hooks", authKey: "bounds-key-0123456789", eventTypes: [activity_created], userData: $u }) { accountId } }',
      { a: 'self', u: { [`a${v}`]: 1 } },
    ),
    graphql(
      'saveZones(name)',
      'variables.z.0.name',
      'zones',
      'mutation($x: ID!, $z: [ZoneInput!]!) { saveZones(accessoryId: $x, zones: $z) { zones { id } } }',
      { x: accessoryId, z: [{ ...zone, name: v }] },
    ),
    graphql(
      'createActivity(motionZones)',
      'variables.m.0',
      'ingest',
      'mutation($x: ID!, $m: [String!]) { createActivity(accessoryId: $x, input: { motionZones: $m }) { activityId } }',
      { x: accessoryId, m: [v] },
    ),
    graphql(
      'upsertAccount(subject)',
      'variables.s',
      'ingest',
      'mutation($s: String!) { upsertAccount(subject: $s) { accountId } }',
      { s: v },
    ),
    graphql(
      'ingestBatch(items)',
      'variables.b.0.motionZones.0',
      'ingest',
      'mutation($b: [JSON!]!) { ingestBatch(items: $b) { ok } }',
      { b: [{ op: 'reportMotion', accessoryId, state: 'started', motionZones: [v] }] },
    ),
    graphql(
      'activities(filter)',
      'variables.f',
      'reader',
      'query($x: ID!, $f: String) { accessory(id: $x) { activities(first: 2, filter: $f) { edges { cursor } } } }',
      { x: accessoryId, f: `contains(motionZones, "${v}")` },
    ),
    // A literal: graphql-js reads an escaped NUL, and refuses an escaped lone surrogate itself.
    ...(v.includes('\u0000')
      ? [
          graphql(
            'upsertAccount(subject) literal',
            'subject',
            'ingest',
            `mutation { upsertAccount(subject: ${JSON.stringify(v)}) { accountId } }`,
            {},
          ),
          graphql(
            'saveZones literal name',
            'zones.name',
            'zones',
            `mutation($x: ID!) { saveZones(accessoryId: $x, zones: [{ id: "z1", name: ${JSON.stringify(v)}, color: "#ff0000", vertices: [{ x: 0, y: 0 }, { x: 1, y: 0 }, { x: 0, y: 1 }] }]) { zones { id } } }`,
            { x: accessoryId },
          ),
        ]
      : []),
  ];
}

interface Outcome {
  status: number;
  /** The error codes the answer carries (REST error, GraphQL errors, graphql-ws errors). */
  codes: string[];
  text: string;
}

interface Case {
  label: string;
  run(): Promise<Outcome>;
}

const SERVER_FAULTS = new Set(['INTERNAL', 'UNAVAILABLE']);

function codesOf(body: unknown): string[] {
  if (typeof body !== 'object' || body === null) return [];
  const b = body as {
    error?: { code?: string };
    errors?: { extensions?: { code?: string } }[];
  };
  const codes = b.errors?.map((e) => e.extensions?.code ?? 'NONE') ?? [];
  if (b.error?.code) codes.push(b.error.code);
  return codes;
}

describe.each(backends)('ids, cursors and numbers at their bounds on %s', (backend) => {
  let t: TestApp;
  let ws: Client;
  let accountId: string;
  let accessoryId: string;
  let activityIds: string[];
  let reader: string;
  let ingest: string;
  let admin: string;
  let zoner: string;
  const cases: Case[] = [];

  const restCase = (label: string, method: string, path: string, token: string, body?: unknown) =>
    cases.push({
      label: `REST ${method} ${path} ${JSON.stringify(body) ?? ''} (${label})`,
      run: async () => {
        const res = await rest(t.url, token, method, path, body).catch(
          (err: Error) => ({ status: 0, body: err.message }) as const,
        );
        return { status: res.status, codes: codesOf(res.body), text: JSON.stringify(res.body) };
      },
    });

  /** A GraphQL operation over HTTP (SSE for a subscription) and over a WebSocket. */
  const graphqlCase = (
    label: string,
    query: string,
    variables: Record<string, unknown>,
    token: () => string,
  ) => {
    const subscription = query.trimStart().startsWith('subscription');
    const body = JSON.stringify({ query, variables });
    cases.push({
      label: `GraphQL over ${subscription ? 'SSE' : 'HTTP'}: ${label} ${JSON.stringify(variables)}`,
      run: async () => {
        const res = await fetch(`${t.url}/graphql`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${token()}`,
            'content-type': 'application/json',
            accept: subscription ? 'text/event-stream' : 'application/graphql-response+json',
          },
          body,
          signal: AbortSignal.timeout(subscription ? 500 : 10_000),
        });
        let text = '';
        try {
          text = await res.text();
        } catch {
          // a subscription that went live: read what came before the cut
        }
        const payloads = subscription
          ? text
              .split('\n')
              .filter((line) => line.startsWith('data: ') && line.length > 6)
              .map((line) => JSON.parse(line.slice(6)) as unknown)
          : [JSON.parse(text) as unknown];
        return { status: res.status, codes: payloads.flatMap(codesOf), text };
      },
    });
    cases.push({
      label: `GraphQL over WebSocket: ${label} ${JSON.stringify(variables)}`,
      run: () =>
        new Promise<Outcome>((resolve) => {
          const codes: string[] = [];
          const texts: string[] = [];
          const done = () => {
            clearTimeout(timer);
            unsubscribe();
            resolve({ status: 200, codes, text: texts.join('\n') });
          };
          const timer = setTimeout(done, subscription ? 500 : 10_000);
          const unsubscribe = ws.subscribe(
            { query, variables },
            {
              next: (result) => {
                texts.push(JSON.stringify(result));
                codes.push(...codesOf(result));
                if (!subscription) done();
              },
              error: (err) => {
                texts.push(JSON.stringify(err));
                codes.push(...(Array.isArray(err) ? codesOf({ errors: err }) : ['SOCKET']));
                done();
              },
              complete: done,
            },
          );
        }),
    });
  };

  beforeAll(async () => {
    t = await startApp(backend);
    const seeded = await seedAccessory(t);
    ({ accountId, accessoryId, ingest } = seeded);
    activityIds = await seedActivities(t, ingest, accessoryId, 3);
    reader = await t.token(['activities_basic', 'notifications']);
    admin = await t.token(['admin', 'activities_basic']);
    zoner = await t.token(['zones', 'activities_basic']);
    ws = createClient({
      url: `${t.url.replace(/^http/, 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${reader}` },
      retryAttempts: 0,
    });
    const r = () => reader;
    const i = () => ingest;
    const a = () => admin;
    const z = () => zoner;
    const acc = `/api/accessories/${accessoryId}`;

    for (const v of BIGINT_TEXT) {
      graphqlCase(
        'accountEvents(after)',
        'subscription($a: ID!, $v: String) { accountEvents(accountId: $a, after: $v) { eventId } }',
        { a: 'self', v },
        r,
      );
      graphqlCase(
        'accessoryEvents(after)',
        'subscription($x: ID!, $v: String) { accessoryEvents(accessoryId: $x, after: $v) { eventId } }',
        { x: accessoryId, v },
        r,
      );
      graphqlCase(
        'notificationDeliveries(after)',
        'query($a: ID!, $v: String) { notificationDeliveries(accountId: $a, first: 2, after: $v) { edges { cursor } } }',
        { a: accountId, v },
        r,
      );
      graphqlCase(
        'redeliverNotification(deliveryId)',
        'mutation($v: ID!) { redeliverNotification(deliveryId: $v) { id } }',
        { v },
        r,
      );
      graphqlCase(
        'node(id)',
        'query($v: ID!) { node(id: $v) { id } nodes(ids: [$v]) { id } }',
        { v },
        r,
      );
      graphqlCase(
        'node(id) of a delivery',
        'query($v: ID!) { node(id: $v) { id } }',
        { v: encodeGlobalID('NotificationDelivery', v) },
        r,
      );
    }
    for (const v of ACTIVITY_IDS) {
      for (const args of ['first: 2, after: $v', 'last: 2, before: $v', 'first: 2, since: $v']) {
        graphqlCase(
          `activities(${args})`,
          `query($x: ID!, $v: String) { accessory(id: $x) { activities(${args}) { edges { cursor } } } }`,
          { x: accessoryId, v },
          r,
        );
      }
      graphqlCase(
        'activity(activityId)',
        'query($x: ID!, $v: String!) { accessory(id: $x) { activity(activityId: $v) { activityId } } }',
        { x: accessoryId, v },
        r,
      );
      graphqlCase(
        'node(id) of an activity',
        'query($v: ID!) { node(id: $v) { id } }',
        { v: encodeGlobalID('Activity', `${accessoryId}:${v}`) },
        r,
      );
      graphqlCase(
        'finishActivity(activityId)',
        'mutation($x: ID!, $v: String!) { finishActivity(accessoryId: $x, activityId: $v, endTime: "2026-01-01T00:00:00Z") { activityId } }',
        { x: accessoryId, v },
        i,
      );
      restCase('startActivityId', 'POST', `${acc}/activities`, reader, {
        startActivityId: v,
        operator: '<',
      });
      restCase('activityId', 'GET', `${acc}/activities/${encodeURIComponent(v)}`, reader);
      restCase('timeline startActivityId', 'POST', '/api/activities', reader, {
        startActivityId: v,
        startAccessoryId: accessoryId,
        operator: '<',
      });
      graphqlCase(
        'viewer.activities(after)',
        'query($v: String) { viewer { activities(first: 2, after: $v) { edges { cursor } } } }',
        { v: `${v}:${accessoryId}` },
        r,
      );
    }
    for (const v of UUIDS) {
      graphqlCase('accessory(id)', 'query($v: ID!) { accessory(id: $v) { id } }', { v }, r);
      graphqlCase(
        'accessories(after)',
        'query($v: String) { accessories(first: 2, after: $v) { edges { cursor } } }',
        { v },
        r,
      );
      graphqlCase(
        'setRetention(accountId)',
        'mutation($v: ID!) { setRetention(accountId: $v, retentionDays: 30) { accountId } }',
        { v },
        a,
      );
      restCase('accountId', 'GET', `/api/accounts/${encodeURIComponent(v)}`, reader);
      restCase('accessoryId', 'GET', `/api/accessories/${encodeURIComponent(v)}/zones`, reader);
      restCase('timeline accessoryIds', 'POST', '/api/activities', reader, {
        accessoryIds: [v],
        startActivityId: activityIds.at(-1),
        startAccessoryId: v,
        operator: '<',
      });
      restCase('counts accessoryIds', 'POST', '/api/activities/counts', reader, {
        from: '2026-01-01T00:00:00Z',
        to: '2026-01-02T00:00:00Z',
        bucket: 'HOUR',
        accessoryIds: [v],
      });
    }
    for (const v of TIMESTAMPS) {
      graphqlCase(
        'createActivity(createdAt)',
        'mutation($x: ID!, $v: DateTime) { createActivity(accessoryId: $x, input: { createdAt: $v }) { activityId } }',
        { x: accessoryId, v },
        i,
      );
      graphqlCase(
        'createActivity(startTime)',
        'mutation($x: ID!, $v: DateTime) { createActivity(accessoryId: $x, input: { startTime: $v }) { activityId } }',
        { x: accessoryId, v },
        i,
      );
      graphqlCase(
        'finishActivity(endTime)',
        'mutation($x: ID!, $a: String!, $v: DateTime!) { finishActivity(accessoryId: $x, activityId: $a, endTime: $v) { activityId } }',
        { x: accessoryId, a: activityIds.at(-1), v },
        i,
      );
      graphqlCase(
        'activities(where: startTime)',
        'query($x: ID!, $v: DateTime) { accessory(id: $x) { activities(first: 2, where: { startTime: { gte: $v } }) { edges { cursor } } } }',
        { x: accessoryId, v },
        r,
      );
      graphqlCase(
        'exportUrl(start, end)',
        'query($x: ID!, $v: DateTime!) { accessory(id: $x) { a: exportUrl(start: $v, end: "2026-01-01T00:00:00Z") b: exportUrl(start: "2025-12-31T23:00:00Z", end: $v) } }',
        { x: accessoryId, v },
        r,
      );
      restCase('ingest createdAt', 'POST', '/api/ingest', ingest, [
        { op: 'createActivity', accessoryId, input: { createdAt: v } },
        { op: 'reportMotion', accessoryId, state: 'started', at: v },
      ]);
      for (const [from, to] of [
        [v, '2026-01-01T00:00:00Z'],
        ['2025-12-31T00:00:00Z', v],
      ]) {
        restCase('counts from, to', 'POST', '/api/activities/counts', reader, {
          from,
          to,
          bucket: 'DAY',
          timeZone: 'Pacific/Kiritimati',
        });
        graphqlCase(
          'activityCounts(from, to)',
          'query($f: DateTime!, $t: DateTime!) { viewer { activityCounts(from: $f, to: $t, bucket: HOUR, timeZone: "Pacific/Pago_Pago") { buckets { start count } } } }',
          { f: from, t: to },
          r,
        );
        restCase('replay from, to', 'POST', '/api/accounts/self/notifications/replay', reader, {
          from,
          to,
        });
      }
      restCase(
        'export start',
        'GET',
        `${acc}/export.mp4?start=${encodeURIComponent(v)}&end=2026-01-01T00:00:00Z`,
        reader,
      );
    }
    for (const n of NUMBERS) {
      graphqlCase(
        'createActivity(relevanceLevel, objectLocations)',
        'mutation($x: ID!, $n: Int, $c: [Int!]) { createActivity(accessoryId: $x, input: { relevanceLevel: $n, objectLocations: $c }) { activityId } }',
        { x: accessoryId, n, c: [n] },
        i,
      );
      graphqlCase(
        'activities(where: relevanceLevel, objectLocations)',
        'query($x: ID!, $n: Int, $c: [Int!]) { accessory(id: $x) { activities(first: 2, where: { relevanceLevel: { gte: $n }, objectLocations: { containsAny: $c } }) { edges { cursor } } } }',
        { x: accessoryId, n, c: [n] },
        r,
      );
      graphqlCase(
        'activities(first)',
        'query($x: ID!, $n: Int) { accessory(id: $x) { activities(first: $n) { edges { cursor } } } }',
        { x: accessoryId, n },
        r,
      );
      graphqlCase(
        'setRetention(retentionDays)',
        'mutation($a: ID!, $n: Int!) { setRetention(accountId: $a, retentionDays: $n) { accountId } }',
        { a: accountId, n },
        a,
      );
      graphqlCase(
        'upsertAccount(retentionDays)',
        'mutation($n: Int) { upsertAccount(subject: "bounds", retentionDays: $n) { accountId } }',
        { n },
        i,
      );
      restCase('limit', 'POST', `${acc}/activities`, reader, { limit: n });
      restCase('ingest numbers', 'POST', '/api/ingest', ingest, [
        { op: 'createActivity', accessoryId, input: { relevanceLevel: n, objectLocations: [n] } },
      ]);
      restCase('timeline limit', 'POST', '/api/activities', reader, { limit: n });
      restCase('rotate overlapSeconds', 'POST', '/api/accounts/self/notifications/rotate', reader, {
        overlapSeconds: n,
      });
      restCase('maxPerSecond', 'PUT', '/api/accounts/self/notifications', reader, {
        url: 'https://receiver.example/hooks',
        authKey: 'bounds-key-0123456789',
        eventTypes: ['activity_created'],
        maxPerSecond: n,
      });
    }
    // A document by its hash (persisted operations): the hash and version at and past their form.
    for (const version of [1, 0, 2, '1', null, 1e308]) {
      for (const sha256Hash of [
        'a'.repeat(64),
        'a'.repeat(63),
        'a'.repeat(65),
        'A'.repeat(64),
        '',
        12345,
        null,
      ]) {
        const body = { variables: {}, extensions: { persistedQuery: { version, sha256Hash } } };
        cases.push({
          label: `GraphQL by hash: ${JSON.stringify(body.extensions)}`,
          run: async () => {
            const res = await rest(t.url, reader, 'POST', '/graphql', body);
            return { status: res.status, codes: codesOf(res.body), text: JSON.stringify(res.body) };
          },
        });
      }
    }
    for (const timeZone of [
      'Mars/Olympus',
      '',
      'UTC+25',
      '+14:00',
      'Etc/GMT-14',
      'x'.repeat(300),
    ]) {
      restCase('counts timeZone', 'POST', '/api/activities/counts', reader, {
        from: '2026-01-01T00:00:00Z',
        to: '2026-01-02T00:00:00Z',
        bucket: 'HOUR',
        timeZone,
      });
    }
    for (const v of UNSTORABLE) {
      for (const c of unstorableCases(v, accessoryId)) {
        const token = { reader: r, ingest: i, zones: z }[c.token];
        if (c.rest) restCase(c.label, c.rest.method, c.rest.path, token(), c.rest.body);
        else graphqlCase(c.label, c.graphql.query, c.graphql.variables, token);
      }
    }
    for (const filter of FILTERS) {
      restCase('filter', 'POST', `${acc}/activities`, reader, { filter });
      restCase('timeline filter', 'POST', '/api/activities', reader, { filter });
      graphqlCase(
        'activities(filter)',
        'query($x: ID!, $f: String) { accessory(id: $x) { activities(first: 2, filter: $f) { edges { cursor } } } }',
        { x: accessoryId, f: filter },
        r,
      );
    }
  });
  afterAll(async () => {
    await ws?.dispose();
    await t?.close();
  });

  it('are served or refused as the caller’s fault, never a server fault', async () => {
    const faults: string[] = [];
    for (const c of cases) {
      const outcome = await c.run();
      if (
        outcome.status === 0 ||
        outcome.status >= 500 ||
        outcome.codes.some((code) => SERVER_FAULTS.has(code))
      ) {
        faults.push(`${c.label}: ${outcome.status} ${outcome.text.slice(0, 300)}`);
      }
    }
    expect(faults).toEqual([]);
    expect(cases.length).toBeGreaterThan(400);
  });

  it('refuse strings PostgreSQL cannot store as INVALID_ARGUMENT naming the field, REST and GraphQL', async () => {
    const tokens = { reader, ingest, zones: zoner };
    const wrong: string[] = [];
    for (const v of UNSTORABLE) {
      for (const c of unstorableCases(v, accessoryId)) {
        const res = c.rest
          ? await rest(t.url, tokens[c.token], c.rest.method, c.rest.path, c.rest.body)
          : await rest(t.url, tokens[c.token], 'POST', '/graphql', c.graphql);
        const error = c.rest ? res.body?.error : res.body?.errors?.[0]?.extensions;
        const got = `${res.status} ${error?.code} ${error?.details?.field}`;
        const expected = `${c.rest ? 400 : 200} INVALID_ARGUMENT ${c.field}`;
        if (got !== expected)
          wrong.push(`${c.label} ${JSON.stringify(v)}: ${got}, not ${expected}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('refuse a token whose sub or client id PostgreSQL cannot store as a 401', async () => {
    for (const v of UNSTORABLE) {
      for (const token of [
        await t.token(['activities_basic'], `user${v}`),
        await t.token(['activities_basic'], 'user-1', `client${v}`),
      ]) {
        const res = await rest(t.url, token, 'GET', '/api/accessories');
        expect(res.status, JSON.stringify(v)).toBe(401);
        expect(res.body.error.code).toBe('UNAUTHENTICATED');
      }
    }
  });

  it('refuse an event cursor past bigint as INVALID_ARGUMENT naming after', async () => {
    const res = await fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${reader}`,
        'content-type': 'application/json',
        accept: 'text/event-stream',
      },
      body: JSON.stringify({
        query:
          'subscription { accountEvents(accountId: "self", after: "9999999999999999999") { eventId } }',
      }),
    });
    const text = await res.text();
    expect(text).toContain('"code":"INVALID_ARGUMENT"');
    expect(text).toContain('"field":"after"');
  });

  it('leave the instance serving its tenants', async () => {
    const page = await rest(t.url, reader, 'POST', `/api/accessories/${accessoryId}/activities`, {
      limit: 3,
    });
    expect(page.status).toBe(200);
    expect(page.body.activities.length).toBeGreaterThan(0);
    expect((await fetch(`${t.url}/readyz`)).status).toBe(200);
  });
});
