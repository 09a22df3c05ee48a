import net, { type AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorStatus } from '../../src/errors.ts';
import { backends, startApp, type TestApp } from '../helpers/app.ts';
import { rest } from '../helpers/client.ts';
import { seedAccessory } from '../helpers/fixtures.ts';

/** Inputs per backend; the seed is printed with any failure so that it can be replayed. */
const RUNS = 1200;
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
/** Requests in flight at once. */
const CONCURRENCY = 8;

/**
 * What an answer's body says that it must not: an error code the docs do not list (docs/api.md,
 * Errors, is src/errors.ts's list), or a detail of the error behind it. Empty for a good one.
 */
function undocumented(text: string): string[] {
  const found = /originalError|"stack"|node_modules|\n\s+at /.exec(text);
  const codes: unknown[] = [];
  // JSON, or the JSON data of SSE events.
  const parts = text.startsWith('{')
    ? [text]
    : [...text.matchAll(/^data: (.*)$/gm)].map((m) => m[1]!);
  for (const part of parts) {
    let answer: { error?: { code?: unknown }; errors?: { extensions?: { code?: unknown } }[] };
    try {
      answer = JSON.parse(part) as typeof answer;
    } catch {
      continue;
    }
    if (answer.error) codes.push(answer.error.code);
    for (const error of answer.errors ?? []) codes.push(error.extensions?.code);
  }
  return [
    ...(found ? [`internal detail ${found[0]}`] : []),
    ...codes.filter((c) => !Object.hasOwn(errorStatus, String(c))).map((c) => `code ${c}`),
  ];
}

