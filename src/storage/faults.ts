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

export const databaseUnavailable = () =>
  new AppError(
    'UNAVAILABLE',
    'the database is unavailable; retry later',
    { retryAfterSeconds: DATABASE_RETRY_AFTER_S },
    { 'Retry-After': String(DATABASE_RETRY_AFTER_S) },
  );
