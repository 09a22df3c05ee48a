/**
 * docs/api.md's Errors table against the service: it lists exactly the codes the service can
 * answer (src/errors.ts) with their statuses, and every one of them is answered by some request.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorStatus } from '../../src/errors.ts';
import { backends, startApp, type TestApp } from '../helpers/app.ts';
import { gql, rest } from '../helpers/client.ts';
import { CreateActivity, seedAccessory } from '../helpers/fixtures.ts';

const doc = await fs.readFile(new URL('../../docs/api.md', import.meta.url), 'utf8');

/** The rows of the table under `## Errors`: code and status. */
function documentedErrors(): Record<string, number> {
  const section = doc.slice(
    doc.indexOf('\n## Errors\n'),
    doc.indexOf('\n## ', doc.indexOf('\n## Errors\n') + 1),
  );
  const rows = [...section.matchAll(/^\| `([A-Z_]+)`\s*\| (\d{3})\s*\|/gm)];
  return Object.fromEntries(rows.map(([, code, status]) => [code!, Number(status)]));
}

describe('the Errors table of docs/api.md', () => {
  it('lists every code the service answers with, with its status, and no other', () => {
    expect(documentedErrors()).toEqual(errorStatus);
  });
});

describe.each(backends)('every documented error code, answered on %s', (backend) => {
  let t: TestApp;
  let accessoryId: string;
  let ingest: string;
  /** Each code answered so far, with the HTTP status it came with. */
  const answered: Record<string, number> = {};
  let clients = 0;
  /** A token of its own OAuth client: one request budget per case (RATE_LIMIT_BURST is 3 here). */
  const token = (scopes: string[]) => t.token(scopes, 'user-1', `client-${++clients}`);

  beforeAll(async () => {
    t = await startApp(backend, {
      RATE_LIMIT_RPS: '1',
      RATE_LIMIT_BURST: '3',
      LIVE_MAX_CONNECTIONS: '0',
    });
    ({ accessoryId, ingest } = await seedAccessory(t));
  });
  afterAll(() => t.close());

  const restError = async (
    path: string,
    init: RequestInit & { token?: string } = {},
  ): Promise<string> => {
    const res = await fetch(t.url + path, {
      ...init,
      headers: {
        ...(init.token && { authorization: `Bearer ${init.token}` }),
        ...(init.headers as Record<string, string>),
      },
    });
    const { error } = (await res.json()) as { error: { code: string } };
    answered[error.code] = res.status;
    return error.code;
  };
  const list = `/api/accessories/{id}/activities`;
  const listPath = () => list.replace('{id}', accessoryId);
  const json = { 'content-type': 'application/json' };

  it('INVALID_ARGUMENT, UNAUTHENTICATED, PERMISSION_DENIED, NOT_FOUND, METHOD_NOT_ALLOWED', async () => {
    const reader = await token(['activities_basic']);
    const bad = JSON.stringify({ filter: 'relevanceLevel >>' });
    expect(
      await restError(listPath(), { method: 'POST', token: reader, headers: json, body: bad }),
    ).toBe('INVALID_ARGUMENT');
    expect(await restError(listPath(), { method: 'POST' })).toBe('UNAUTHENTICATED');
    const notifier = await token(['notifications']);
    expect(await restError(listPath(), { method: 'POST', token: notifier })).toBe(
      'PERMISSION_DENIED',
    );
    const unknown = list.replace('{id}', crypto.randomUUID());
    expect(await restError(unknown, { method: 'POST', token: reader })).toBe('NOT_FOUND');
    expect(await restError(listPath(), { method: 'DELETE', token: reader })).toBe(
      'METHOD_NOT_ALLOWED',
    );
  });

  it('CONFLICT, PAYLOAD_TOO_LARGE, UNSUPPORTED_MEDIA_TYPE, RATE_LIMITED', async () => {
    const now = Date.now();
    const create = (at: number) =>
      gql(t.url, ingest, CreateActivity, {
        accessoryId,
        input: { createdAt: new Date(at).toISOString() },
      });
    expect((await create(now)).errors).toBeUndefined();
    // Not newer than the newest activity: the GraphQL error's code.
    const older = await create(now - 3_600_000);
    answered[older.errors![0]!.extensions!.code!] = errorStatus.CONFLICT;
    expect(older.errors![0]!.extensions!.code).toBe('CONFLICT');

    const reader = await token(['activities_basic']);
    const big = JSON.stringify({ filter: 'x'.repeat(70 * 1024) });
    expect(
      await restError(listPath(), { method: 'POST', token: reader, headers: json, body: big }),
    ).toBe('PAYLOAD_TOO_LARGE');
    const text = { 'content-type': 'text/plain' };
    expect(
      await restError(listPath(), { method: 'POST', token: reader, headers: text, body: '{}' }),
    ).toBe('UNSUPPORTED_MEDIA_TYPE');
    const limited = await token(['activities_basic']);
    for (let i = 0; i < 3; i++) {
      expect((await rest(t.url, limited, 'GET', '/api/accessories')).status).toBe(200);
    }
    expect(await restError('/api/accessories', { token: limited })).toBe('RATE_LIMITED');
  });

  it('UNAVAILABLE (a live stream on an instance without a slot), INTERNAL (a fault of the service)', async () => {
    const reader = await token(['activities_basic']);
    const res = await fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: { ...json, authorization: `Bearer ${reader}`, accept: 'text/event-stream' },
      body: JSON.stringify({
        query: `subscription { accessoryEvents(accessoryId: "${accessoryId}") { eventId } }`,
      }),
    });
    const { errors } = (await res.json()) as { errors: { extensions: { code: string } }[] };
    expect([res.status, res.headers.get('retry-after')]).toEqual([503, '5']);
    answered[errors[0]!.extensions.code] = res.status;

    // A table the service needs is gone (for good: the app closes next): a fault of its own,
    // answered without a detail of it.
    await t.app.services.db.pool.query('ALTER TABLE accessories RENAME TO accessories_gone');
    const fault = await fetch(`${t.url}/api/accessories`, {
      headers: { authorization: `Bearer ${reader}` },
    });
    const body = (await fault.json()) as { error: { code: string; message: string } };
    expect(body).toEqual({ error: { code: 'INTERNAL', message: 'internal error', details: {} } });
    answered[body.error.code] = fault.status;
  });

  it('PERSISTED_QUERY_NOT_FOUND (a GraphQL document by a hash the service does not know)', async () => {
    const reader = await token(['activities_basic']);
    const sha256Hash = createHash('sha256').update('query Unknown { viewer { accountId } }');
    const res = await fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: { ...json, authorization: `Bearer ${reader}` },
      body: JSON.stringify({
        extensions: { persistedQuery: { version: 1, sha256Hash: sha256Hash.digest('hex') } },
      }),
    });
    const { errors } = (await res.json()) as { errors: { extensions: { code: string } }[] };
    expect(errors[0]!.extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');
    answered[errors[0]!.extensions.code] = res.status;
  });

  it('has answered each code of the table, with its status', () => {
    expect(answered).toEqual(documentedErrors());
  });
});
