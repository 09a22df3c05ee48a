import type { Principal, ScopeName } from './accounts/auth.ts';
import type { AccountView } from './accounts/service.ts';
import { notFound } from './errors.ts';
import type { Services } from './services.ts';

/**
 * What a request knows about its caller; the same for REST and GraphQL. A plain object of
 * closures, since Yoga spreads the context it is given into its own.
 */
export interface RequestContext {
  services: Services;
  principal: Principal;
  require(...anyOf: ScopeName[]): void;
  /** The caller's own account (its token's subject), or null if none was created for it. */
  account(): Promise<AccountView | null>;
  /** The caller's account; `accountId` may be "self" or must be the caller's own id (else 404). */
  ownAccount(accountId?: string): Promise<AccountView>;
}

export function requestContext(services: Services, principal: Principal): RequestContext {
  let account: Promise<AccountView | null> | undefined;
  const ctx: RequestContext = {
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

export async function authenticate(
  services: Services,
  authorization: string | undefined | null,
): Promise<RequestContext> {
  return requestContext(services, await services.auth.authenticate(authorization));
}
