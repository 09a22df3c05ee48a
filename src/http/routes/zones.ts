import { z } from 'zod';
import { route } from '../rest.ts';
import { accessoryZonesSchema as accessoryZones, zoneSchema as zone } from '../../zones/model.ts';
import { zonesJson } from '../../accessories/zones.ts';

/**
 * The body of `PUT .../zones`: the shape only (types, unknown members); the rules are
 * checkZones'. `lastModified` is accepted so that a GET body can be sent back as it is, and
 * ignored: the service sets it.
 */
export const zonesBody = z
  .strictObject({
    zones: z.array(zone).meta({ maxItems: 5 }),
    lastModified: z
      .string()
      .nullable()
      .optional()
      .meta({ description: 'Ignored: a GET answer can be sent back as it is' }),
  })
  .meta({ id: 'ZonesInput' });

export const zoneRoutes = [
  route({
    method: 'GET',
    path: '/api/accessories/{accessoryId}/zones',
    operationId: 'getZones',
    summary: "The accessory's zones and when they were last saved (null before the first save)",
    scopes: ['activities_basic'],
    response: accessoryZones,
    async handle(ctx, { params }) {
      const account = await ctx.ownAccount();
      return { body: zonesJson(await ctx.services.zones.get(account, params.accessoryId!)) };
    },
  }),
  route({
    method: 'PUT',
    path: '/api/accessories/{accessoryId}/zones',
    operationId: 'saveZones',
    summary:
      "Replaces the accessory's zones (at most 5, ids z1..z5, 3..32 vertices in [0, 1], simple polygons)",
    scopes: ['zones'],
    body: zonesBody,
    response: accessoryZones,
    async handle(ctx, { params, body }) {
      const account = await ctx.ownAccount();
      const saved = await ctx.services.zones.save(account, params.accessoryId!, body.zones);
      return { body: zonesJson(saved) };
    },
  }),
];
