import { route } from '../http/rest.ts';
import type { AccessoryView } from './service.ts';

/** The REST form of an accessory. */
export const accessoryJson = (a: AccessoryView) => ({
  accessoryId: a.accessoryId,
  deviceId: a.deviceId,
  name: a.name,
  createdAt: a.createdAt.toISOString(),
});

// GET /api/accessories is not paged by the contract; an account with more than this many
// accessories pages through GraphQL `accessories(first, after)`.
const MAX_LISTED = 1000;

export const accessoryRoutes = [
  route({
    method: 'GET',
    path: '/api/accessories',
    summary: "The caller's accessories",
    scopes: ['activities_basic'],
    async handle(ctx) {
      const account = await ctx.account();
      const accessories = account
        ? await ctx.services.accessories.list(account.accountId, MAX_LISTED)
        : [];
      return { body: { accessories: accessories.map(accessoryJson) } };
    },
  }),
];
