import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { base64url, exportJWK, exportSPKI, generateKeyPair, SignJWT } from 'jose';
import type { CryptoKey, JWK, JWTPayload } from 'jose';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createAuthenticator, loadDevSecret, signDevToken } from '../../src/accounts/auth.ts';
import type { Principal } from '../../src/accounts/auth.ts';
import type { AuthConfig } from '../../src/config.ts';
import { AppError } from '../../src/errors.ts';

const SECRET = 'a-test-secret-that-is-long-enough-for-hs256';
const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  vi.useRealTimers();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const logger = () => ({ info: vi.fn(), warn: vi.fn() });

const authenticator = (
  auth: AuthConfig,
  overrides: { scopePrefix?: string; dataDir?: string } = {},
) =>
  createAuthenticator({
    auth,
    scopePrefix: overrides.scopePrefix ?? 'service',
    dataDir: overrides.dataDir ?? '/nonexistent',
    logger: logger(),
  });

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'clipgate-auth-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** Starts a loopback HTTP server closed after the test; `requests` counts what it received. */
async function serve(handler: (req: IncomingMessage, body: string, res: ServerResponse) => void) {
  const state = { requests: 0 };
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      state.requests += 1;
      handler(req, body, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/`, state };
}

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
};

async function rejection(promise: Promise<unknown>): Promise<AppError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
}

async function expect401(promise: Promise<unknown>, message?: RegExp) {
  const err = await rejection(promise);
  expect(err.code).toBe('UNAUTHENTICATED');
  expect(err.status).toBe(401);
  expect(err.headers).toEqual({ 'WWW-Authenticate': 'Bearer' });
  if (message) expect(err.message).toMatch(message);
}

const now = () => Math.floor(Date.now() / 1000);
const bearer = (token: string) => `Bearer ${token}`;

function unsignedToken(claims: JWTPayload): string {
  const part = (value: object) => base64url.encode(JSON.stringify(value));
  return `${part({ alg: 'none', typ: 'JWT' })}.${part(claims)}.`;
}

describe('dev mode', () => {
  const dev: AuthConfig = { mode: 'dev', secret: SECRET };

  it('accepts a valid token and parses its scopes', async () => {
    const auth = await authenticator(dev);
    const rawScopes = ['service:ingest', 'service:zones', 'other:admin', 'service:unknown'];
    const token = await signDevToken(SECRET, { sub: 'user-1', clientId: 'cli', scopes: rawScopes });
    const principal = await auth.authenticate(bearer(token));
    expect(principal).toEqual<Principal>({
      subject: 'user-1',
      clientId: 'cli',
      scopes: new Set(['ingest', 'zones']),
      rawScopes,
      expiresAt: expect.any(Number) as number,
    });
    expect(principal.expiresAt! - now()).toBeGreaterThan(3500);
  });

  it('accepts the scp array form, the azp fallback and a lower-case scheme', async () => {
    const auth = await authenticator(dev);
    const token = await new SignJWT({
      azp: 'party',
      scp: ['service:admin', 'service:notifications'],
    })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('user-2')
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode(SECRET));
    const principal = await auth.authenticate(`bearer ${token}`);
    expect(principal.clientId).toBe('party');
    expect(principal.scopes).toEqual(new Set(['admin', 'notifications']));
  });

  it('generates the secret file with mode 0600 and reuses it', async () => {
    const dataDir = path.join(await tempDir(), 'nested', 'data');
    const first = logger();
    const auth = await createAuthenticator({
      auth: { mode: 'dev', secret: undefined },
      scopePrefix: 'service',
      dataDir,
      logger: first,
    });
    const file = path.join(dataDir, 'dev-secret');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(first.warn).toHaveBeenCalledTimes(1);
    expect(first.warn.mock.calls[0]?.[0]).toEqual({ file, generated: true });
    expect(JSON.stringify(first.warn.mock.calls)).not.toContain(await readFile(file, 'utf8'));

    const loaded = await loadDevSecret(dataDir);
    expect(loaded.generated).toBe(false);
    expect(loaded.secret).toHaveLength(43);
    const token = await signDevToken(loaded.secret, { sub: 'u', clientId: 'c', scopes: [] });
    await expect(auth.authenticate(bearer(token))).resolves.toMatchObject({ subject: 'u' });
    const again = await authenticator({ mode: 'dev', secret: undefined }, { dataDir });
    await expect(again.authenticate(bearer(token))).resolves.toMatchObject({ subject: 'u' });
  });

  it('agrees on one generated secret when several processes start at once', async () => {
    // Each finds the file whole: none reads it between its creation and its content.
    for (let round = 0; round < 10; round++) {
      const dataDir = await tempDir();
      const loaded = await Promise.all(Array.from({ length: 8 }, () => loadDevSecret(dataDir)));
      expect(loaded.filter((l) => l.generated)).toHaveLength(1);
      expect(new Set(loaded.map((l) => Buffer.from(l.secret).toString('hex'))).size).toBe(1);
    }
  });

  it('prefers a configured secret over the file', async () => {
    expect(await loadDevSecret('/nonexistent', SECRET)).toEqual({
      secret: new TextEncoder().encode(SECRET),
      generated: false,
    });
  });

  it('rejects a token signed with another secret', async () => {
    const auth = await authenticator(dev);
    const token = await signDevToken('another-secret', { sub: 'u', clientId: 'c', scopes: [] });
    await expect401(auth.authenticate(bearer(token)), /signature/);
  });

  it('rejects an expired token', async () => {
    const auth = await authenticator(dev);
    const token = await signDevToken(SECRET, {
      sub: 'u',
      clientId: 'c',
      scopes: [],
      ttlSeconds: -10,
    });
    await expect401(auth.authenticate(bearer(token)), /expired/);
  });

  it('tolerates a few seconds of clock skew', async () => {
    const auth = await authenticator(dev);
    const token = await signDevToken(SECRET, {
      sub: 'u',
      clientId: 'c',
      scopes: [],
      ttlSeconds: -2,
    });
    await expect(auth.authenticate(bearer(token))).resolves.toMatchObject({ subject: 'u' });
  });

  it('rejects alg none and other HMAC algorithms', async () => {
    const auth = await authenticator(dev);
    const unsigned = unsignedToken({ sub: 'u', client_id: 'c', exp: now() + 60 });
    await expect401(auth.authenticate(bearer(unsigned)), /algorithm/);
    const hs384 = await new SignJWT({ client_id: 'c' })
      .setProtectedHeader({ alg: 'HS384' })
      .setSubject('u')
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode(SECRET));
    await expect401(auth.authenticate(bearer(hs384)), /algorithm/);
  });

  it('rejects tokens missing client_id, sub or exp, naming the claim', async () => {
    const auth = await authenticator(dev);
    const sign = (claims: JWTPayload) =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: 'HS256' })
        .sign(new TextEncoder().encode(SECRET));
    const exp = now() + 60;
    await expect401(auth.authenticate(bearer(await sign({ sub: 'u', exp }))), /"client_id"/);
    await expect401(auth.authenticate(bearer(await sign({ client_id: 'c', exp }))), /"sub"/);
    await expect401(auth.authenticate(bearer(await sign({ sub: 'u', client_id: 'c' }))), /"exp"/);
    const badScope = await sign({ sub: 'u', client_id: 'c', exp, scope: 42 });
    await expect401(auth.authenticate(bearer(badScope)), /"scope"/);
  });

  it('rejects missing and malformed Authorization headers', async () => {
    const auth = await authenticator(dev);
    await expect401(auth.authenticate(undefined), /missing/);
    await expect401(auth.authenticate(null), /missing/);
    await expect401(auth.authenticate(''), /missing/);
    for (const header of ['Basic x', 'Bearer', 'Bearer ', 'garbage', 'Bearer a b', 'Bearer a"b']) {
      await expect401(auth.authenticate(header), /Bearer <token>/);
    }
    await expect401(auth.authenticate('Bearer garbage'), /malformed/);
  });

  it('uses a custom scope prefix', async () => {
    const auth = await authenticator(dev, { scopePrefix: 'acme' });
    const token = await signDevToken(SECRET, {
      sub: 'u',
      clientId: 'c',
      scopes: ['acme:ingest', 'service:zones', 'acme:zones:extra'],
    });
    const principal = await auth.authenticate(bearer(token));
    expect(principal.scopes).toEqual(new Set(['ingest']));
    expect(auth.scopeName('ingest')).toBe('acme:ingest');
  });
});

describe('jwks mode', () => {
  const issuer = 'https://issuer.test/';
  const audience = 'clipgate';
  let rsa: { privateKey: CryptoKey; publicKey: CryptoKey };
  let ec: { privateKey: CryptoKey; publicKey: CryptoKey };
  let stranger: { privateKey: CryptoKey; publicKey: CryptoKey };
  let jwks: JWK[];

  beforeAll(async () => {
    [rsa, ec, stranger] = await Promise.all([
      generateKeyPair('RS256', { extractable: true }),
      generateKeyPair('ES256', { extractable: true }),
      generateKeyPair('RS256', { extractable: true }),
    ]);
    jwks = [
      { ...(await exportJWK(rsa.publicKey)), kid: 'rsa-1', alg: 'RS256', use: 'sig' },
      { ...(await exportJWK(ec.publicKey)), kid: 'ec-1', alg: 'ES256', use: 'sig' },
    ];
  });

  async function setup(keys = jwks) {
    const served = { keys };
    const server = await serve((_req, _body, res) => json(res, 200, served));
    const auth = await authenticator({ mode: 'jwks', jwksUrl: server.url, issuer, audience });
    return { auth, served, server };
  }

  const sign = (
    key: CryptoKey | Uint8Array,
    header: { alg: string; kid?: string },
    claims: JWTPayload = {},
  ) =>
    new SignJWT({
      sub: 'user',
      client_id: 'cli',
      scope: 'service:zones',
      iss: issuer,
      aud: audience,
      exp: now() + 300,
      ...claims,
    })
      .setProtectedHeader(header)
      .sign(key);

  it('accepts RS256 and ES256 tokens from the key set', async () => {
    const { auth, server } = await setup();
    const rs = await sign(rsa.privateKey, { alg: 'RS256', kid: 'rsa-1' });
    const es = await sign(ec.privateKey, { alg: 'ES256', kid: 'ec-1' });
    for (const token of [rs, es]) {
      const principal = await auth.authenticate(bearer(token));
      expect(principal).toMatchObject({ subject: 'user', clientId: 'cli' });
      expect(principal.scopes).toEqual(new Set(['zones']));
    }
    expect(server.state.requests).toBe(1);
  });

  it('rejects a token signed by a key not in the set', async () => {
    const { auth } = await setup();
    const token = await sign(stranger.privateKey, { alg: 'RS256', kid: 'rsa-1' });
    await expect401(auth.authenticate(bearer(token)), /signature/);
  });

  it('rejects HS256 signed with the public key bytes (algorithm confusion)', async () => {
    const { auth } = await setup();
    const publicKeyBytes = new TextEncoder().encode(await exportSPKI(rsa.publicKey));
    const token = await sign(publicKeyBytes, { alg: 'HS256', kid: 'rsa-1' });
    await expect401(auth.authenticate(bearer(token)), /algorithm/);
  });

  it('rejects alg none', async () => {
    const { auth } = await setup();
    const token = unsignedToken({
      sub: 'user',
      client_id: 'cli',
      iss: issuer,
      aud: audience,
      exp: now() + 60,
    });
    await expect401(auth.authenticate(bearer(token)), /algorithm/);
  });

  it('rejects expired tokens and other audiences or issuers', async () => {
    const { auth } = await setup();
    const header = { alg: 'RS256', kid: 'rsa-1' };
    const expired = await sign(rsa.privateKey, header, { exp: now() - 60 });
    await expect401(auth.authenticate(bearer(expired)), /expired/);
    const otherAudience = await sign(rsa.privateKey, header, { aud: 'someone-else' });
    await expect401(auth.authenticate(bearer(otherAudience)), /"aud"/);
    const otherIssuer = await sign(rsa.privateKey, header, { iss: 'https://evil.test/' });
    await expect401(auth.authenticate(bearer(otherIssuer)), /"iss"/);
  });

  it('rejects an unknown kid', async () => {
    const { auth } = await setup();
    const token = await sign(rsa.privateKey, { alg: 'RS256', kid: 'nope' });
    await expect401(auth.authenticate(bearer(token)), /no single known signing key/);
  });

  it('picks up a rotated key for a new kid', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const { auth, served, server } = await setup();
    await auth.authenticate(bearer(await sign(rsa.privateKey, { alg: 'RS256', kid: 'rsa-1' })));
    const next = await generateKeyPair('RS256', { extractable: true });
    served.keys = [
      { ...(await exportJWK(next.publicKey)), kid: 'rsa-2', alg: 'RS256', use: 'sig' },
    ];
    vi.setSystemTime(Date.now() + 31_000); // past jose's refetch cooldown
    const token = await sign(next.privateKey, { alg: 'RS256', kid: 'rsa-2' });
    await expect(auth.authenticate(bearer(token))).resolves.toMatchObject({ subject: 'user' });
    expect(server.state.requests).toBe(2);
  });

  it('answers 503 when the key set cannot be fetched', async () => {
    const server = await serve((_req, _body, res) => json(res, 500, {}));
    const auth = await authenticator({ mode: 'jwks', jwksUrl: server.url, issuer, audience });
    const token = await sign(rsa.privateKey, { alg: 'RS256', kid: 'rsa-1' });
    expect((await rejection(auth.authenticate(bearer(token)))).code).toBe('UNAVAILABLE');
  });
});

describe('introspection mode', () => {
  const clientAuth = `Basic ${Buffer.from('gate:s3cret').toString('base64')}`;
  const active = { active: true, sub: 'user', client_id: 'cli', scope: 'service:ingest' };

  /** An RFC 7662 endpoint: `good` is active, everything else is not; answers after `delayMs`. */
  async function introspection(answer: Record<string, unknown> = active, delayMs = 0) {
    const seen: { contentType?: string; body?: string } = {};
    const server = await serve((req, body, res) => {
      seen.contentType = req.headers['content-type'];
      seen.body = body;
      if (req.method !== 'POST' || req.headers.authorization !== clientAuth) {
        return json(res, 401, { error: 'invalid_client' });
      }
      const token = new URLSearchParams(body).get('token');
      setTimeout(() => json(res, 200, token === 'good' ? answer : { active: false }), delayMs);
    });
    const config = (clientSecret = 's3cret'): AuthConfig => ({
      mode: 'introspection',
      introspectionUrl: server.url,
      clientId: 'gate',
      clientSecret,
    });
    return { server, seen, auth: await authenticator(config()), config };
  }

  it('accepts an active token', async () => {
    const exp = now() + 600;
    const { auth, seen } = await introspection({ ...active, exp });
    const principal = await auth.authenticate('Bearer good');
    expect(principal).toEqual<Principal>({
      subject: 'user',
      clientId: 'cli',
      scopes: new Set(['ingest']),
      rawScopes: ['service:ingest'],
      expiresAt: exp,
    });
    expect(seen.contentType).toMatch(/^application\/x-www-form-urlencoded/);
    expect(Object.fromEntries(new URLSearchParams(seen.body))).toEqual({
      token: 'good',
      token_type_hint: 'access_token',
    });
  });

  it('rejects an inactive token with 401', async () => {
    const { auth } = await introspection();
    await expect401(auth.authenticate('Bearer bad'), /not active/);
  });

  it('caches positive answers until the token expires', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const { auth, server } = await introspection({ ...active, exp: now() + 60 });
    await auth.authenticate('Bearer good');
    await auth.authenticate('Bearer good');
    expect(server.state.requests).toBe(1);
    vi.setSystemTime(Date.now() + 61_000);
    await auth.authenticate('Bearer good');
    expect(server.state.requests).toBe(2);
  });

  it('caches an answer with exp for 5 minutes at most, and takes it as it is', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const { auth, server } = await introspection({ ...active, exp: now() + 3600 });
    const principal = await auth.authenticate('Bearer good');
    expect(principal.recheckAt).toBeUndefined();
    vi.setSystemTime(Date.now() + 299_000);
    await auth.authenticate('Bearer good');
    expect(server.state.requests).toBe(1);
    vi.setSystemTime(Date.now() + 2000);
    await auth.authenticate('Bearer good');
    expect(server.state.requests).toBe(2);
  });

  it('never trusts an answer without exp past the cache period, live connections included', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const { auth, server } = await introspection(active); // no exp
    const first = await auth.authenticate('Bearer good');
    expect(first.expiresAt).toBeUndefined();
    // When a live connection of it ends (src/graphql/live.ts, onTokenExpiry).
    expect(first.recheckAt! - now()).toBeGreaterThanOrEqual(299);
    expect(first.recheckAt! - now()).toBeLessThanOrEqual(300);
    vi.setSystemTime(Date.now() + 290_000);
    expect(await auth.authenticate('Bearer good')).toBe(first);
    expect(server.state.requests).toBe(1);
    vi.setSystemTime(Date.now() + 11_000);
    const again = await auth.authenticate('Bearer good');
    expect(server.state.requests).toBe(2);
    expect(again.recheckAt! - now()).toBeGreaterThanOrEqual(299);
  });

  it('takes a shorter cache period from the configuration', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const { server, config } = await introspection(active);
    const auth = await authenticator({ ...config(), cacheMs: 10_000 } as AuthConfig);
    expect((await auth.authenticate('Bearer good')).recheckAt! - now()).toBeLessThanOrEqual(10);
    vi.setSystemTime(Date.now() + 10_001);
    await auth.authenticate('Bearer good');
    expect(server.state.requests).toBe(2);
  });

  it('refuses an answer that says active past its exp', async () => {
    const { auth, server } = await introspection({ ...active, exp: now() - 60 });
    await expect401(auth.authenticate('Bearer good'), /expired/);
    await expect401(auth.authenticate('Bearer good'), /expired/);
    expect(server.state.requests).toBe(2);
  });

  it('does not cache negative answers', async () => {
    const { auth, server } = await introspection();
    await expect401(auth.authenticate('Bearer bad'));
    await expect401(auth.authenticate('Bearer bad'));
    expect(server.state.requests).toBe(2);
  });

  it('shares one request between concurrent lookups of a token', async () => {
    const { auth, server } = await introspection(active, 50);
    const principals = await Promise.all(
      Array.from({ length: 5 }, () => auth.authenticate('Bearer good')),
    );
    expect(principals.map((p) => p.subject)).toEqual(Array(5).fill('user'));
    expect(server.state.requests).toBe(1);
  });

  it('answers 503 within the budget when the endpoint hangs', async () => {
    const { auth } = await introspection(active, 60_000);
    const started = Date.now();
    const err = await rejection(auth.authenticate('Bearer good'));
    expect(err.code).toBe('UNAVAILABLE');
    expect(err.status).toBe(503);
    expect(Date.now() - started).toBeLessThan(4500);
  });

  it('answers 503 when the endpoint fails or refuses the client credentials', async () => {
    const failing = await serve((_req, _body, res) => json(res, 500, { error: 'boom' }));
    const auth = await authenticator({
      mode: 'introspection',
      introspectionUrl: failing.url,
      clientId: undefined,
      clientSecret: undefined,
    });
    expect((await rejection(auth.authenticate('Bearer good'))).code).toBe('UNAVAILABLE');

    const { config } = await introspection();
    const wrongCredentials = await authenticator(config('wrong'));
    expect((await rejection(wrongCredentials.authenticate('Bearer good'))).code).toBe(
      'UNAVAILABLE',
    );
  });
});

describe('requireScope', () => {
  async function principalWith(scopes: string[]) {
    const auth = await authenticator({ mode: 'dev', secret: SECRET });
    const token = await signDevToken(SECRET, { sub: 'u', clientId: 'c', scopes });
    return { auth, principal: await auth.authenticate(bearer(token)) };
  }

  it('passes when any of the scopes is held', async () => {
    const { auth, principal } = await principalWith(['service:ingest']);
    expect(() => auth.requireScope(principal, 'ingest')).not.toThrow();
    expect(() => auth.requireScope(principal, 'admin', 'ingest')).not.toThrow();
  });

  it('throws 403 naming the first scope with the exact WWW-Authenticate header', async () => {
    const { auth, principal } = await principalWith(['service:ingest', 'other:admin']);
    let err: unknown;
    try {
      auth.requireScope(principal, 'admin', 'zones');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({
      code: 'PERMISSION_DENIED',
      status: 403,
      details: { scope: 'service:admin' },
      headers: { 'WWW-Authenticate': 'Bearer error="insufficient_scope", scope="service:admin"' },
    });
  });
});

describe('scripts/token.ts', () => {
  const execute = promisify(execFile);
  /**
   * The script in one node process with tsx's loader: what `npm run token` runs, without the two
   * processes more that npx and tsx's CLI start.
   */
  const script = (args: string[], options: { env: NodeJS.ProcessEnv }) =>
    execute(process.execPath, ['--import', 'tsx', 'scripts/token.ts', ...args], options);

  async function token(dataDir: string, args: string[]) {
    const env = {
      ...process.env,
      DATA_DIR: dataDir,
      SCOPE_PREFIX: '',
      AUTH_DEV_SECRET: '',
      AUTH_JWKS_URL: '',
      AUTH_INTROSPECTION_URL: '',
    };
    const { stdout } = await script(args, { env });
    expect(stdout).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+\n$/);
    return stdout.trim();
  }

  it('prints a token that authenticates', async () => {
    const dataDir = await tempDir();
    const custom = await token(dataDir, [
      '--sub',
      'S',
      '--client',
      'C',
      '--scope',
      'service:zones service:admin',
      '--ttl',
      '120',
    ]);
    const defaults = await token(dataDir, []);
    const auth = await authenticator({ mode: 'dev', secret: undefined }, { dataDir });

    const principal = await auth.authenticate(bearer(custom));
    expect(principal).toMatchObject({ subject: 'S', clientId: 'C' });
    expect(principal.scopes).toEqual(new Set(['zones', 'admin']));
    expect(principal.expiresAt! - now()).toBeLessThanOrEqual(120);

    const all = await auth.authenticate(bearer(defaults));
    expect(all).toMatchObject({ subject: 'dev-user', clientId: 'dev-client' });
    expect(all.scopes.size).toBe(6);
    expect(all.expiresAt! - now()).toBeGreaterThan(86000);
  });

  it('signs with AUTH_DEV_SECRET in production, and refuses without it or with a short one', async () => {
    const dataDir = await tempDir();
    const env = (secret: string) => ({
      ...process.env,
      NODE_ENV: 'production',
      DATA_DIR: dataDir,
      AUTH_DEV_SECRET: secret,
      AUTH_JWKS_URL: '',
      AUTH_INTROSPECTION_URL: '',
    });
    const signed = await script(['--sub', 'P'], { env: env(SECRET) });
    const auth = await authenticator({ mode: 'dev', secret: SECRET });
    await expect(auth.authenticate(bearer(signed.stdout.trim()))).resolves.toMatchObject({
      subject: 'P',
    });
    for (const [secret, message] of [
      ['', /^AUTH_DEV_SECRET must be set/],
      ['x', /^AUTH_DEV_SECRET must be at least 32 bytes/],
    ] as const) {
      const failed = await script([], { env: env(secret) }).then(
        () => undefined,
        (err: { code: number; stdout: string; stderr: string }) => err,
      );
      expect(failed?.code).toBe(1);
      expect(failed?.stdout).toBe('');
      expect(failed?.stderr).toMatch(message);
    }
  });
});
