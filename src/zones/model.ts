import { z } from 'zod';
import { timestamp } from '../schemas.ts';

/**
 * The JSON forms of zones: the REST bodies (src/http/routes/zones.ts) and the `zones_saved`
 * event's data.
 */

// The rules (checkZones') are documented here, not enforced: a broken rule is a 400 naming the
// exact field, e.g. `zones.2.vertices.1.x`, with checkZones' message.
const coordinate = z.number().meta({ minimum: 0, maximum: 1 });

export const zoneSchema = z
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

export const accessoryZonesSchema = z
  .strictObject({
    zones: z.array(zoneSchema),
    lastModified: timestamp
      .nullable()
      .meta({ description: 'When the zones were last saved; null before the first save' }),
  })
  .meta({ id: 'AccessoryZones' });
