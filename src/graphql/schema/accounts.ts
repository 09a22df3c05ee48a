import { builder } from '../builder.ts';
import type { AccountView } from '../../accounts/service.ts';

export const AccountRef = builder.objectRef<AccountView>('Account').implement({
  fields: (t) => ({
    accountId: t.exposeID('accountId'),
    subject: t.exposeString('subject'),
    retentionDays: t.exposeInt('retentionDays'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

export const ViewerRef = builder
  .objectRef<{ accountId: string | null; clientId: string; scopes: readonly string[] }>('Viewer')
  .implement({
    description: 'Who the token speaks for.',
    fields: (t) => ({
      accountId: t.exposeID('accountId', {
        nullable: true,
        description: "The subject's account; null until upsertAccount created it.",
      }),
      clientId: t.exposeString('clientId'),
      scopes: t.exposeStringList('scopes'),
    }),
  });

builder.queryField('viewer', (t) =>
  t.field({
    type: ViewerRef,
    resolve: async (_root, _args, ctx) => ({
      accountId: (await ctx.account())?.accountId ?? null,
      clientId: ctx.principal.clientId,
      scopes: ctx.principal.rawScopes,
    }),
  }),
);

builder.mutationFields((t) => ({
  upsertAccount: t.field({
    type: AccountRef,
    description: 'Creates the account of a token subject (or updates its retention).',
    authScopes: { ingest: true },
    args: { subject: t.arg.string({ required: true }), retentionDays: t.arg.int() },
    resolve: (_root, args, ctx) => ctx.services.accounts.upsert(args.subject, args.retentionDays),
  }),
  setRetention: t.field({
    type: AccountRef,
    authScopes: { admin: true },
    args: { accountId: t.arg.id({ required: true }), retentionDays: t.arg.int({ required: true }) },
    resolve: (_root, args, ctx) =>
      ctx.services.accounts.setRetention(String(args.accountId), args.retentionDays),
  }),
  deleteAccount: t.boolean({
    description:
      'Sends account_deleted to every registration of the account, then removes its data.',
    authScopes: { admin: true },
    args: { accountId: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const accountId = String(args.accountId);
      await ctx.services.accounts.delete(accountId);
      ctx.services.accessories.forgetAccount(accountId);
      return true;
    },
  }),
}));
