import net from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { backends, startApp, type TestApp } from '../helpers/app.ts';
import { rest } from '../helpers/client.ts';
import { seedAccessory } from '../helpers/fixtures.ts';

describe.each(backends)('HTTP errors on %s', (backend) => {
  let t: TestApp;
  let reader: string;
  let accessoryId: string;
  beforeAll(async () => {
    t = await startApp(backend);
    accessoryId = (await seedAccessory(t)).accessoryId;
    reader = await t.token(['activities_basic']);
  });
  afterAll(() => t.close());

  const listPath = () => `/api/accessories/${accessoryId}/activities`;

  it('answers 401 with WWW-Authenticate for missing or bad tokens', async () => {
    for (const auth of [undefined, 'Basic abc', 'Bearer', 'Bearer not.a.jwt']) {
      const res = await fetch(t.url + listPath(), {
        method: 'POST',
        headers: auth ? { authorization: auth } : {},
      });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe(
        'UNAUTHENTICATED',
      );
    }
    const gql = await fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ viewer { clientId } }' }),
    });
    expect(gql.status).toBe(401);
    expect(gql.headers.get('www-authenticate')).toMatch(/^Bearer/);
    const body = (await gql.json()) as { errors: { extensions: { code: string } }[] };
    expect(body.errors[0]!.extensions.code).toBe('UNAUTHENTICATED');
  });

  it('answers 403 naming the missing scope', async () => {
    const notifier = await t.token(['notifications']);
    const res = await rest(t.url, notifier, 'POST', listPath(), {});
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('PERMISSION_DENIED');
    expect(res.headers.get('www-authenticate')).toBe(
      'Bearer error="insufficient_scope", scope="service:activities_basic"',
    );
  });

  it('hides other accounts: 404 for their accessories and unknown ones, 400 for malformed ids', async () => {
    const stranger = await t.token(['activities_basic'], 'someone-else');
    expect((await rest(t.url, stranger, 'POST', listPath(), {})).status).toBe(404);
    const unknown = await rest(
      t.url,
      reader,
      'POST',
      `/api/accessories/${crypto.randomUUID()}/activities`,
      {},
    );
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('NOT_FOUND');
    const malformed = await rest(
      t.url,
      reader,
      'POST',
      '/api/accessories/not-a-uuid/activities',
      {},
    );
    expect(malformed.status).toBe(400);
    expect(malformed.body.error).toMatchObject({
      code: 'INVALID_ARGUMENT',
      details: { field: 'accessoryId' },
    });
    expect((await rest(t.url, reader, 'GET', `${listPath()}/20260101T000000Z`)).status).toBe(404);
    expect((await rest(t.url, reader, 'GET', '/api/nothing-here')).status).toBe(404);
    expect((await rest(t.url, reader, 'DELETE', listPath())).status).toBe(405);
  });

  it('answers 415 for a body that is not JSON and 400 for malformed JSON', async () => {
    const post = (body: string, type?: string) =>
      fetch(t.url + listPath(), {
        method: 'POST',
        headers: { authorization: `Bearer ${reader}`, ...(type && { 'content-type': type }) },
        body,
      });
    expect((await post('limit=3', 'application/x-www-form-urlencoded')).status).toBe(415);
    expect((await post('{"limit":3}', 'text/plain')).status).toBe(415);
    expect((await post('{"limit":3}', 'application/json; charset=utf-8')).status).toBe(200);
    const bad = await post('{"limit":', 'application/json');
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { code: string } }).error.code).toBe('INVALID_ARGUMENT');
    expect((await post('[1,2]', 'application/json')).status).toBe(400);
    expect((await post('null', 'application/json')).status).toBe(400);
  });

  it('names the methods a path takes in Allow with every 405', async () => {
    const cases: [string, string, string][] = [
      ['DELETE', listPath(), 'POST'],
      ['PATCH', '/api/accounts/self/notifications', 'PUT, GET, DELETE'],
      [
        'DELETE',
        `/api/accessories/${accessoryId}/activities/20260101T000000Z/mp4`,
        'GET, HEAD, PUT',
      ],
      ['POST', `/api/accessories/${accessoryId}/export.mp4`, 'GET, HEAD'],
      ['DELETE', '/healthz', 'GET, HEAD'],
      ['POST', '/metrics', 'GET, HEAD'],
      ['POST', '/app', 'GET, HEAD'],
      ['PUT', '/graphql', 'GET, POST'],
    ];
    for (const [method, path, allowed] of cases) {
      const res = await fetch(t.url + path, {
        method,
        headers: { authorization: `Bearer ${reader}` },
      });
      expect([path, res.status, res.headers.get('allow')]).toEqual([path, 405, allowed]);
      const body = (await res.json()) as {
        error?: { code: string };
        errors?: { extensions: { code: string } }[];
      };
      expect(body.error?.code ?? body.errors?.[0]?.extensions.code).toBe('METHOD_NOT_ALLOWED');
    }
  });

  it('answers what the GraphQL layer refuses as INVALID_ARGUMENT, with nothing of the error it comes from', async () => {
    const requests: [string, string | object][] = [
      ['a syntax error', { query: '{ viewer { ' }],
      ['an unknown field', { query: '{ nope }' }],
      [
        'a wrong variable type',
        { query: 'query ($n: Int) { viewer { clientId } }', variables: { n: 'x' } },
      ],
      ['an unknown operation', { query: 'query A { viewer { clientId } }', operationName: 'B' }],
      ['a body that is no JSON', '{"query":'],
      ['a body without a query', { variables: {} }],
    ];
    for (const accept of ['application/json', 'application/graphql-response+json']) {
      for (const [what, body] of requests) {
        const res = await fetch(`${t.url}/graphql`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${reader}`,
            'content-type': 'application/json',
            accept,
          },
          body: typeof body === 'string' ? body : JSON.stringify(body),
        });
        // A body that is no JSON is a 400 whatever the client accepts, as it was.
        if (typeof body === 'string') expect([what, res.status]).toEqual([what, 400]);
        const json = (await res.json()) as { errors: { extensions: Record<string, unknown> }[] };
        expect([what, accept, res.status < 500, json.errors.length > 0]).toEqual([
          what,
          accept,
          true,
          true,
        ]);
        for (const error of json.errors) {
          expect([what, error.extensions.code]).toEqual([what, 'INVALID_ARGUMENT']);
          expect(
            Object.keys(error.extensions).filter((k) => k !== 'code' && k !== 'details'),
          ).toEqual([]);
        }
      }
    }
  });

  it('names the parameter of a GET query or a form that is no JSON', async () => {
    for (const field of ['variables', 'extensions']) {
      const query = new URLSearchParams({ query: '{ viewer { clientId } }', [field]: '{nope' });
      const auth = { authorization: `Bearer ${reader}` };
      const form = { ...auth, 'content-type': 'application/x-www-form-urlencoded' };
      for (const res of [
        await fetch(`${t.url}/graphql?${query}`, { headers: auth }),
        await fetch(`${t.url}/graphql`, { method: 'POST', headers: form, body: String(query) }),
      ]) {
        expect(res.status).toBe(400);
        expect(await res.json()).toEqual({
          errors: [
            {
              message: `${field} must be JSON`,
              extensions: { code: 'INVALID_ARGUMENT', details: { field } },
            },
          ],
        });
      }
    }
  });

  it('answers a subscription refused over SSE before its first event with the status of its error', async () => {
    const subscribe = (query: string) =>
      fetch(`${t.url}/graphql`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${reader}`,
          'content-type': 'application/json',
          accept: 'text/event-stream',
        },
        body: JSON.stringify({ query }),
      });
    const empty = await subscribe(
      'subscription { accountEvents(accountId: "self", eventTypes: []) { eventId } }',
    );
    expect(empty.status).toBe(400);
    expect(empty.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await empty.json()).toMatchObject({
      errors: [{ extensions: { code: 'INVALID_ARGUMENT', details: { field: 'eventTypes' } } }],
    });
    const unknownField = await subscribe('subscription { nope }');
    expect(unknownField.status).toBe(400);
    expect(((await unknownField.json()) as { errors: unknown[] }).errors).toHaveLength(1);
  });

  it('answers 413 over the body limit', async () => {
    const res = await fetch(t.url + listPath(), {
      method: 'POST',
      headers: { authorization: `Bearer ${reader}`, 'content-type': 'application/json' },
      body: JSON.stringify({ filter: 'x'.repeat(70 * 1024) }),
    });
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe(
      'PAYLOAD_TOO_LARGE',
    );
  });

  it('keeps the connection of a request refused before its body arrived', async () => {
    // Refused for its missing token as soon as its headers are read; its body comes after the
    // answer, and the next request on the same connection is answered.
    for (const target of [listPath(), '/graphql']) {
      const socket = net.connect(Number(new URL(t.url).port), '127.0.0.1');
      let received = '';
      socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
      const answered = (count: number) =>
        vi.waitFor(() => expect(received.match(/HTTP\/1\.1 \d{3} /g)).toHaveLength(count), {
          timeout: 5000,
          interval: 20,
        });
      socket.write(
        `POST ${target} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n` +
          'Content-Length: 2\r\n\r\n',
      );
      await answered(1);
      expect(received).toMatch(/^HTTP\/1\.1 401 /);
      socket.write('{}GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n');
      await answered(2);
      expect(received).toMatch(/}HTTP\/1\.1 200 OK/);
      socket.destroy();
    }
  });

  it('never answers 5xx to random REST bodies or GraphQL variables', async () => {
    const gqlQuery = `query Q($id: ID!, $first: Int, $after: String, $last: Int, $before: String, $since: String, $filter: String) {
      accessory(id: $id) { activities(first: $first, after: $after, last: $last, before: $before, since: $since, filter: $filter) { edges { cursor } nextStartActivityId } } }`;
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.jsonValue(),
          fc.record(
            {
              scanDirectionNewer: fc.oneof(fc.boolean(), fc.jsonValue()),
              startActivityId: fc.oneof(
                fc.string(),
                fc.constant('20261121T000000Z'),
                fc.jsonValue(),
              ),
              operator: fc.oneof(fc.constantFrom('<', '<=', '>', '>=', '=', ''), fc.jsonValue()),
              limit: fc.oneof(fc.integer(), fc.double(), fc.jsonValue()),
              filter: fc.oneof(fc.string(), fc.jsonValue()),
              extraFields: fc.oneof(
                fc.array(fc.constantFrom('motionZones', 'media', 'x')),
                fc.jsonValue(),
              ),
            },
            { requiredKeys: [] },
          ),
        ),
        fc.record(
          {
            id: fc.oneof(fc.uuid(), fc.string(), fc.constant(accessoryId), fc.jsonValue()),
            first: fc.oneof(fc.integer(), fc.jsonValue()),
            after: fc.oneof(fc.string(), fc.jsonValue()),
            last: fc.oneof(fc.integer({ min: -5, max: 200 }), fc.jsonValue()),
            before: fc.string(),
            since: fc.oneof(fc.string(), fc.constant('20261121T000000Z')),
            filter: fc.oneof(fc.string(), fc.constant('relevanceLevel >= 1')),
          },
          { requiredKeys: [] },
        ),
        async (body, variables) => {
          const r = await fetch(t.url + listPath(), {
            method: 'POST',
            headers: { authorization: `Bearer ${reader}`, 'content-type': 'application/json' },
            body: JSON.stringify(body),
          });
          expect(r.status).toBeLessThan(500);
          await r.arrayBuffer();
          const g = await fetch(`${t.url}/graphql`, {
            method: 'POST',
            headers: { authorization: `Bearer ${reader}`, 'content-type': 'application/json' },
            body: JSON.stringify({ query: gqlQuery, variables: { id: accessoryId, ...variables } }),
          });
          expect(g.status).toBeLessThan(500);
          const json = (await g.json()) as { errors?: { extensions?: { code?: string } }[] };
          for (const e of json.errors ?? []) expect(e.extensions?.code).not.toBe('INTERNAL');
        },
      ),
      { numRuns: 150 },
    );
  });
});
