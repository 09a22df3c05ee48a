import { createHash } from 'node:crypto';
import net from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { backends, startApp, type TestApp } from '../helpers/app.ts';
import { seedAccessory, seedActivities } from '../helpers/fixtures.ts';

// A plain JSON POST to /graphql is answered by Yoga's operation pipeline without its fetch layer
// (graphql/yoga.ts): what it answers must be what Yoga whole answers. A request accepting more
// than JSON alone goes to Yoga whole, which negotiates JSON for it: the two are compared request
// by request.

const PAGE = `query Page($id: ID!) { accessory(id: $id) { activities(first: 2) {
  edges { cursor node { activityId startTime } } pageInfo { hasNextPage endCursor } } } }`;
/** An Accept header Yoga negotiates JSON for, which the plain path leaves to Yoga whole. */
const WHOLE = 'application/json, */*';
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** Every write call made on a connection that answers HTTP: the bytes of each call. */
const serverWrites: string[] = [];
const answering = new WeakSet<net.Socket>();
const record = (socket: net.Socket, text: string) => {
  if (text.startsWith('HTTP/1.1 ')) answering.add(socket);
  if (answering.has(socket)) serverWrites.push(text);
};
const { _write: write, _writev: writev } = net.Socket.prototype as unknown as {
  _write: (chunk: Buffer | string, encoding: BufferEncoding, cb: () => void) => void;
  _writev: (chunks: { chunk: Buffer | string }[], cb: () => void) => void;
};

describe.each(backends)('plain JSON POSTs to /graphql on %s', (backend) => {
  let t: TestApp;
  let reader: string;
  let accessoryId: string;

  beforeAll(async () => {
    t = await startApp(backend);
    let ingest: string;
    ({ ingest, accessoryId } = await seedAccessory(t));
    await seedActivities(t, ingest, accessoryId, 3);
    reader = await t.token(['activities_basic']);
    const proto = net.Socket.prototype as unknown as typeof net.Socket.prototype & {
      _write: typeof write;
      _writev: typeof writev;
    };
    proto._write = function (this: net.Socket, chunk, encoding, cb) {
      record(this, String(chunk));
      write.call(this, chunk, encoding, cb);
    };
    proto._writev = function (this: net.Socket, chunks, cb) {
      record(this, chunks.map((c) => String(c.chunk)).join(''));
      writev.call(this, chunks, cb);
    };
  });
  afterEach(() => {
    serverWrites.length = 0;
  });
  afterAll(async () => {
    Object.assign(net.Socket.prototype, { _write: write, _writev: writev });
    await t.close();
  });

  const post = async (body: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${reader}`,
        'content-type': 'application/json',
        ...headers,
      },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    return {
      status: res.status,
      type: res.headers.get('content-type'),
      retryAfter: res.headers.get('retry-after'),
      body: await res.text(),
    };
  };
  /** The answer of the plain POST and of the same request through Yoga whole. */
  const both = async (body: unknown) => [await post(body), await post(body, { accept: WHOLE })];

  it('answers a page, an unknown accessory and a bad variable as Yoga does', async () => {
    const page = { query: PAGE, variables: { id: accessoryId } };
    const [plain, whole] = await both(page);
    expect(plain).toEqual(whole);
    expect(plain!.status).toBe(200);
    expect(plain!.type).toBe('application/json; charset=utf-8');
    expect(JSON.parse(plain!.body).data.accessory.activities.edges).toHaveLength(2);

    for (const body of [
      { query: PAGE, variables: { id: '00000000-0000-4000-8000-000000000000' } },
      { query: PAGE, variables: { id: 42, extra: true } },
      { query: PAGE },
      { query: '{ accessory(id: "x") { nope } }' },
      { query: '{ viewer { ' },
      { query: PAGE, variables: { id: accessoryId }, operationName: 'Other' },
      { query: PAGE, variables: { id: accessoryId }, operationName: 7 },
    ]) {
      const [a, b] = await both(body);
      expect(a, JSON.stringify(body)).toEqual(b);
    }
  });

  it('answers what the request itself gets wrong as Yoga does', async () => {
    for (const body of [
      'not json',
      '[]',
      'null',
      { query: PAGE, unexpected: 1 },
      { query: 42 },
      { query: PAGE, variables: 'x' },
      {},
      // The hash of another text: refused in Yoga's parameter hooks.
      { query: PAGE, extensions: { persistedQuery: { version: 1, sha256Hash: sha256('x') } } },
      // An unknown hash alone.
      {
        extensions: {
          persistedQuery: { version: 1, sha256Hash: sha256('{ viewer { clientId } }') },
        },
      },
    ]) {
      const [a, b] = await both(body);
      expect(a, JSON.stringify(body)).toEqual(b);
      expect(a!.status, JSON.stringify(body)).toBeGreaterThanOrEqual(200);
    }
  });

  it('answers a registered hash alone with its document', async () => {
    const persistedQuery = { version: 1, sha256Hash: sha256(PAGE) };
    const registered = await post({
      query: PAGE,
      variables: { id: accessoryId },
      extensions: { persistedQuery },
    });
    const [plain, whole] = await both({
      variables: { id: accessoryId },
      extensions: { persistedQuery },
    });
    expect(plain).toEqual(whole);
    expect(plain!.body).toBe(registered.body);
  });

  it('writes each answer to the socket in one write, head and body together', async () => {
    // Which of the two answered shows in the head: Yoga writes its own headers capitalized.
    const cases = [
      ['the plain POST', {}, '\r\ncontent-type: application/json'],
      ['Yoga whole', { accept: WHOLE }, '\r\nContent-Type: application/json'],
    ] as const;
    for (const [name, headers, head] of cases) {
      serverWrites.length = 0;
      const { body } = await post({ query: PAGE, variables: { id: accessoryId } }, headers);
      expect(serverWrites, name).toHaveLength(1);
      expect(serverWrites[0], name).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
      expect(serverWrites[0], name).toContain(head);
      expect(serverWrites[0]!.endsWith(`\r\n\r\n${body}`), name).toBe(true);
    }
    serverWrites.length = 0;
    const res = await fetch(`${t.url}/api/accessories/${accessoryId}/activities`, {
      method: 'POST',
      headers: { authorization: `Bearer ${reader}`, 'content-type': 'application/json' },
      body: JSON.stringify({ limit: 2 }),
    });
    const body = await res.text();
    expect(serverWrites, 'REST').toHaveLength(1);
    expect(serverWrites[0]!.endsWith(`\r\n\r\n${body}`), 'REST').toBe(true);
  });
});
