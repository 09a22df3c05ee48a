import type { DestinationStream } from 'pino';
import { pino } from 'pino';

export type Logger = pino.Logger;

/**
 * An error as logged: pino's standard serialization, without the `client` that pg-pool attaches
 * to the error of an idle connection (the whole connection, with its prepared statements,
 * would otherwise fill a log line of several KB).
 */
function serializeError(err: unknown) {
  const logged = pino.stdSerializers.err(err as Error) as Record<string, unknown>;
  delete logged.client;
  return logged;
}

/** Structured JSON logs on stdout (or `destination`). */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    { level, base: { service: 'clipgate' }, serializers: { err: serializeError } },
    destination,
  );
}

/** A URL as logged: scheme, host and path, without user, password or query (which may hold secrets). */
export function withoutCredentials(raw: string): string {
  try {
    const url = new URL(raw);
    return `${url.protocol}//${url.host}${url.pathname === '/' ? '' : url.pathname}`;
  } catch {
    return '(a malformed URL)';
  }
}
