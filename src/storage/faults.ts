import { AppError } from '../errors.ts';

/**
 * Tells a database that cannot be reached (down, restarting, the network cut, no connection to
 * be had in time) from a bug or bad input: the former is a 503 UNAVAILABLE with Retry-After
 * that the client may retry, never a 500. Requests succeed again on their own once the pool
 * can connect.
 */

/** Seconds a client should wait before retrying while the database is unreachable. */
export const DATABASE_RETRY_AFTER_S = 2;

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);

/** SQLSTATEs of a lost or refused connection: class 08, shutdown/crash (57P0x), too many connections. */
const UNAVAILABLE_SQLSTATE = /^(08...|57P0[1-3]|53300)$/;

/** Prisma's codes for a database it could not reach or get a connection to in time. */
const PRISMA_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024', 'P2028']);

/** Driver-adapter error kinds (Prisma 7) that mean the same. */
const ADAPTER_KINDS = new Set([
  'DatabaseNotReachable',
  'ConnectionClosed',
  'SocketTimeout',
  'TooManyConnections',
  'TlsConnectionError',
]);

/** What node-postgres says when a connection drops or none comes in time (it sets no code). */
const PG_MESSAGES =
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection ended unexpectedly)/;

/**
 * Whether `err` (or what it wraps: its `cause`, or the driver adapter's error that a Prisma
 * error carries in `meta.driverAdapterError`, as a raw query's P2010 does) is one of those.
 */
export function isDatabaseUnavailable(err: unknown, depth = 0): boolean {
  if (!err || typeof err !== 'object' || depth >= 5) return false;
  const { code, kind, message, cause, meta } = err as {
    code?: unknown;
    kind?: unknown;
    message?: unknown;
    cause?: unknown;
    meta?: { driverAdapterError?: unknown };
  };
  if (typeof code === 'string') {
    if (NETWORK_CODES.has(code) || PRISMA_CODES.has(code)) return true;
    if (UNAVAILABLE_SQLSTATE.test(code)) return true;
  }
  if (typeof kind === 'string' && ADAPTER_KINDS.has(kind)) return true;
  if (typeof message === 'string' && PG_MESSAGES.test(message)) return true;
  return (
    isDatabaseUnavailable(cause, depth + 1) ||
    isDatabaseUnavailable(meta?.driverAdapterError, depth + 1)
  );
}

/**
 * The answer to a request that failed on the database: the error the pools refused it with
 * (./fair-pool.ts: busy, or stopped), as it is or inside what Prisma wrapped it in; 503
 * UNAVAILABLE when the database could not be reached; else undefined (a bug: INTERNAL).
 */
export function databaseAnswer(err: unknown): AppError | undefined {
  const refusal = poolRefusal(err);
  if (refusal) return refusal;
  return isDatabaseUnavailable(err) ? databaseUnavailable() : undefined;
}

/** The errors the pools refuse and stop requests with (made here). */
const refusals = new WeakSet<AppError>();

const refusal = (error: AppError): AppError => {
  refusals.add(error);
  return error;
};

function poolRefusal(err: unknown, depth = 0): AppError | undefined {
  if (err instanceof AppError) return refusals.has(err) ? err : undefined;
  if (!err || typeof err !== 'object' || depth >= 5) return undefined;
  const { cause, meta } = err as { cause?: unknown; meta?: { driverAdapterError?: unknown } };
  return poolRefusal(cause, depth + 1) ?? poolRefusal(meta?.driverAdapterError, depth + 1);
}

/** Seconds a caller over its share of a pool should wait before sending more. */
const SHARE_RETRY_AFTER_S = 1;

/**
 * A request that waited for a connection past the pool's wait because its caller already held
 * its share of the pool's connections (`own`: 429, it sends too much at once), or because every
 * connection was in use (`pool`: 503, the database is busy, not down).
 */
export function databaseBusy(
  blockedBy: 'own' | 'pool',
  { share, size, waitedMs }: { share: number; size: number; waitedMs: number },
): AppError {
  const waited = `${waitedMs / 1000} s`;
  if (blockedBy === 'own') {
    return refusal(
      new AppError(
        'RATE_LIMITED',
        `this client and account hold their share of the database's connections (${share} of ${size}), and their next statement waited ${waited}; send fewer requests at once, or retry after ${SHARE_RETRY_AFTER_S} s`,
        { retryAfterSeconds: SHARE_RETRY_AFTER_S, limit: 'DATABASE_POOL_SHARE', max: share },
        { 'Retry-After': String(SHARE_RETRY_AFTER_S) },
      ),
    );
  }
  return refusal(
    new AppError(
      'UNAVAILABLE',
      `the database is busy: none of its ${size} connections came free in ${waited}; retry later`,
      { retryAfterSeconds: DATABASE_RETRY_AFTER_S },
      { 'Retry-After': String(DATABASE_RETRY_AFTER_S) },
    ),
  );
}

/**
 * A request's statement stopped by the service: it ran past its time limit (`timeout`), or the
 * one who asked went away (`gone`, an answer nobody reads).
 */
export function statementStopped(reason: 'timeout' | 'gone', timeoutMs: number): AppError {
  if (reason === 'gone') {
    return refusal(new AppError('UNAVAILABLE', 'the request was cancelled: its client went away'));
  }
  return refusal(
    new AppError(
      'UNAVAILABLE',
      `the database is busy: a statement of this request ran past its limit of ${timeoutMs / 1000} s and was stopped; ask for less at once, or retry later`,
      {
        retryAfterSeconds: DATABASE_RETRY_AFTER_S,
        limit: 'DATABASE_STATEMENT_TIMEOUT_MS',
        max: timeoutMs,
      },
      { 'Retry-After': String(DATABASE_RETRY_AFTER_S) },
    ),
  );
}

export const databaseUnavailable = () =>
  new AppError(
    'UNAVAILABLE',
    'the database is unavailable; retry later',
    { retryAfterSeconds: DATABASE_RETRY_AFTER_S },
    { 'Retry-After': String(DATABASE_RETRY_AFTER_S) },
  );
