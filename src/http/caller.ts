import type { RequestContext } from '../context.ts';
import type { Caller } from '../notifications/views.ts';

/**
 * The caller as the notification service takes it, for REST and GraphQL: its own account
 * (`accountId` must be its id or "self", else 404) and its OAuth client.
 */
export async function callerOf(ctx: RequestContext, accountId?: string): Promise<Caller> {
  const account = await ctx.ownAccount(accountId);
  return { accountId: account.accountId, clientId: ctx.principal.clientId };
}

/** Whether the caller may register the motion event types. */
export const motionAllowed = (ctx: RequestContext): boolean =>
  ctx.principal.scopes.has('notifications_motion');
