import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ApolloClient, HttpLink, InMemoryCache } from '@apollo/client';
import { PersistedQueryLink } from '@apollo/client/link/persisted-queries';
import { print } from 'graphql';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { loadPersistedDocuments } from '../../src/graphql/documents.ts';
import { createLogger } from '../../src/logger.ts';
import { graphql } from '../generated/index.ts';
import { backends, startApp, type TestApp } from '../helpers/app.ts';
import { seedAccessory, seedActivities } from '../helpers/fixtures.ts';

// Persisted operations (Apollo's automatic persisted queries) and trusted documents.

const FirstPage = graphql(`
  query PersistedFirstPage($id: ID!) {
    accessory(id: $id) {
      activities(first: 3) {
        edges {
          node {
            activityId
          }
        }
      }
    }
  }
`);

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
/** The one document of the operators' manifest in this suite. */
const KNOWN = 'query PersistedKnown { viewer { clientId } }';
/** The client held to known documents (GRAPHQL_TRUSTED_DOCUMENTS). */
const FIRST_PARTY = 'first-party';

describe.each(backends)('persisted operations on %s', (backend) => {
  let t: TestApp;
  let accessoryId: string;
  let seeded: string[];
  let dir: string;

  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'clipgate-persisted-'));
    const manifest = path.join(dir, 'manifest.json');
    // As GraphQL Code Generator's client preset writes it (`sha256:` keys).
    await fs.writeFile(manifest, JSON.stringify({ [`sha256:${sha256(KNOWN)}`]: KNOWN }));
    t = await startApp(backend, {
      GRAPHQL_TRUSTED_DOCUMENTS: FIRST_PARTY,
      GRAPHQL_PERSISTED_DOCUMENTS: manifest,
    });
    let ingest: string;
    ({ ingest, accessoryId } = await seedAccessory(t, 'persisted-user'));
    seeded = await seedActivities(t, ingest, accessoryId, 3);
  });
  afterAll(async () => {
    await t.close();
    await fs.rm(dir, { recursive: true, force: true });
  });

  /** A POST to /graphql as `clientId`: the status and the body. */
  const post = async (clientId: string, body: unknown) => {
    const token = await t.token(['activities_basic'], 'persisted-user', clientId);
    const res = await fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return {
      status: res.status,
      body: (await res.json()) as {
        data?: unknown;
        errors?: { message: string; extensions: { code: string; details?: unknown } }[];
      },
    };
  };
  const byHash = (hash: string) => ({
    extensions: { persistedQuery: { version: 1, sha256Hash: hash } },
  });

  it("Apollo Client's persisted-queries link: a miss, the text once, then the hash alone", async () => {
    const token = await t.token(['activities_basic'], 'persisted-user', 'apollo-app');
    const sent: { status: number; body: Record<string, unknown> }[] = [];
    const client = new ApolloClient({
      link: new PersistedQueryLink({ sha256 }).concat(
        new HttpLink({
          uri: `${t.url}/graphql`,
          headers: { authorization: `Bearer ${token}` },
          fetch: async (input, init) => {
            const res = await fetch(input, init);
            sent.push({ status: res.status, body: JSON.parse(String(init!.body)) });
            return res;
          },
        }),
      ),
      cache: new InMemoryCache(),
    });
    try {
      const ids = async () => {
        const { data } = await client.query({
          query: FirstPage,
          variables: { id: accessoryId },
          fetchPolicy: 'network-only',
        });
        return data!.accessory!.activities.edges.map((e) => e.node.activityId);
      };
      const newestFirst = [...seeded].reverse();
      expect(await ids()).toEqual(newestFirst);
      // The hash alone, unknown: 404 PERSISTED_QUERY_NOT_FOUND; the link sends it with the text
      // (the document as the link prints it, with __typename).
      expect(sent.map((s) => [s.status, 'query' in s.body])).toEqual([
        [404, false],
        [200, true],
      ]);
      const hash = sha256(String(sent[1]!.body.query));
      expect(print(FirstPage)).not.toBe(sent[1]!.body.query);
      for (const { body } of sent) {
        expect(body.extensions).toMatchObject({ persistedQuery: { version: 1, sha256Hash: hash } });
      }
      // Registered now: the hash alone is enough, and the text never goes again.
      expect(await ids()).toEqual(newestFirst);
      expect(await ids()).toEqual(newestFirst);
      expect(sent.slice(2).map((s) => [s.status, 'query' in s.body])).toEqual([
        [200, false],
        [200, false],
      ]);
    } finally {
      client.stop();
    }
  });

  it('runs a known hash from a GET, whose URL a cache can keep', async () => {
    const token = await t.token(['activities_basic'], 'persisted-user', 'get-app');
    const url = new URL(`${t.url}/graphql`);
    url.searchParams.set('extensions', JSON.stringify(byHash(sha256(KNOWN)).extensions));
    const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
    expect([res.status, await res.json()]).toEqual([
      200,
      { data: { viewer: { clientId: 'get-app' } } },
    ]);
  });

  it('answers an unknown hash PERSISTED_QUERY_NOT_FOUND, and a hash that is not the text’s 400', async () => {
    const missing = await post('any-app', byHash(sha256('query Never { viewer { accountId } }')));
    expect(missing.status).toBe(404);
    expect(missing.body.errors).toEqual([
      {
        message: 'PersistedQueryNotFound',
        extensions: { code: 'PERSISTED_QUERY_NOT_FOUND', details: {} },
      },
    ]);
    const wrong = await post('any-app', { query: KNOWN, ...byHash(sha256('something else')) });
    expect(wrong.status).toBe(400);
    expect(wrong.body.errors![0]!.extensions).toEqual({
      code: 'INVALID_ARGUMENT',
      details: { field: 'extensions.persistedQuery.sha256Hash' },
    });
    const badVersion = await post('any-app', {
      extensions: { persistedQuery: { version: 2, sha256Hash: sha256(KNOWN) } },
    });
    expect(badVersion.status).toBe(400);
    expect(badVersion.body.errors![0]!.extensions.details).toEqual({
      field: 'extensions.persistedQuery.version',
    });
  });

  it('holds a GRAPHQL_TRUSTED_DOCUMENTS client to known documents; others send any', async () => {
    const viewer = { data: { viewer: { clientId: FIRST_PARTY } } };
    // Known: by hash, and as its exact text.
    expect(await post(FIRST_PARTY, byHash(sha256(KNOWN)))).toEqual({ status: 200, body: viewer });
    expect(await post(FIRST_PARTY, { query: KNOWN })).toEqual({ status: 200, body: viewer });
    // Unknown: refused, by text (GraphiQL's way) and by hash (even one another client registered).
    const text = 'query Adhoc { viewer { accountId } }';
    const other = await post('developer', { query: text, ...byHash(sha256(text)) });
    expect(other.status).toBe(200);
    for (const body of [{ query: text }, byHash(sha256(text)), { query: `${KNOWN} ` }]) {
      const refused = await post(FIRST_PARTY, body);
      expect(refused.status).toBe(403);
      expect(refused.body.errors![0]!.extensions).toEqual({
        code: 'PERMISSION_DENIED',
        details: { field: 'query', clientId: FIRST_PARTY },
      });
      expect(refused.body.errors![0]!.message).toMatch(/may send only known documents/);
    }
    // Over SSE too: refused before the stream opens.
    const token = await t.token(['activities_basic'], 'persisted-user', FIRST_PARTY);
    const sse = await fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'text/event-stream',
      },
      body: JSON.stringify({
        query: `subscription { accessoryEvents(accessoryId: "${accessoryId}") { eventId } }`,
      }),
    });
    expect(sse.status).toBe(403);
    expect(
      ((await sse.json()) as { errors: { extensions: unknown }[] }).errors[0]!.extensions,
    ).toEqual({
      code: 'PERMISSION_DENIED',
      details: { field: 'query', clientId: FIRST_PARTY },
    });
    // The dashboard's documents come with its build (web/dist/persisted-documents.json).
    const dashboard = JSON.parse(
      await fs.readFile(
        new URL('../../web/dist/persisted-documents.json', import.meta.url),
        'utf8',
      ),
    ) as Record<string, string>;
    const [dashViewer] = Object.entries(dashboard).find(([, doc]) => doc.includes('DashViewer'))!;
    const fromDashboard = await post(FIRST_PARTY, byHash(dashViewer.replace('sha256:', '')));
    expect(fromDashboard.status).toBe(200);
    expect(fromDashboard.body.data).toMatchObject({ viewer: { clientId: FIRST_PARTY } });
  });

  it('holds the client to known documents over WebSocket too, where a hash may stand for the text', async () => {
    const token = await t.token(['activities_basic'], 'persisted-user', FIRST_PARTY);
    const client = createClient({
      url: `${t.url.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${token}` },
      retryAttempts: 0,
    });
    const run = (payload: { query: string; extensions?: Record<string, unknown> }) =>
      new Promise<unknown>((resolve) => {
        const results: unknown[] = [];
        client.subscribe(payload, {
          next: (r) => results.push(r),
          error: (e) => resolve({ error: e }),
          complete: () => resolve(results),
        });
      });
    try {
      expect(await run({ query: '', ...byHash(sha256(KNOWN)) })).toEqual([
        { data: { viewer: { clientId: FIRST_PARTY } } },
      ]);
      const refused = (await run({ query: 'query Adhoc { viewer { accountId } }' })) as {
        error: { extensions: { code: string } }[];
      };
      expect(refused.error[0]!.extensions.code).toBe('PERMISSION_DENIED');
    } finally {
      await client.dispose();
    }
  });

  it('has counted how the documents came, for the operator (after the cases above)', async () => {
    const metrics = await (await fetch(`${t.url}/metrics`)).text();
    for (const source of ['text', 'known', 'registered', 'not_found', 'refused']) {
      expect(metrics).toMatch(
        new RegExp(`^clipgate_graphql_documents_total\\{source="${source}"\\} [1-9]`, 'm'),
      );
    }
  });
});

