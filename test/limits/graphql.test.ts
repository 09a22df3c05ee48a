import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends, startApp, type TestApp } from '../helpers/app.ts';
import { postGraphQL } from '../helpers/client.ts';
import { seedAccessory } from '../helpers/fixtures.ts';
import { lockActivities } from '../helpers/locks.ts';
import { wsClient } from '../events/live-helpers.ts';

interface Answer {
  status: number;
  errors?: { message: string; extensions: { code: string; details?: Record<string, unknown> } }[];
  data?: unknown;
}

describe.each(backends)('GraphQL operation limits on %s', (backend) => {
  let t: TestApp;
  let accessoryId: string;
  let ingest: string;
  let reader: string;
  beforeAll(async () => {
    t = await startApp(backend);
    ({ accessoryId, ingest } = await seedAccessory(t));
    reader = await t.token(['activities_basic']);
  });
  afterAll(() => t.close());

  async function post(token: string, query: string, variables?: object): Promise<Answer> {
    const res = await postGraphQL(t.url, token, query, variables);
    return { status: res.status, ...((await res.json()) as object) };
  }

  const page = `edges { cursor node { activityId accessoryId startTime endTime playbackDuration relevanceLevel inProgress motionZones objectLocations } } pageInfo { hasNextPage endCursor } nextStartActivityId`;

  it('refuses more aliases than GRAPHQL_MAX_ALIASES, naming the limit and the count, and runs nothing', async () => {
    const fields = (n: number) =>
      Array.from({ length: n }, (_, i) => `a${i}: viewer { clientId }`).join(' ');
    expect((await post(reader, `{ ${fields(30)} }`)).errors).toBeUndefined();
    const refused = await post(reader, `{ ${fields(31)} }`);
    expect(refused.status).toBe(400);
    expect(refused.errors![0]!.extensions).toMatchObject({
      code: 'INVALID_ARGUMENT',
      details: { limit: 'GRAPHQL_MAX_ALIASES', max: 30, measured: 31 },
    });
    expect(refused.errors![0]!.message).toMatch(/GRAPHQL_MAX_ALIASES.*31/);
    // A mutation over the limit changes nothing.
    const creates = Array.from(
      { length: 31 },
      (_, i) =>
        `c${i}: createActivity(accessoryId: "${accessoryId}", input: { createdAt: "2026-11-20T00:00:${String(i).padStart(2, '0')}Z", relevanceLevel: 1 }) { activityId }`,
    ).join(' ');
    expect((await post(ingest, `mutation { ${creates} }`)).status).toBe(400);
    const listed = await post(
      reader,
      `{ accessory(id: "${accessoryId}") { activities { ${page} } } }`,
    );
    expect(listed.data).toMatchObject({ accessory: { activities: { edges: [] } } });
  });

  it('refuses operations deeper than GRAPHQL_MAX_DEPTH and longer than GRAPHQL_MAX_TOKENS', async () => {
    // accessories > edges > node > activities > edges > node > media > image: 8 levels.
    const deep = `{ accessories { edges { node { activities { edges { node { media { image } } } } } } } }`;
    expect((await post(reader, deep)).errors).toBeUndefined();
    const limited = await startApp(backend, { GRAPHQL_MAX_DEPTH: '5' });
    try {
      const token = await limited.token(['activities_basic']);
      const res = await fetch(`${limited.url}/graphql`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query: deep }),
      });
      const body = (await res.json()) as Answer;
      expect(body.errors).toMatchObject([
        {
          message: expect.stringMatching(/GRAPHQL_MAX_DEPTH/),
          extensions: {
            code: 'INVALID_ARGUMENT',
            details: { limit: 'GRAPHQL_MAX_DEPTH', max: 5, measured: expect.any(Number) },
          },
        },
      ]);
      expect(body.errors![0]!.extensions.details!.measured).toBeGreaterThan(5);
    } finally {
      await limited.close();
    }
    const long = await post(reader, `{ viewer { ${'clientId '.repeat(2001)} } }`);
    expect(long.status).toBe(400);
    expect(long.errors![0]!.extensions).toMatchObject({
      code: 'INVALID_ARGUMENT',
      details: { limit: 'GRAPHQL_MAX_TOKENS', max: 2000 },
    });
  });

  it('prices pages by their size and refuses an operation costlier than GRAPHQL_MAX_COST', async () => {
    const one = `{ accessory(id: "${accessoryId}") { activities(first: 100) { ${page} } } }`;
    expect((await post(reader, one)).errors).toBeUndefined();
    // A full page costs 1 + 100 x 16: three fit in GRAPHQL_MAX_COST (5000), four do not.
    const pages = ['a', 'b', 'c'].map((alias) => `${alias}: activities(first: 100) { ${page} }`);
    const withVariable = `query Q($n: Int) { accessory(id: "${accessoryId}") { ${pages.join(' ')} d: activities(first: $n) { ${page} } } }`;
    const refused = await post(reader, withVariable, { n: 100 });
    expect(refused.status).toBe(400);
    const details = refused.errors![0]!.extensions.details!;
    expect(details).toMatchObject({ limit: 'GRAPHQL_MAX_COST', max: 5000 });
    expect(details.measured).toBeGreaterThan(5000);
    // The same operation with a small page for the variable fits.
    expect((await post(reader, withVariable, { n: 5 })).errors).toBeUndefined();
  });

  it('applies the limits over WebSocket and SSE too', async () => {
    // (__typename is not counted as an alias.)
    const aliases = Array.from({ length: 31 }, (_, i) => `a${i}: eventId`).join(' ');
    const subscription = `subscription { accessoryEvents(accessoryId: "${accessoryId}") { ${aliases} } }`;
    const ws = wsClient(t.url, `Bearer ${reader}`);
    const wsErrors = await new Promise<unknown>((resolve) =>
      ws.client.subscribe(
        { query: subscription },
        { next: () => {}, error: resolve, complete: () => resolve(null) },
      ),
    );
    await ws.dispose();
    expect(wsErrors).toMatchObject([
      { extensions: { code: 'INVALID_ARGUMENT', details: { limit: 'GRAPHQL_MAX_ALIASES' } } },
    ]);
    const abort = new AbortController();
    const sse = await fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${reader}`,
        'content-type': 'application/json',
        accept: 'text/event-stream',
      },
      body: JSON.stringify({ query: subscription }),
      signal: abort.signal,
    });
    let text = '';
    const decoder = new TextDecoder();
    const body = sse.body!.getReader();
    while (!text.includes('event: complete')) {
      const { value, done } = await body.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    abort.abort();
    expect(text).toMatch(/GRAPHQL_MAX_ALIASES/);
  });

  it('applies the body limit to /graphql (413 PAYLOAD_TOO_LARGE)', async () => {
    const filler = 'x'.repeat(70 * 1024);
    const res = await post(reader, `{ viewer { clientId } } # ${filler}`);
    expect(res.status).toBe(413);
    expect(res.errors![0]!.extensions.code).toBe('PAYLOAD_TOO_LARGE');
    const metrics = await (await fetch(`${t.url}/metrics`)).text();
    expect(metrics).toMatch(/clipgate_refusals_total\{reason="too_costly"\} [1-9]/);
  });

  it('applies the body limit to a body sent in chunks, without a Content-Length', async () => {
    const chunked = (text: string) =>
      fetch(`${t.url}/graphql`, {
        method: 'POST',
        headers: { authorization: `Bearer ${reader}`, 'content-type': 'application/json' },
        body: new ReadableStream({
          start(controller) {
            for (let i = 0; i < text.length; i += 8192) {
              controller.enqueue(new TextEncoder().encode(text.slice(i, i + 8192)));
            }
            controller.close();
          },
        }),
        duplex: 'half',
      } as RequestInit);
    const filler = ' '.repeat(70 * 1024);
    const refused = await chunked(`${filler}{"query": "{ viewer { clientId } }"}`);
    expect(refused.status).toBe(413);
    expect(
      ((await refused.json()) as { errors: { extensions: { code: string } }[] }).errors[0]!
        .extensions.code,
    ).toBe('PAYLOAD_TOO_LARGE');
    const answered = await chunked(`${' '.repeat(20_000)}{"query": "{ viewer { clientId } }"}`);
    expect(answered.status).toBe(200);
    expect(await answered.json()).toEqual({ data: { viewer: { clientId: 'client-1' } } });
  });
});

