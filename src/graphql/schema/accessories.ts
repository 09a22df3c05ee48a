import type { RequestContext } from '../../context.ts';
import { invalidArgument } from '../../errors.ts';
import { builder, scopedLoader } from '../builder.ts';
import { isUuid } from '../../ids.ts';
import type { AccessoryView } from '../../accessories/service.ts';

/** The caller's accessories of these ids, in their order; null for unknown ones or another account's. */
async function ownAccessories(
  ctx: RequestContext,
  ids: readonly string[],
): Promise<(AccessoryView | null)[]> {
  const account = await ctx.account();
  const found = await ctx.services.accessories.getMany(ids);
  return ids.map((id) => {
    const accessory = found.get(id);
    return accessory && accessory.accountId === account?.accountId ? accessory : null;
  });
}

export const AccessoryRef = builder
  .nodeRef<AccessoryView>('Accessory', {
    id: {
      description: 'The accessory id (a UUID), which is also its global id.',
      resolve: (a) => a.accessoryId,
    },
    loadMany: scopedLoader(['activities_basic'], (ids, ctx) => ownAccessories(ctx, ids)),
  })
  .implement({
    fields: (t) => ({
      deviceId: t.exposeString('deviceId'),
      name: t.exposeString('name'),
      createdAt: t.expose('createdAt', { type: 'DateTime' }),
    }),
  });

builder.queryFields((t) => ({
  accessories: t.connection(
    {
      type: AccessoryRef,
      description: "The caller's accessories, ordered by id.",
      authScopes: { activities_basic: true },
      // For the operation cost (src/graphql/limits.ts): the page size when `first` is absent.
      extensions: { defaultPageSize: 50 },
      resolve: async (_root, args, ctx) => {
        const first = args.first ?? 50;
        if (args.last != null || args.before != null) {
          throw invalidArgument(
            args.last != null ? 'last' : 'before',
            'accessories pages forward only (first, after)',
          );
        }
        if (first < 1 || first > 100) {
          throw invalidArgument('first', 'first must be 1..100');
        }
        if (args.after != null && !isUuid(args.after)) {
          throw invalidArgument('after', 'after must be a cursor of this connection');
        }
        const account = await ctx.account();
        const rows = account
          ? await ctx.services.accessories.list(
              account.accountId,
              first + 1,
              args.after ?? undefined,
            )
          : [];
        const page = rows.slice(0, first);
        return {
          edges: page.map((a) => ({ cursor: a.accessoryId, node: a })),
          pageInfo: {
            hasNextPage: rows.length > first,
            hasPreviousPage: false,
            startCursor: page[0]?.accessoryId ?? null,
            endCursor: page.at(-1)?.accessoryId ?? null,
          },
        };
      },
    },
    { name: 'AccessoryConnection' },
    { name: 'AccessoryEdge' },
  ),
  accessory: t.field({
    type: AccessoryRef,
    nullable: true,
    description: "One of the caller's accessories; null for an unknown one or another account's.",
    authScopes: { activities_basic: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => (await ownAccessories(ctx, [String(args.id)]))[0] ?? null,
  }),
}));

builder.mutationField('associateAccessory', (t) =>
  t.field({
    type: AccessoryRef,
    description:
      'Associates a device with an account: the same device and account give the same id again; another account gives a new id.',
    authScopes: { ingest: true },
    args: {
      accountId: t.arg.id({ required: true }),
      deviceId: t.arg.string({ required: true }),
      name: t.arg.string({ required: true }),
    },
    resolve: (_root, args, ctx) =>
      ctx.services.accessories.associate(String(args.accountId), args.deviceId, args.name),
  }),
);
