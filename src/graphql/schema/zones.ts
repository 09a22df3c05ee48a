import { AccessoryRef } from './accessories.ts';
import { builder } from '../builder.ts';
import type { Vertex } from '../../zones/geometry.ts';
import type { AccessoryZonesView, ZoneView } from '../../accessories/zones.ts';
import { MAX_VERTICES, MAX_ZONES } from '../../zones/validation.ts';

const VertexRef = builder.objectRef<Vertex>('Vertex').implement({
  description: 'A point of the frame: x and y in [0, 1], (0, 0) the top-left corner.',
  fields: (t) => ({ x: t.exposeFloat('x'), y: t.exposeFloat('y') }),
});

const ZoneRef = builder.objectRef<ZoneView>('Zone').implement({
  description: 'A motion zone drawn on the frame: a simple polygon.',
  fields: (t) => ({
    id: t.exposeString('id', { description: 'z1..z5' }),
    name: t.exposeString('name'),
    color: t.exposeString('color', { description: '#rrggbb, lower case' }),
    vertices: t.field({ type: [VertexRef], resolve: (zone) => zone.vertices }),
  }),
});

const AccessoryZonesRef = builder.objectRef<AccessoryZonesView>('AccessoryZones').implement({
  description:
    "An accessory's zones, as REST `GET /api/accessories/{accessoryId}/zones` gives them.",
  fields: (t) => ({
    accessoryId: t.exposeID('accessoryId'),
    zones: t.field({ type: [ZoneRef], resolve: (set) => set.zones }),
    lastModified: t.expose('lastModified', {
      type: 'DateTime',
      nullable: true,
      description:
        'When the zones were last saved; null before the first save. A motionZones condition is exact for activities that started after it and answered from objectLocations for older ones.',
    }),
  }),
});

const VertexInput = builder.inputType('VertexInput', {
  fields: (t) => ({
    x: t.float({ required: true }),
    y: t.float({ required: true }),
  }),
});

const ZoneInput = builder.inputType('ZoneInput', {
  fields: (t) => ({
    id: t.string({ required: true, description: 'z1..z5, unique; zR is reserved.' }),
    name: t.string({ required: true, description: '1..64 characters.' }),
    color: t.string({ required: true, description: '#rrggbb' }),
    vertices: t.field({
      type: [VertexInput],
      required: true,
      description: `3..${MAX_VERTICES} points in [0, 1] forming a simple polygon with an area.`,
    }),
  }),
});

builder.objectFields(AccessoryRef, (t) => ({
  zones: t.field({
    type: AccessoryZonesRef,
    authScopes: { activities_basic: true },
    resolve: async (accessory, _args, ctx) =>
      ctx.services.zones.get(await ctx.ownAccount(), accessory.accessoryId),
  }),
}));

builder.mutationField('saveZones', (t) =>
  t.field({
    type: AccessoryZonesRef,
    description: `Replaces the accessory's zones (at most ${MAX_ZONES}); subscribers of the accessory get a zones_saved event.`,
    authScopes: { zones: true },
    args: {
      accessoryId: t.arg.id({ required: true }),
      zones: t.arg({ type: [ZoneInput], required: true }),
    },
    resolve: async (_root, args, ctx) =>
      ctx.services.zones.save(await ctx.ownAccount(), String(args.accessoryId), args.zones),
  }),
);
