import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { createRemoteJWKSet, errors, jwtVerify, SignJWT } from 'jose';
import type { JWSAlgorithm, JWTVerifyGetKey, KeyInput } from 'jose';
import { TtlCache } from '../cache.ts';
import type { AuthConfig } from '../config.ts';
import { AppError, permissionDenied, unauthenticated } from '../errors.ts';
import { findUnstorableString } from '../schemas.ts';
import { loadOrCreateSecretFile } from '../secret-file.ts';
import { fullScopeName, heldScopes } from './scopes.ts';
import type { ScopeName } from './scopes.ts';

export type { ScopeName } from './scopes.ts';

export interface Principal {
  subject: string;
  clientId: string;
  /** Short scope names held, with the configured prefix stripped; scopes with another prefix are ignored. */
  scopes: ReadonlySet<ScopeName>;
  /** The raw scope strings of the token, as given. */
  rawScopes: readonly string[];
  /** Expiry, unix seconds (undefined if the token has none, e.g. an introspection answer without exp). */
  expiresAt: number | undefined;
  /**
   * Without `expiresAt` (an introspection answer without exp): when the token must be asked
   * about again, unix seconds, the end of the answer's cache period. It is never trusted for
   * longer: a live connection ends then, and the client reconnects to be checked again.
   */
  recheckAt?: number;
}

export interface Authenticator {
  /** Validates an Authorization header value ("Bearer ..."); throws AppError UNAUTHENTICATED / UNAVAILABLE. */
  authenticate(authorization: string | undefined | null): Promise<Principal>;
  /** Throws PERMISSION_DENIED naming the first scope unless the principal holds at least one of them. */
  requireScope(principal: Principal, ...anyOf: ScopeName[]): void;
  /** The full scope string for a short name, e.g. "service:ingest". */
  scopeName(name: ScopeName): string;
}

interface Logger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
}

const CLOCK_TOLERANCE_SECONDS = 5;
const UPSTREAM_TIMEOUT_MS = 3000;
/**
 * How long a positive introspection answer is taken without asking again: never past the token's
 * exp, and for an answer without exp this long at most (`recheckAt`), live connections included.
 */
export const INTROSPECTION_CACHE_MS = 5 * 60 * 1000;
const INTROSPECTION_CACHE_ENTRIES = 10_000;
const VERIFIED_CACHE_MS = 5 * 60 * 1000;
const VERIFIED_CACHE_ENTRIES = 10_000;
const ASYMMETRIC_ALGORITHMS: JWSAlgorithm[] = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
];

const encoder = new TextEncoder();
const unavailable = (message: string) => new AppError('UNAVAILABLE', message);

/** Extracts the token of an RFC 6750 `Bearer` Authorization header value. */
function bearerToken(authorization: string | undefined | null): string {
  if (!authorization) throw unauthenticated('the Authorization header is missing');
  const match = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(authorization);
  if (!match?.[1]) throw unauthenticated('the Authorization header must be "Bearer <token>"');
  return match[1];
}

function rawScopesOf(claims: Record<string, unknown>): string[] {
  const value = claims.scope ?? claims.scp;
  if (value === undefined) return [];
  if (typeof value === 'string') return value.split(' ').filter(Boolean);
  if (Array.isArray(value) && value.every((scope) => typeof scope === 'string')) return value;
  throw unauthenticated('the token\'s "scope" claim is malformed');
}

function principalOf(claims: Record<string, unknown>, scopePrefix: string): Principal {
  const { sub, exp } = claims;
  const clientId = claims.client_id ?? claims.azp;
  if (typeof sub !== 'string' || !sub) throw unauthenticated('the token has no "sub" claim');
  if (typeof clientId !== 'string' || !clientId) {
    throw unauthenticated('the token has no "client_id" (or "azp") claim');
  }
  // Both are stored (accounts, registrations): one the database cannot hold names no one.
  for (const [claim, value] of [
    ['sub', sub],
    ['client_id', clientId],
  ]) {
    const unstorable = findUnstorableString(value, claim);
    if (unstorable) throw unauthenticated(`the token's ${unstorable.message}`);
  }
  const rawScopes = rawScopesOf(claims);
  return {
    subject: sub,
    clientId,
    scopes: heldScopes(rawScopes, scopePrefix),
    rawScopes,
    expiresAt: typeof exp === 'number' ? exp : undefined,
  };
}