describe('a manifest the service cannot trust', () => {
  it('stops the start, naming the file and the hash', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'clipgate-persisted-'));
    const file = path.join(dir, 'bad.json');
    const load = () => {
      const config = loadConfig({ GRAPHQL_PERSISTED_DOCUMENTS: file }).graphqlDocuments;
      return loadPersistedDocuments(config, [{ path: file }], createLogger('silent'));
    };
    try {
      const wrong = sha256('query Other { viewer { accountId } }');
      await fs.writeFile(file, JSON.stringify({ [wrong]: KNOWN }));
      expect(load).toThrow(
        new ConfigError(
          `GRAPHQL_PERSISTED_DOCUMENTS: ${file}: ${wrong} is not the SHA-256 of its document (the client preset's hashAlgorithm must be sha256)`,
        ),
      );
      const invalid = 'query Invalid { nothing }';
      await fs.writeFile(file, JSON.stringify({ [sha256(invalid)]: invalid }));
      expect(load).toThrow(/is not valid: Cannot query field "nothing"/);
      await fs.writeFile(file, '[]');
      expect(load).toThrow(/must be a JSON object of hash to document/);
      await fs.writeFile(file, JSON.stringify({ [sha256(KNOWN)]: KNOWN }));
      expect(load().size).toBe(1);
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});
