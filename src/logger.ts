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
