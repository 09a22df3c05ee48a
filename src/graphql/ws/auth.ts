import { authenticate, type RequestContext } from '../../context.ts';
import { AppError } from '../../errors.ts';
import type { Services } from '../../services.ts';
import { LiveCloseCode, onTokenExpiry } from '../live.ts';
import type { Connection } from './socket.ts';

/** The close reason when a token without expiry is due to be checked again. */
const RECHECK_REASON = 'Try again later: the token must be checked again; reconnect';

/**
 * `connection_init`: authenticates the connection once, with the `authorization` of its
 * connection parameters, and claims one of its subject's connection slots; closes it (Forbidden,
 * TryAgainLater, TooManyConnections) and answers false when it may not stay. An accepted
 * connection closes when its token expires or is due to be checked again.
 */
export async function acceptConnection(
  services: Services,
  connection: Connection,
  params: Record<string, unknown>,
): Promise<boolean> {
  const value = params.authorization ?? params.Authorization;
  let context: RequestContext<Services>;
  try {
    context = await authenticate(services, typeof value === 'string' ? value : undefined);
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    if (err.code === 'UNAVAILABLE') {
      connection.close(LiveCloseCode.TryAgainLater, `Try again later: ${err.message}`);
    } else {
      connection.close(LiveCloseCode.Forbidden, `Forbidden: ${err.message}`);
    }
    return false;
  }
  if (connection.closed) return false;
  const { principal } = context;
  const limiter = services.liveConnections;
  if (!limiter.claim(principal)) {
    connection.close(
      LiveCloseCode.TooManyConnections,
      `Too many connections for this subject and client (at most ${limiter.maxPerSubject})`,
    );
    return false;
  }
  connection.owner = principal;
  connection.context = context;
  connection.expiry = onTokenExpiry(principal, (why) =>
    why === 'expired'
      ? connection.close(LiveCloseCode.Forbidden, 'Forbidden: the token has expired')
      : connection.close(LiveCloseCode.TryAgainLater, RECHECK_REASON),
  );
  return true;
}
