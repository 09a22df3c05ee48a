import { z } from 'zod';
import { timestamp, uuid } from '../../schemas.ts';
import { route } from '../rest.ts';
import type { AccessoryView } from '../../accessories/service.ts';

const accessorySchema = z
  .strictObject({ accessoryId: uuid, deviceId: z.string(), name: z.string(), createdAt: timestamp })
  .meta({ id: 'Accessory' });

/** The REST form of an accessory. */
export const accessoryJson = (a: AccessoryView): z.input<typeof accessorySchema> => ({
  accessoryId: a.accessoryId,
  deviceId: a.deviceId,
  name: a.name,
  createdAt: a.createdAt.toISOString(),
});

// GET /api/accessories is not paged by the contract; an account with more than this many
// accessories pages through GraphQL `accessories(first, after)`.
const MAX_LISTED = 1000;

const accessoryList = z
  .strictObject({ accessories: z.array(accessorySchema).max(MAX_LISTED) })
  .meta({
    id: 'AccessoryList',
    description: `The caller's accessories, ordered by id; at most ${MAX_LISTED} (GraphQL \`accessories\` pages through any number)`,
  });

export const accessoryRoutes = [
  route({
    method: 'GET',
    path: '/api/accessories',
    operationId: 'listAccessories',
    summary: "The caller's accessories",
    scopes: ['activities_basic'],
    response: accessoryList,
    async handle(ctx) {
      const account = await ctx.account();
      const accessories = account
        ? await ctx.services.accessories.list(account.accountId, MAX_LISTED)
        : [];
      return { body: { accessories: accessories.map(accessoryJson) } };
    },
  }),
];