interface Input {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

const nested = (depth: number, open: string, close: string, inner = '1') =>
  open.repeat(depth) + inner + close.repeat(depth);

/** Strings PostgreSQL's text and jsonb cannot store: NUL, surrogates without their pair. */
const unstorable = fc
  .tuple(
    fc.string({ maxLength: 5 }),
    fc.constantFrom('\u0000', '\ud800', '\udfff', '\udc00\ud800'),
    fc.string({ maxLength: 5 }),
  )
  .map((parts) => parts.join(''));

/**
 * Request bodies: JSON of every shape, deep nesting, huge strings, strings no database stores,
 * not JSON at all.
 */
const body = fc.oneof(
  fc.jsonValue().map((v) => JSON.stringify(v)),
  fc.anything().map((v) => JSON.stringify(v) ?? 'undefined'),
  fc.integer({ min: 1, max: 20_000 }).map((d) => nested(d, '[', ']')),
  fc.integer({ min: 1, max: 20_000 }).map((d) => nested(d, '{"a":', '}')),
  fc.integer({ min: 1_000, max: 200_000 }).map((n) => JSON.stringify({ name: 'x'.repeat(n) })),
  fc.string({ unit: 'binary', maxLength: 300 }),
  fc
    .record(
      {
        name: fc.anything(),
        relevanceLevel: fc.oneof(fc.integer(), fc.double(), fc.string(), fc.constant(null)),
        createdAt: fc.oneof(
          fc.string(),
          fc.integer(),
          fc.date({ noInvalidDate: false }).map(String),
        ),
        endTime: fc.anything(),
        url: fc.oneof(fc.webUrl(), fc.string()),
        eventTypes: fc.anything(),
        filter: fc.anything(),
        operator: fc.string(),
        limit: fc.oneof(fc.integer(), fc.string(), fc.double()),
        cursor: fc.string(),
        polygon: fc.anything(),
      },
      { requiredKeys: [] },
    )
    .map((v) => JSON.stringify(v)),
  fc
    .record(
      {
        url: fc.constant('https://receiver.example/hooks'),
        authKey: fc.oneof(fc.constant('fuzz-key-0123456789'), unstorable),
        eventTypes: fc.constant(['activity_created']),
        userData: fc.dictionary(
          fc.oneof(fc.string(), unstorable),
          fc.oneof(fc.string(), unstorable),
        ),
        filter: unstorable.map((u) => `accessoryId = "${u}"`),
        zones: fc.array(fc.record({ id: fc.constant('z1'), name: unstorable, color: unstorable })),
        motionZones: fc.array(unstorable),
        input: fc.record({ motionZones: fc.array(unstorable) }),
      },
      { requiredKeys: [] },
    )
    .chain((v) =>
      fc.constantFrom(
        JSON.stringify(v),
        JSON.stringify([{ op: 'reportMotion', state: 'started', ...v }]),
      ),
    ),
);

/** GraphQL documents: random text, mangled real operations, deep selections, huge aliases. */
const document = fc.oneof(
  fc.string({ maxLength: 200 }),
  fc.constantFrom(
    '{ accessories { edges { node { id name } } } }',
    'query($a: ID!) { accessory(id: $a) { id activities(first: 5) { edges { node { activityId } } } } }',
    'mutation($a: ID!, $i: CreateActivityInput!) { createActivity(accessoryId: $a, input: $i) { activityId } }',
    'mutation($s: String!, $r: Int) { upsertAccount(subject: $s, retentionDays: $r) { accountId } }',
    '{ node(id: "x") { id } nodes(ids: ["a", "b"]) { id } }',
    'subscription { accessoryEvents(accessoryId: "x") { eventId } }',
    '{ __schema { types { name fields { name } } } }',
    'mutation($a: ID!, $u: JSON) { registerNotifications(input: { accountId: $a, url: "https://receiver.example/hooks", authKey: "fuzz-key-0123456789", eventTypes: [activity_created], userData: $u }) { accountId } }',
  ),
  fc.integer({ min: 1, max: 3_000 }).map((d) => nested(d, '{ viewer ', '}', '{ clientId }')),
  fc.integer({ min: 1, max: 3_000 }).map((n) =>
    Array.from({ length: n }, (_, i) => `a${i}: viewer { clientId }`)
      .join(' ')
      .replace(/^/, '{ ')
      .concat(' }'),
  ),
);

const graphqlBody = fc
  .record(
    {
      query: fc.oneof(document, fc.anything()),
      variables: fc.oneof(
        fc.anything(),
        fc.record({ a: fc.anything(), i: fc.anything(), s: fc.anything(), r: fc.anything() }),
        fc.record({
          a: fc.oneof(fc.constant('self'), fc.anything()),
          i: fc.record({ motionZones: fc.array(unstorable) }),
          s: unstorable,
          u: fc.dictionary(fc.oneof(fc.string(), unstorable), unstorable, { minKeys: 1 }),
        }),
      ),
      operationName: fc.oneof(fc.string(), fc.anything()),
      extensions: fc.anything(),
    },
    { requiredKeys: [] },
  )
  .map((v) => JSON.stringify(v));

/** Printable header values (what an HTTP client can send at all). */
const headerText = fc.string({ unit: 'grapheme-ascii', maxLength: 200 });

function inputs(accessoryId: string, token: string): fc.Arbitrary<Input> {
  const id = fc.oneof(
    fc.constant(accessoryId),
    fc.uuid(),
    fc.string({ maxLength: 40 }),
    fc.constant('self'),
  );
  const path = fc.oneof(
    fc.constant('/api/accessories'),
    id.map((a) => `/api/accessories/${encodeURIComponent(a)}/activities`),
    fc
      .tuple(id, id)
      .map(
        ([a, b]) => `/api/accessories/${encodeURIComponent(a)}/activities/${encodeURIComponent(b)}`,
      ),
    id.map((a) => `/api/accessories/${encodeURIComponent(a)}/zones`),
    id.map((a) => `/api/accounts/${encodeURIComponent(a)}`),
    id.map((a) => `/api/accounts/${encodeURIComponent(a)}/notifications`),
    fc.string({ maxLength: 60 }).map((s) => `/api/${encodeURIComponent(s)}`),
    fc.webPath().map((p) => p || '/'),
  );
  const authorization = fc.oneof(
    fc.constant(`Bearer ${token}`),
    fc.constant(`Bearer ${token}`),
    fc.constant(undefined),
    headerText.map((s) => `Bearer ${s}`),
    headerText,
    fc.constant(`Bearer ${token.slice(0, -3)}abc`),
    fc.constant(`Basic ${Buffer.from('a:b').toString('base64')}`),
  );
  const contentType = fc.oneof(
    fc.constant('application/json'),
    fc.constant('application/json; charset=utf-16'),
    fc.constant('application/graphql'),
    fc.constant('application/x-www-form-urlencoded'),
    fc.constant('multipart/form-data; boundary=x'),
    fc.constant('text/plain'),
    fc.constant(undefined),
    headerText,
  );
  const contentEncoding = fc.oneof(
    fc.constant(undefined),
    fc.constant(undefined),
    fc.constantFrom('gzip', 'br', 'deflate', 'identity', 'zstd'),
    headerText,
  );
  const headers = fc
    .record({
      authorization,
      'content-type': contentType,
      'content-encoding': contentEncoding,
      accept: fc.oneof(
        fc.constant(undefined),
        fc.constantFrom(
          'application/json',
          'text/event-stream',
          'application/graphql-response+json',
        ),
        headerText,
      ),
    })
    .map(
      (h) =>
        Object.fromEntries(Object.entries(h).filter(([, v]) => v !== undefined)) as Record<
          string,
          string
        >,
    );
  const restInput = fc.record({
    method: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE'),
    path,
    headers,
    body: fc.option(body, { nil: undefined }),
  });
  const graphqlInput = fc.record({
    method: fc.constant('POST'),
    path: fc.constant('/graphql'),
    headers,
    body: fc.oneof(graphqlBody, body),
  });
  // Node's HTTP parser closes the connection on a request head over 16 KiB (431) before the
  // service sees it; GET documents stay under that.
  const graphqlGet = fc
    .record({ query: document, variables: fc.string({ maxLength: 100 }), headers })
    .map(({ query, variables, headers: h }) => ({
      method: 'GET',
      path: `/graphql?${new URLSearchParams({ query, variables })}`,
      headers: h,
    }))
    .filter((input) => input.path.length < 12_000);
  // A registration as its client sends it, with strings no database stores in its fields.
  const registration = fc.record({
    method: fc.constant('PUT'),
    path: fc.constant('/api/accounts/self/notifications'),
    headers: fc.constant({ authorization: `Bearer ${token}`, 'content-type': 'application/json' }),
    body: fc
      .record({
        userData: fc.dictionary(
          fc.oneof(fc.string(), unstorable),
          fc.oneof(fc.string(), unstorable),
        ),
        filter: fc.option(
          unstorable.map((u) => `accessoryId = "${u}"`),
          { nil: undefined },
        ),
      })
      .map((fields) =>
        JSON.stringify({
          url: 'https://receiver.example/hooks',
          authKey: 'fuzz-key-0123456789',
          eventTypes: ['activity_created'],
          ...fields,
        }),
      ),
  });
  return fc.oneof(restInput, graphqlInput, graphqlInput, graphqlGet, registration);
}

describe.each(backends)('fuzzed requests on %s', (backend) => {
  let t: TestApp;
  let accessoryId: string;
  let reader: string;
  beforeAll(async () => {
    t = await startApp(backend);
    ({ accessoryId } = await seedAccessory(t));
    reader = await t.token(['activities_basic', 'activities_full', 'notifications']);
  });
  afterAll(() => t?.close());

  it(`answers ${RUNS} malformed requests without a 5xx and stays healthy`, async () => {
    const samples = fc.sample(inputs(accessoryId, reader), { numRuns: RUNS, seed: SEED });
    const failures: string[] = [];
    const statuses = new Map<number, number>();
    let next = 0;
    const worker = async () => {
      while (next < samples.length) {
        const input = samples[next++]!;
        const method = input.method;
        const res = await fetch(`${t.url}${input.path}`, {
          method,
          headers: input.headers,
          body: method === 'GET' ? undefined : input.body,
        }).catch((err: Error) => err);
        if (res instanceof Error) {
          failures.push(`${res.message}: ${JSON.stringify(input).slice(0, 400)}`);
          continue;
        }
        const text = await res.text().catch(() => '');
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        if (res.status >= 500 || undocumented(text).length > 0) {
          failures.push(
            `${res.status} ${undocumented(text).join(', ')} ${text.slice(0, 300)}: ${JSON.stringify(input).slice(0, 400)}`,
          );
        }
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    expect(failures, `FUZZ_SEED=${SEED}`).toEqual([]);
    // The inputs reach past the front door: some are served, some refused on their content.
    expect(statuses.get(200)).toBeGreaterThan(0);
    expect(statuses.get(400)).toBeGreaterThan(0);

    expect((await fetch(`${t.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${t.url}/readyz`)).status).toBe(200);
    expect((await rest(t.url, reader, 'GET', '/api/accessories')).status).toBe(200);
  });
});

describe('request targets that start with //', () => {
  it('are a 404 over HTTP and on a WebSocket upgrade, not a 500 or a crash', async () => {
    const t = await startApp('pglite');
    try {
      for (const target of ['//', '//:///', '//graphql']) {
        expect((await fetch(`${t.url}${target}`)).status).toBe(404);
        const head = await new Promise<string>((resolve, reject) => {
          const socket = net.connect(
            (t.app.server.address() as AddressInfo).port,
            '127.0.0.1',
            () =>
              socket.write(
                `GET ${target} HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n` +
                  'Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n',
              ),
          );
          socket.once('data', (chunk) => resolve(chunk.toString().split('\r\n')[0]!));
          socket.once('error', reject);
        });
        expect(head).toBe('HTTP/1.1 404 Not Found');
      }
      expect((await fetch(`${t.url}/healthz`)).status).toBe(200);
    } finally {
      await t.close();
    }
  });
});