// Only a server with a connection per query can show it: PGlite runs one statement at a time.
describe.runIf(backends.includes('postgres'))('GraphQL execution shares on postgres', () => {
  it("executes one caller's operations one after the other beyond GRAPHQL_MAX_COST_IN_FLIGHT, other callers' beside them", async () => {
    const t = await startApp('postgres', { GRAPHQL_MAX_COST_IN_FLIGHT: '2000' });
    try {
      const { accessoryId } = await seedAccessory(t);
      const [a, b] = [
        await t.token(['activities_basic'], 'user-1', 'client-a'),
        await t.token(['activities_basic'], 'user-1', 'client-b'),
      ];
      // One full page: about 1,600 points, so two of one caller do not fit in 2,000.
      const query = `{ accessory(id: "${accessoryId}") { activities(first: 100) { edges { node { activityId startTime endTime relevanceLevel inProgress motionZones objectLocations playbackDuration accessoryId } } } } }`;
      const send = (token: string) =>
        fetch(`${t.url}/graphql`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ query }),
        }).then(async (res) => ({ status: res.status, body: (await res.json()) as object }));
      const lock = await lockActivities(t);
      try {
        const answers = [send(a), send(a), send(b)];
        // client-a's first and client-b's: client-a's second waits for its first to end.
        expect(await lock.settle(2)).toBe(2);
        await lock.release();
        for (const answer of await Promise.all(answers)) {
          expect(answer).toMatchObject({ status: 200, body: { data: { accessory: {} } } });
          expect(answer.body).not.toHaveProperty('errors');
        }
      } finally {
        await lock.end();
      }
    } finally {
      await t.close();
    }
  });
});
