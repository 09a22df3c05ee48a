/**
 * Live connections end when their token may no longer be taken as it is: at its exp, and for an
 * introspected token without exp at the end of the answer's cache period, so that the client
 * reconnects and the token is asked about again.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.ts';
import { seedAccessory } from '../helpers/fixtures.ts';
import {
  accessoryEvent,
  AccessoryEvents,
  sse,
  subscribe,
  waitFor,
  wsClient,
  type WsClient,
} from './live-helpers.ts';

/** An opaque token the stub introspection endpoint reads back: base64url of its answer. */
const opaque = (answer: Record<string, unknown>) =>
  Buffer.from(JSON.stringify(answer)).toString('base64url');

describe('live connections of introspected tokens', () => {
  let t: TestApp;
  let idp: Server;
  const asked: string[] = [];
  const clients: WsClient[] = [];
  let accessoryId: string;
  let reader: string;

  beforeAll(async () => {
    // RFC 7662 as a stub: every token it is asked about is active, with the claims it carries.
    idp = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        const token = new URLSearchParams(body).get('token') ?? '';
        asked.push(token);
        const claims = JSON.parse(Buffer.from(token, 'base64url').toString()) as object;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ active: true, ...claims }));
      });
    });
    await new Promise<void>((resolve) => idp.listen(0, '127.0.0.1', resolve));
    const { port } = idp.address() as AddressInfo;
    t = await startApp('pglite', { AUTH_INTROSPECTION_URL: `http://127.0.0.1:${port}/` }, (c) => {
      // The cache period (5 minutes by default), short enough to wait for.
      if (c.auth.mode === 'introspection') c.auth.cacheMs = 2000;
    });
    t.token = (scopes, subject = 'user-1', clientId = 'client-1') =>
      Promise.resolve(
        opaque({
          sub: subject,
          client_id: clientId,
          scope: scopes.map((s) => `service:${s}`).join(' '),
        }),
      );
    ({ accessoryId } = await seedAccessory(t, 'intro-user'));
    reader = await t.token(['activities_basic'], 'intro-user'); // no exp
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.dispose()));
    await t?.close();
    await new Promise((resolve) => idp?.close(resolve));
  });

  it('ends a WebSocket of a token without exp after the cache period (1013), to be checked again', async () => {
    const c = wsClient(t.url, `Bearer ${reader}`);
    clients.push(c);
    subscribe(c.client, AccessoryEvents, { accessoryId }, accessoryEvent);
    await waitFor(() => t.app.services.live.activeSubscriptions === 1, 'the subscription');
    const before = asked.length;
    const started = Date.now();
    const closed = await c.closed;
    expect(closed).toEqual({
      code: 1013,
      reason: 'Try again later: the token must be checked again; reconnect',
    });
    expect(Date.now() - started).toBeLessThan(5000);
    await waitFor(() => t.app.services.live.activeSubscriptions === 0, 'the subscription to end');

    // Reconnecting with the same token asks the identity provider again.
    const again = wsClient(t.url, `Bearer ${reader}`);
    clients.push(again);
    subscribe(again.client, AccessoryEvents, { accessoryId }, accessoryEvent);
    await waitFor(() => t.app.services.live.activeSubscriptions === 1, 'the new subscription');
    expect(asked.length).toBeGreaterThan(before);
    expect((await again.closed).code).toBe(1013);
  });

  it('ends an SSE stream of a token without exp with UNAVAILABLE after the cache period', async () => {
    const stream = await sse(t.url, reader, AccessoryEvents, { accessoryId });
    expect(stream.status).toBe(200);
    await stream.done;
    const last = stream.events.filter((e) => e.event === 'next').at(-1)!;
    expect(JSON.parse(last.data)).toMatchObject({
      errors: [
        {
          message: expect.stringMatching(/checked again/),
          extensions: { code: 'UNAVAILABLE' },
        },
      ],
    });
    expect(stream.events.at(-1)!.event).toBe('complete');
  });

  it('ends a connection of a token with exp at its exp (4403), not at the cache period', async () => {
    const exp = Math.floor(Date.now() / 1000) + 4;
    const token = opaque({
      sub: 'intro-user',
      client_id: 'client-1',
      scope: 'service:activities_basic',
      exp,
    });
    const c = wsClient(t.url, `Bearer ${token}`);
    clients.push(c);
    subscribe(c.client, AccessoryEvents, { accessoryId }, accessoryEvent);
    const closed = await c.closed;
    expect(closed).toMatchObject({ code: 4403, reason: 'Forbidden: the token has expired' });
    expect(Date.now()).toBeGreaterThanOrEqual(exp * 1000 - 50);
  });
});
