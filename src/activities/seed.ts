import { randomUUID } from 'node:crypto';
import type { Database } from '../storage/database.ts';

export interface SeedOptions {
  subject: string;
  accessories: number;
  /** Activities per accessory. */
  activities: number;
  /** Seconds between two activities of one accessory; the newest ends about now. */
  spacingSeconds: number;
  retentionDays: number;
}

export interface SeedResult {
  accountId: string;
  accessoryIds: string[];
}

/**
 * Bulk-loads synthetic, finished activities with one INSERT ... SELECT per accessory, for demos
 * and benchmarks. Accessories are `seed-camera-<n>` of the subject's account; seeding again
 * skips ids that exist.
 */
export async function seedActivities(db: Database, o: SeedOptions): Promise<SeedResult> {
  const account = await db.prisma.account.upsert({
    where: { subject: o.subject },
    create: { id: randomUUID(), subject: o.subject, retentionDays: o.retentionDays },
    update: { retentionDays: o.retentionDays },
  });
  const accessoryIds: string[] = [];
  const now = new Date();
  for (let n = 1; n <= o.accessories; n++) {
    const deviceId = `seed-camera-${n}`;
    const accessory = await db.prisma.accessory.upsert({
      where: { accountId_deviceId: { accountId: account.id, deviceId } },
      create: { id: randomUUID(), accountId: account.id, deviceId, name: `Seed camera ${n}` },
      update: {},
    });
    accessoryIds.push(accessory.id);
    await db.pool.query(
      `INSERT INTO activities (accessory_id, account_id, activity_id, created_at, start_time, end_time,
                               playback_duration, relevance_level, motion_zones, object_locations)
       SELECT $1::uuid, $5::uuid, to_char(ts AT TIME ZONE 'UTC', 'YYYYMMDD"T"HH24MISS"Z"'), ts,
              ts + interval '1 second', ts + interval '21 seconds', 20000, i % 4,
              CASE i % 3 WHEN 0 THEN ARRAY['z1'] WHEN 1 THEN ARRAY['z2', 'z3'] ELSE ARRAY[]::text[] END,
              ARRAY[(i * 7) % 128, (i * 13) % 128]::smallint[]
         FROM (SELECT i, date_trunc('second', $2::timestamptz) - make_interval(secs => i * $3) AS ts
                 FROM generate_series(1, $4::int) AS i) AS s
       ON CONFLICT DO NOTHING`,
      [accessory.id, now.toISOString(), o.spacingSeconds, o.activities, account.id],
    );
  }
  return { accountId: account.id, accessoryIds };
}
