import { z } from 'zod';
import { uuid } from '../../schemas.ts';
import { route } from '../rest.ts';
import { MAX_RETENTION_DAYS } from '../../accounts/service.ts';

const accountJson = z
  .strictObject({
    accountId: uuid,
    retentionDays: z.int().min(1).max(MAX_RETENTION_DAYS),
  })
  .meta({ id: 'Account', description: "The caller's account" });

export const accountRoutes = [
  route({
    method: 'GET',
    path: '/api/accounts/{accountId}',
    operationId: 'getAccount',
    summary: "The caller's account: its id and retention; `self` names it without knowing its id",
    scopes: ['activities_basic', 'notifications', 'notifications_motion', 'zones'],
    response: accountJson,
    async handle(ctx, { params }) {
      const account = await ctx.ownAccount(params.accountId);
      return { body: { accountId: account.accountId, retentionDays: account.retentionDays } };
    },
  }),
];