/** Maps a JWT validation failure to a 401 that says what is wrong (AppErrors pass through). */
function jwtError(err: unknown): unknown {
  if (err instanceof errors.JWTExpired) return unauthenticated('the token has expired');
  if (err instanceof errors.JWTClaimValidationFailed) {
    return unauthenticated(
      err.reason === 'missing'
        ? `the token has no "${err.claim}" claim`
        : `the token's "${err.claim}" claim is not accepted`,
    );
  }
  if (err instanceof errors.JOSEAlgNotAllowed) {
    return unauthenticated("the token's signing algorithm is not accepted");
  }
  if (err instanceof errors.JWSSignatureVerificationFailed) {
    return unauthenticated('the token signature is invalid');
  }
  if (err instanceof errors.JWKSNoMatchingKey || err instanceof errors.JWKSMultipleMatchingKeys) {
    return unauthenticated('no single known signing key matches the token');
  }
  if (err instanceof errors.JOSEError) return unauthenticated('the token is malformed');
  return err;
}

function jwtValidator(
  key: KeyInput | JWTVerifyGetKey,
  options: { algorithms: JWSAlgorithm[]; issuer?: string; audience?: string },
) {
  return async (token: string): Promise<Record<string, unknown>> => {
    try {
      const { payload } = await jwtVerify(token, key, {
        ...options,
        requiredClaims: ['exp'],
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
      });
      return payload;
    } catch (err) {
      throw jwtError(err);
    }
  };
}

function jwksKey(jwksUrl: string, logger: Logger): JWTVerifyGetKey {
  const jwks = createRemoteJWKSet(new URL(jwksUrl), { timeoutDuration: UPSTREAM_TIMEOUT_MS });
  return async (header, token) => {
    try {
      return await jwks(header, token);
    } catch (err) {
      if (
        err instanceof errors.JWKSNoMatchingKey ||
        err instanceof errors.JWKSMultipleMatchingKeys
      ) {
        throw err;
      }
      logger.warn({ err, jwksUrl }, 'fetching the JWKS failed');
      throw unavailable('the token signing keys are unavailable');
    }
  };
}

type IntrospectionConfig = Extract<AuthConfig, { mode: 'introspection' }>;

/** RFC 7662 token introspection, with positive answers cached and concurrent lookups shared. */
function introspector(config: IntrospectionConfig, scopePrefix: string, logger: Logger) {
  const cacheMs = config.cacheMs ?? INTROSPECTION_CACHE_MS;
  const cache = new Map<string, { principal: Principal; until: number }>();
  const pending = new Map<string, Promise<Principal>>();
  const headers: Record<string, string> = { accept: 'application/json' };
  if (config.clientId !== undefined) {
    const credentials = `${encodeURIComponent(config.clientId)}:${encodeURIComponent(config.clientSecret ?? '')}`;
    headers.authorization = `Basic ${Buffer.from(credentials).toString('base64')}`;
  }

  async function ask(token: string): Promise<Record<string, unknown>> {
    try {
      const response = await fetch(config.introspectionUrl, {
        method: 'POST',
        headers,
        body: new URLSearchParams({ token, token_type_hint: 'access_token' }),
        signal: AbortSignal.timeout(UPSTREAM_TIMEOUT_MS),
      });
      if (!response.ok) throw new Error(`introspection answered HTTP ${response.status}`);
      const body: unknown = await response.json();
      if (typeof body !== 'object' || body === null) {
        throw new Error('introspection answer is not an object');
      }
      return body as Record<string, unknown>;
    } catch (err) {
      logger.warn({ err, introspectionUrl: config.introspectionUrl }, 'token introspection failed');
      throw unavailable('token introspection is unavailable');
    }
  }

  async function lookup(token: string): Promise<Principal> {
    const answer = await ask(token);
    if (answer.active !== true) throw unauthenticated('the token is not active');
    const principal = principalOf(answer, scopePrefix);
    const now = Date.now();
    if (principal.expiresAt !== undefined) {
      // Active, says the server, yet past its exp (beyond the skew tolerated): not taken.
      if (principal.expiresAt + CLOCK_TOLERANCE_SECONDS < now / 1000) {
        throw unauthenticated('the token has expired');
      }
    } else {
      principal.recheckAt = Math.floor((now + cacheMs) / 1000);
    }
    const until = Math.min(now + cacheMs, (principal.expiresAt ?? principal.recheckAt!) * 1000);
    cache.set(token, { principal, until });
    if (cache.size > INTROSPECTION_CACHE_ENTRIES) cache.delete(cache.keys().next().value!);
    return principal;
  }

  return (token: string): Promise<Principal> => {
    const cached = cache.get(token);
    if (cached) {
      cache.delete(token);
      if (cached.until > Date.now()) {
        cache.set(token, cached);
        return Promise.resolve(cached.principal);
      }
    }
    let answer = pending.get(token);
    if (!answer) {
      answer = lookup(token).finally(() => pending.delete(token));
      pending.set(token, answer);
    }
    return answer;
  };
}

