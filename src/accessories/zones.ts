import type { AccessoryService } from './service.ts';
import type { AccountView } from '../accounts/service.ts';
import { notFound } from '../errors.ts';
import { recordEvents, type EventSignal } from '../events/outbox.ts';
import type { Database } from '../storage/database.ts';
import type { Vertex } from '../zones/geometry.ts';
import { checkZones, type ZoneInput } from '../zones/validation.ts';

export interface ZoneView {
  id: string;
  name: string;
  color: string;
  vertices: Vertex[];
}

/** An accessory's zones; lastModified is null before the first save. */
export interface AccessoryZonesView {
  accessoryId: string;
  zones: ZoneView[];
  lastModified: Date | null;
}

/** The REST body of the zones operations (and the `zones_saved` event data, with accessoryId). */
export const zonesJson = (view: AccessoryZonesView) => ({
  zones: view.zones,
  lastModified: view.lastModified?.toISOString() ?? null,
});

export class ZoneService {
  constructor(
    private readonly db: Database,
    private readonly accessories: AccessoryService,
    private readonly signal: EventSignal,
  ) {}

  /** The zones of one of the account's accessories (404 for another account's). */
  async get(account: AccountView, accessoryId: string): Promise<AccessoryZonesView> {
    await this.accessories.owned(account.accountId, accessoryId);
    // One statement, so the zones and lastModified come from one snapshot.
    const { rows } = await this.db.pool.query<{
      lastModified: Date;
      zoneId: string | null;
      name: string;
      color: string;
      vertices: Vertex[];
    }>(
      `SELECT s.last_modified AS "lastModified", z.zone_id AS "zoneId", z.name, z.color, z.vertices
         FROM zone_sets s LEFT JOIN zones z ON z.accessory_id = s.accessory_id
        WHERE s.accessory_id = $1
        ORDER BY z.position`,
      [accessoryId],
    );
    return {
      accessoryId,
      lastModified: rows[0]?.lastModified ?? null,
      zones: rows
        .filter((row) => row.zoneId !== null)
        .map((row) => ({
          id: row.zoneId!,
          name: row.name,
          color: row.color,
          vertices: row.vertices,
        })),
    };
  }

  /**
   * Replaces the accessory's zones. lastModified becomes the time of the save (later than the
   * previous one, even across clock steps), and a `zones_saved` event for the accessory's
   * subscribers is written in the same transaction; it is not a webhook event type.
   */
  async save(
    account: AccountView,
    accessoryId: string,
    input: readonly ZoneInput[],
  ): Promise<AccessoryZonesView> {
    const accessory = await this.accessories.owned(account.accountId, accessoryId);
    const zones = checkZones(input);
    const { view, stored } = await this.db.prisma.$transaction(async (tx) => {
      // Serializes saves per accessory (and against ingest, which takes the same lock).
      const locked = await tx.$queryRaw<unknown[]>`
        SELECT 1 FROM accessories WHERE id = ${accessoryId}::uuid FOR UPDATE`;
      if (locked.length === 0) throw notFound('accessory');
      const previous = await tx.zoneSet.findUnique({ where: { accessoryId } });
      let lastModified = new Date();
      if (previous && lastModified <= previous.lastModified) {
        lastModified = new Date(previous.lastModified.getTime() + 1);
      }
      await tx.zoneSet.upsert({
        where: { accessoryId },
        create: { accessoryId, lastModified },
        update: { lastModified },
      });
      await tx.zone.deleteMany({ where: { accessoryId } });
      await tx.zone.createMany({
        data: zones.map((zone, position) => ({
          accessoryId,
          zoneId: zone.id,
          position,
          name: zone.name,
          color: zone.color,
          vertices: zone.vertices as unknown as object,
          cells: zone.cells,
        })),
      });
      const view: AccessoryZonesView = {
        accessoryId,
        lastModified,
        zones: zones.map(({ id, name, color, vertices }) => ({ id, name, color, vertices })),
      };
      const stored = await recordEvents(tx, [
        {
          accountId: accessory.accountId,
          accessoryId,
          eventType: 'zones_saved',
          eventData: { accessoryId, ...zonesJson(view) },
        },
      ]);
      return { view, stored };
    });
    this.signal.committed(stored);
    return view;
  }
}
