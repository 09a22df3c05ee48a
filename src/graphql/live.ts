import type { Principal } from '../accounts/auth.ts';
import { AppError, type ErrorCode, type ErrorDetails } from '../errors.ts';
import type { SubscribeOptions } from '../events/live/live-events.ts';
import type { LiveSubscription } from '../events/live/subscription.ts';

/**
 * What the two live-event transports share: GraphQL over WebSocket (ws.ts, graphql-ws) and over
 * SSE (sse.ts, Yoga's). Both are thin adapters of src/events/live: they count connections,
 * authenticate, tell the core about back-pressure, and end connections as said here.
 */

/**
 * Why the service ends a live connection. A WebSocket closes with the code (its reason says
 * more); SSE has no close code, so a stream answers or ends with the error `sseError` gives for
 * it. graphql-ws's own codes apply otherwise (4406 subprotocol, 4408 no `connection_init` in
 * time, 4409 an operation id in use).
 */
export enum LiveCloseCode {
  /** The server shuts down: reconnect (to another instance) and resume with `after`. SSE: the stream completes. */
  GoingAway = 1001,
  /**
   * Try again later: the identity provider is unavailable, the instance is full (an upgrade
   * past `LIVE_MAX_CONNECTIONS` is answered with HTTP 503 and Retry-After; this is for the ones
   * that raced past it), or a token without expiry is due to be checked again (reconnect with it
   * and resume with `after`). SSE: UNAVAILABLE.
   */
  TryAgainLater = 1013,
  /** Slow consumer: a subscriber's bounded queue overflowed; reconnect and resume with `after`. SSE: RATE_LIMITED. */
  SlowConsumer = 4008,
  /** A binary message (graphql-ws's BadRequest). */
  BadRequest = 4400,
  /** No, malformed or invalid token in `connection_init` (the reason says why), or it expired while connected. SSE: 401, and UNAUTHENTICATED when it expires. */
  Forbidden = 4403,
  /** The token's subject and client have as many live connections as they may. SSE: RATE_LIMITED. */
  TooManyConnections = 4429,
  /** Handling a message failed (graphql-ws's InternalServerError). */
  InternalServerError = 4500,
}

type SseEnding =
  | LiveCloseCode.TryAgainLater
  | LiveCloseCode.SlowConsumer
  | LiveCloseCode.Forbidden
  | LiveCloseCode.TooManyConnections;

const sseCodes: Record<SseEnding, ErrorCode> = {
  [LiveCloseCode.TryAgainLater]: 'UNAVAILABLE',
  [LiveCloseCode.SlowConsumer]: 'RATE_LIMITED',
  [LiveCloseCode.Forbidden]: 'UNAUTHENTICATED',
  [LiveCloseCode.TooManyConnections]: 'RATE_LIMITED',
};

/** The error an SSE stream answers or ends with where a WebSocket would close with `code`. */
export const sseError = (
  code: SseEnding,
  message: string,
  details: ErrorDetails = {},
  headers: Record<string, string> = {},
): AppError => new AppError(sseCodes[code], message, details, headers);

/** A subscription as a GraphQL field asks for it; the transport adds the rest. */
export type LiveRequest = Pick<SubscribeOptions, 'stream' | 'after' | 'eventTypes' | 'accepts'>;

/**
 * What a live transport adds to the context of an operation, for subscription fields to open
 * their live subscription with: ws.ts to a WebSocket's operations, yoga.ts (SSE, sse.ts) to an
 * HTTP request's.
 */
export interface LiveCarrier {
  liveTransport: 'websocket' | 'sse';
  openLive: (request: LiveRequest) => Promise<LiveSubscription>;
}

const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Why a live connection's token is no longer taken: it expired, or it has no expiry and must be
 * checked again (an introspection answer without exp, past its cache period).
 */
export type TokenEnd = 'expired' | 'recheck';

/**
 * Calls `ended` once the principal may no longer be taken as it is: at the token's exp, or for
 * a token without one at its `recheckAt`. The timer is unref'd.
 */
export function onTokenExpiry(
  principal: Pick<Principal, 'expiresAt' | 'recheckAt'>,
  ended: (why: TokenEnd) => void,
): NodeJS.Timeout | undefined {
  const { expiresAt, recheckAt } = principal;
  const at = expiresAt ?? recheckAt;
  if (at === undefined) return undefined;
  const why: TokenEnd = expiresAt === undefined ? 'recheck' : 'expired';
  const ms = Math.max(0, Math.min(at * 1000 - Date.now(), MAX_TIMER_MS));
  const timer = setTimeout(() => ended(why), ms);
  timer.unref();
  return timer;
}