/** Reads or creates the dev secret in dataDir (the same logic createAuthenticator uses). */
export async function loadDevSecret(
  dataDir: string,
  configured?: string,
): Promise<{ secret: Uint8Array; generated: boolean }> {
  if (configured) return { secret: encoder.encode(configured), generated: false };
  const { value, generated } = await loadOrCreateSecretFile(
    path.join(dataDir, 'dev-secret'),
    () => randomBytes(32).toString('base64url'),
    (text) => encoder.encode(text),
  );
  return { secret: value, generated };
}

/** Signs a development token (HS256) — used by scripts/token.ts and by tests. */
export async function signDevToken(
  secret: string | Uint8Array,
  claims: { sub: string; clientId: string; scopes: string[]; ttlSeconds?: number },
): Promise<string> {
  return new SignJWT({ client_id: claims.clientId, scope: claims.scopes.join(' ') })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(claims.sub)
    .setIssuedAt()
    .setExpirationTime(Math.floor(Date.now() / 1000) + (claims.ttlSeconds ?? 3600))
    .sign(typeof secret === 'string' ? encoder.encode(secret) : secret);
}

/**
 * The dev secret, logging once (when given the logger) if it comes from the data directory
 * rather than configuration.
 */
async function devSecret(dataDir: string, configured: string | undefined, logger?: Logger) {
  const { secret, generated } = await loadDevSecret(dataDir, configured);
  if (!configured) {
    logger?.warn(
      { file: path.join(dataDir, 'dev-secret'), generated },
      'dev authentication uses the secret stored in the data directory',
    );
  }
  return secret;
}

async function tokenValidator(
  auth: AuthConfig,
  scopePrefix: string,
  dataDir: string,
  logger: Logger,
  announce: boolean,
): Promise<(token: string) => Promise<Principal>> {
  if (auth.mode === 'introspection') return introspector(auth, scopePrefix, logger);
  const validate =
    auth.mode === 'jwks'
      ? jwtValidator(jwksKey(auth.jwksUrl, logger), {
          algorithms: ASYMMETRIC_ALGORITHMS,
          issuer: auth.issuer,
          audience: auth.audience,
        })
      : jwtValidator(await devSecret(dataDir, auth.secret, announce ? logger : undefined), {
          algorithms: ['HS256'],
        });
  // A verified JWT stays valid until it expires: remember it, so that a client's requests do
  // not pay a signature check each.
  const verified = new TtlCache<string, Principal>(VERIFIED_CACHE_MS, VERIFIED_CACHE_ENTRIES);
  return async (token) => {
    const known = verified.get(token);
    if (known) return known;
    const principal = principalOf(await validate(token), scopePrefix);
    const left = (principal.expiresAt ?? 0) * 1000 - Date.now();
    if (left > 0) verified.set(token, principal, Math.min(VERIFIED_CACHE_MS, left));
    return principal;
  };
}

export async function createAuthenticator(options: {
  auth: AuthConfig;
  scopePrefix: string;
  dataDir: string;
  logger: Logger;
  /** false: the dev secret's notice was logged already (a GraphQL worker thread). */
  announce?: boolean;
}): Promise<Authenticator> {
  const { scopePrefix } = options;
  const validate = await tokenValidator(
    options.auth,
    scopePrefix,
    options.dataDir,
    options.logger,
    options.announce ?? true,
  );
  const scopeName = (name: ScopeName) => fullScopeName(scopePrefix, name);
  return {
    authenticate: async (authorization) => validate(bearerToken(authorization)),
    requireScope(principal, ...anyOf) {
      const [first] = anyOf;
      if (first === undefined) throw new Error('requireScope needs at least one scope');
      if (!anyOf.some((name) => principal.scopes.has(name))) {
        throw permissionDenied(scopeName(first));
      }
    },
    scopeName,
  };
}
