import type { ServerResponse } from 'node:http';
import type { Principal, ScopeName } from './accounts/auth.ts';
import type { AccountView } from './accounts/service.ts';
import { notFound } from './errors.ts';
import { callerOf, rateLimited, rateLimitHeaders, type RateDecision } from './limits/rate.ts';
import { closingCaller, type Caller } from './storage/tenancy.ts';
import type { ReadServices, Services } from './services.ts';

/**
 * What a request knows about its caller; the same for REST and GraphQL. A plain object of
 * closures, since Yoga spreads the context it is given into its own.
 */
export interface RequestContext<S extends ReadServices = ReadServices> {
  /** The instance's services; a GraphQL worker thread's have the read side only. */
  services: S;
  principal: Principal;
  require(...anyOf: ScopeName[]): void;
  /** The caller's own account (its token's subject), or null if none was created for it. */
  account(): Promise<AccountView | null>;
  /** The caller's account; `accountId` may be "self" or must be the caller's own id (else 404). */
  ownAccount(accountId?: string): Promise<AccountView>;
}

export function requestContext<S extends ReadServices>(
  services: S,
  principal: Principal,
): RequestContext<S> {
  let account: Promise<AccountView | null> | undefined;
  const ctx: RequestContext<S> = {
    services,
    principal,
    require: (...anyOf) => services.auth.requireScope(principal, ...anyOf),
    account: () => (account ??= services.accounts.forSubject(principal.subject)),
    ownAccount: async (accountId = 'self') => {
      const own = await ctx.account();
      if (!own || (accountId !== 'self' && accountId !== own.accountId)) throw notFound('account');
      return own;
    },
  };
  return ctx;
}

/**
 * Whom an HTTP request's database work is for (storage/tenancy.ts): its caller, gone once its
 * client disconnects before the answer is written.
 */
export const answerCaller = (principal: Principal, res: ServerResponse): Caller =>
  closingCaller(callerOf(principal), res, () => res.closed && !res.writableEnded);

export async function authenticate(
  services: Services,
  authorization: string | undefined | null,
): Promise<RequestContext<Services>> {
  return requestContext(services, await services.auth.authenticate(authorization));
}

/** Where an admitted request's rate-limit headers go: any answer carries them. */
export interface HeaderSink {
  setHeader(name: string, value: string): unknown;
}

/**
 * Authenticates a request and takes it from its client's rate-limit bucket: the RateLimit
 * headers go on the answer whatever it is, and over the limit this throws RATE_LIMITED.
 */
export async function admit(
  services: Services,
  authorization: string | undefined | null,
  answer: HeaderSink,
): Promise<RequestContext<Services>> {
  const ctx = await authenticate(services, authorization);
  await takeRequest(services, ctx, answer);
  return ctx;
}

/** Counts one request of an authenticated caller (e.g. a WebSocket `subscribe`). */
export async function takeRequest(
  services: Services,
  ctx: RequestContext,
  answer?: HeaderSink,
): Promise<void> {
  answerRequest(services, await services.rateLimiter.consume(ctx.principal), answer);
}

/**
 * What a request's rate-limit decision (undefined: not limited) does to its answer: the
 * RateLimit headers go on it, and over the limit this throws RATE_LIMITED.
 */
export function answerRequest(
  services: Services,
  decision: RateDecision | undefined,
  answer?: HeaderSink,
): void {
  if (!decision) return;
  if (answer) {
    for (const [name, value] of Object.entries(rateLimitHeaders(decision))) {
      answer.setHeader(name, value);
    }
  }
  if (!decision.allowed) {
    services.metrics.refusals.inc({ reason: 'rate_limited' });
    throw rateLimited(decision);
  }
}
