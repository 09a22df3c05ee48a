import type http from 'node:http';
import type { RequestContext } from '../context.ts';
import type { Services } from '../services.ts';
import type { LiveSubscription } from '../events/live/subscription.ts';
import { LiveCloseCode, onTokenExpiry, sseError, type LiveRequest } from './live.ts';

/**
 * GraphQL subscriptions over SSE (Yoga's, `Accept: text/event-stream` on /graphql): each stream
 * is a live connection of its own. It counts against the limits, ends with UNAUTHENTICATED when
 * its token expires (UNAVAILABLE when a token without expiry is due to be checked again), with
 * RATE_LIMITED when its subscriber cannot keep up (SSE has no close code, see LiveCloseCode),
 * and when the client goes away.
 */
export async function openSse(
  ctx: RequestContext<Services>,
  res: http.ServerResponse | undefined,
  request: LiveRequest,
): Promise<LiveSubscription> {
  const { live, liveConnections: connections, config } = ctx.services;
  const { principal } = ctx;
  const retryAfterSeconds = 5;
  const retry = { 'Retry-After': String(retryAfterSeconds) };
  if (!connections.open()) {
    throw sseError(
      LiveCloseCode.TryAgainLater,
      'this instance serves as many live connections as it may; try again',
      { retryAfterSeconds },
      retry,
    );
  }
  if (!connections.claim(principal)) {
    connections.close();
    throw sseError(
      LiveCloseCode.TooManyConnections,
      `at most ${connections.maxPerSubject} live connections per token subject and client`,
      { retryAfterSeconds },
      retry,
    );
  }
  let ended = false;
  let expiry: NodeJS.Timeout | undefined;
  const release = () => {
    if (ended) return;
    ended = true;
    clearTimeout(expiry);
    connections.unclaim(principal);
    connections.close();
  };
  try {
    const sub = await live.subscribe({
      ...request,
      sink: {
        congested: () => (res?.writableLength ?? 0) > config.live.maxBufferedBytes,
        cut: (message) => sseError(LiveCloseCode.SlowConsumer, message, { field: 'after' }),
      },
      onEnd: release,
    });
    if (!ended) {
      expiry = onTokenExpiry(principal, (why) =>
        sub.fail(
          why === 'expired'
            ? sseError(
                LiveCloseCode.Forbidden,
                'the token has expired; subscribe again with a fresh token and resume with after',
              )
            : sseError(
                LiveCloseCode.TryAgainLater,
                'the token must be checked again; subscribe again and resume with after',
              ),
        ),
      );
    }
    // The client going away ends the stream, whatever the HTTP layer does with the iterator.
    if (res) {
      if (res.destroyed) void sub.return();
      else res.once('close', () => void sub.return());
    }
    return sub;
  } catch (err) {
    release();
    throw err;
  }
}
