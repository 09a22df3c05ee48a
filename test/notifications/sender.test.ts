import { createHmac } from 'node:crypto';
import { lookup as dnsLookup } from 'node:dns';
import type { LookupAddress } from 'node:dns';
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { verifyNotification } from '../../src/notifications/receiver.ts';
import { createSender } from '../../src/notifications/sender.ts';
import type { Sender } from '../../src/notifications/sender.ts';

const authKey = 'receiver-secret-0123456789';
const webhookId = 'evt_0001';
const body = Buffer.from(
  JSON.stringify({
    accountId: 'acc_1',
    eventType: 'motion',
    eventData: { zone: 'Tür' },
    userData: { a: 1 },
  }),
);

interface Received {
  method: string | undefined;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

const servers: Server[] = [];
const senders: Sender[] = [];

afterEach(async () => {
  await Promise.all(senders.splice(0).map((sender) => sender.close()));
  await Promise.all(
    servers.splice(0).map((server) => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    }),
  );
});

/** A loopback receiver; `respond` is called with the complete request (or never answers if it does nothing). */
async function startReceiver(respond: (res: ServerResponse, request: Received) => void) {
  const received: Received[] = [];
  let connections = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = { method: req.method, headers: req.headers, body: Buffer.concat(chunks) };
      received.push(request);
      respond(res, request);
    });
  });
  server.on('connection', () => connections++);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks/clipgate?x=1`,
    port,
    received,
    connections: () => connections,
  };
}

function sender(options: Partial<Parameters<typeof createSender>[0]> = {}): Sender {
  const created = createSender({ timeoutMs: 2000, allowPrivateNetworks: true, ...options });
  senders.push(created);
  return created;
}

/** A lookup resolving the given names and delegating the rest to the system resolver. */
function fakeLookup(names: Record<string, string[] | Error | 'hang'>): typeof dnsLookup {
  return ((
    hostname: string,
    options: object,
    callback: (err: Error | null, addresses?: LookupAddress[]) => void,
  ) => {
    const entry = names[hostname];
    if (entry === undefined) return dnsLookup(hostname, { ...options, all: true }, callback);
    if (entry === 'hang') return;
    if (entry instanceof Error) return callback(entry);
    callback(
      null,
      entry.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
    );
  }) as typeof dnsLookup;
}

const deliver = (target: Sender, url: string) =>
  target.send({ url, body, keys: { authKey }, webhookId });

describe('sender', () => {
  it('delivers the exact body with all headers, verifiable in both schemes', async () => {
    const receiver = await startReceiver((res, { body: raw, headers }) => {
      res.statusCode = verifyNotification(raw, headers, authKey).ok ? 204 : 401;
      res.end();
    });
    const before = Math.floor(Date.now() / 1000);
    const result = await deliver(sender({ userAgent: 'clipgate-webhooks/test' }), receiver.url);

    expect(result).toMatchObject({
      outcome: 'accepted',
      status: 204,
      error: null,
      errorMessage: null,
    });
    expect(result.responseSnippet).toBe('');
    const [request] = receiver.received;
    expect(receiver.received).toHaveLength(1);
    expect(request?.method).toBe('POST');
    expect(request?.body.equals(body)).toBe(true);
    const headers = request?.headers ?? {};
    expect(headers).toMatchObject({
      'content-type': 'application/json',
      'content-length': String(body.byteLength),
      'user-agent': 'clipgate-webhooks/test',
      'webhook-id': webhookId,
    });
    const timestamp = Number(headers['webhook-timestamp']);
    expect(timestamp).toBeGreaterThanOrEqual(before);
    expect(timestamp).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
    const hmac = (data: Buffer) => createHmac('sha256', authKey).update(data).digest('base64');
    expect(headers['x-vendor-verify']).toBe(hmac(body));
    expect(headers['webhook-signature']).toBe(
      `v1,${hmac(Buffer.concat([Buffer.from(`${webhookId}.${timestamp}.`), body]))}`,
    );
    const { 'x-vendor-verify': vendor, ...standard } = headers;
    expect(verifyNotification(body, standard, authKey)).toEqual({
      ok: true,
      scheme: 'standard',
      webhookId,
      timestamp,
    });
    const legacy = { allowLegacyVendorHeader: true };
    expect(verifyNotification(body, { 'x-vendor-verify': vendor }, authKey, legacy)).toEqual({
      ok: true,
      scheme: 'vendor',
    });
  });

  it('maps 200 to accepted with the response body, and 410 to gone', async () => {
    const ok = await startReceiver((res) => res.end('thanks'));
    const gone = await startReceiver((res) => {
      res.statusCode = 410;
      res.end('unsubscribed');
    });
    const target = sender();
    expect(await deliver(target, ok.url)).toMatchObject({
      outcome: 'accepted',
      status: 200,
      error: null,
      responseSnippet: 'thanks',
    });
    expect(await deliver(target, gone.url)).toMatchObject({
      outcome: 'gone',
      status: 410,
      error: null,
      responseSnippet: 'unsubscribed',
    });
  });

  it('fails on 500 and keeps only the first 2 KiB of the response', async () => {
    const receiver = await startReceiver((res) => {
      res.statusCode = 500;
      res.end('x'.repeat(10 * 1024));
    });
    const result = await deliver(sender(), receiver.url);
    expect(result).toMatchObject({
      outcome: 'failed',
      status: 500,
      error: null,
      errorMessage: null,
    });
    expect(result.responseSnippet).toBe('x'.repeat(2048));
  });

  it('cuts a response body that never ends after the snippet bound', async () => {
    const receiver = await startReceiver((res) => {
      res.statusCode = 503;
      res.write('partial');
    });
    const result = await deliver(sender(), receiver.url);
    expect(result).toMatchObject({ outcome: 'failed', status: 503, responseSnippet: 'partial' });
    expect(result.durationMs).toBeLessThan(1500);
  });

  it('never follows a redirect', async () => {
    const elsewhere = await startReceiver((res) => res.end());
    const receiver = await startReceiver((res) => {
      res.writeHead(302, { Location: elsewhere.url }).end();
    });
    const result = await deliver(sender(), receiver.url);
    expect(result).toMatchObject({ outcome: 'failed', status: 302, error: null });
    expect(elsewhere.received).toHaveLength(0);
    expect(elsewhere.connections()).toBe(0);
  });

  it('cuts a receiver that never answers at the budget', async () => {
    const receiver = await startReceiver(() => {});
    const result = await deliver(sender({ timeoutMs: 300 }), receiver.url);
    expect(result).toMatchObject({ outcome: 'failed', status: null, error: 'timeout' });
    expect(result.durationMs).toBeGreaterThanOrEqual(290);
    expect(result.durationMs).toBeLessThan(300 + 150);
    expect(receiver.received).toHaveLength(1);
  });

  it('includes the DNS lookup in the budget', async () => {
    const lookup = fakeLookup({ 'slow-dns.test': 'hang' });
    const result = await deliver(sender({ timeoutMs: 300, lookup }), 'http://slow-dns.test/hook');
    expect(result).toMatchObject({ outcome: 'failed', error: 'timeout' });
    expect(result.durationMs).toBeLessThan(300 + 150);
  });

  it('reports a refused connection as connect', async () => {
    const closed = await startReceiver(() => {});
    await new Promise((resolve) => servers.pop()?.close(resolve));
    const result = await deliver(sender(), closed.url);
    expect(result).toMatchObject({ outcome: 'failed', status: null, error: 'connect' });
    expect(result.errorMessage).toContain('ECONNREFUSED');
  });

  it('reports an unknown host as dns', async () => {
    const notFound = Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.test'), {
      code: 'ENOTFOUND',
      syscall: 'getaddrinfo',
    });
    const lookup = fakeLookup({ 'nowhere.test': notFound });
    for (const allowPrivateNetworks of [true, false]) {
      const result = await deliver(
        sender({ lookup, allowPrivateNetworks }),
        'https://nowhere.test/',
      );
      expect(result).toMatchObject({
        outcome: 'failed',
        error: 'dns',
        errorMessage: 'getaddrinfo ENOTFOUND nowhere.test',
      });
    }
  });

  describe('without allowPrivateNetworks', () => {
    it.each([
      ['a loopback IP literal', '127.0.0.1', '127.0.0.1', 'loopback'],
      // The URL parser writes it in hex.
      ['an IPv4-mapped IP literal', '[::ffff:127.0.0.1]', '::ffff:7f00:1', 'ipv4-mapped loopback'],
      ['localhost', 'localhost', /^(127\.0\.0\.1|::1)$/, 'loopback'],
      ['a name resolving to loopback', 'rebind.test', '127.0.0.1', 'loopback'],
      ['a name resolving to public and private addresses', 'mixed.test', '10.0.0.1', 'private'],
    ])('refuses %s and the receiver gets nothing', async (_, host, address, range) => {
      const receiver = await startReceiver((res) => res.end());
      const lookup = fakeLookup({
        'rebind.test': ['127.0.0.1'],
        'mixed.test': ['8.8.8.8', '10.0.0.1'],
      });
      const debug = vi.fn();
      const result = await deliver(
        sender({ allowPrivateNetworks: false, lookup, logger: { debug } }),
        `http://${host}:${receiver.port}/hook`,
      );
      expect(result).toMatchObject({ outcome: 'failed', status: null, error: 'blocked_address' });
      // The delivery log a client reads: no word of how the name resolved.
      expect(result.errorMessage).toBe('blocked: non-public address');
      expect(receiver.connections()).toBe(0);
      // The operator's log, at debug level: the detail.
      expect(debug).toHaveBeenCalledWith(
        {
          hostname: host.startsWith('[') ? address : host,
          address: typeof address === 'string' ? address : expect.stringMatching(address),
          range,
        },
        'webhook receiver blocked: non-public address',
      );
    });
  });

  it('is not held up by a receiver that hangs', async () => {
    const hanging = await startReceiver(() => {});
    const healthy = await startReceiver((res) => res.end());
    const target = sender({ timeoutMs: 3000, connectionsPerOrigin: 4 });
    let cut = 0;
    const stuck = Array.from({ length: 6 }, () =>
      deliver(target, hanging.url).finally(() => cut++),
    );

    const results = await Promise.all(
      Array.from({ length: 20 }, () => deliver(target, healthy.url)),
    );
    // All delivered while the hanging ones still wait for their budget, not after it.
    expect(cut).toBe(0);
    expect(results.map((result) => result.outcome)).toEqual(Array(20).fill('accepted'));
    expect(healthy.received).toHaveLength(20);

    // The hanging receiver has its 4 connections; the other two wait for one of them.
    await vi.waitFor(() => expect(hanging.received).toHaveLength(4));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(hanging.received).toHaveLength(4);
    expect((await Promise.all(stuck)).map((result) => result.error)).toEqual(
      Array(6).fill('timeout'),
    );
  });
});
