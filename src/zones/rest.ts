import { z } from 'zod';
import { timestamp } from '../http/openapi.ts';
import { route } from '../http/rest.ts';
import { zonesJson } from './service.ts';

// The rules (checkZones') are documented here, not enforced: a broken rule is a 400 naming the
// exact field, e.g. `zones.2.vertices.1.x`, with checkZones' message.
const coordinate = z.number().meta({ minimum: 0, maximum: 1 });

const zone = z
  .strictObject({
    id: z.string().meta({ enum: ['z1', 'z2', 'z3', 'z4', 'z5'], description: 'Unique in the set' }),
    name: z.string().meta({ minLength: 1, maxLength: 64 }),
    color: z.string().meta({ pattern: '^#[0-9A-Fa-f]{6}$', description: 'Stored in lower case' }),
    vertices: z.array(z.strictObject({ x: coordinate, y: coordinate })).meta({
      minItems: 3,
      maxItems: 32,
      description: 'A simple polygon, (0, 0) top-left of the frame, either orientation',
    }),
  })
  .meta({ id: 'Zone' });

const accessoryZones = z
  .strictObject({
    zones: z.array(zone),
    lastModified: timestamp
      .nullable()
      .meta({ description: 'When the zones were last saved; null before the first save' }),
  })
  .meta({ id: 'AccessoryZones' });

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
