import { route } from '../http/rest.ts';

export const accountRoutes = [
  route({
    method: 'GET',
    path: '/api/accounts/{accountId}',
    summary: "The caller's account: its id and retention; `self` names it without knowing its id",
    scopes: ['activities_basic', 'notifications', 'notifications_motion', 'zones'],
    async handle(ctx, { params }) {
      const account = await ctx.ownAccount(params.accountId);
      return { body: { accountId: account.accountId, retentionDays: account.retentionDays } };
    },
  }),
];
