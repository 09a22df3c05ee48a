import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends, startApp, type TestApp } from '../helpers/app.ts';
import { CreateActivity, FinishActivity, ok, seedAccessory } from '../helpers/fixtures.ts';
import { UpdateActivity } from '../notifications/helpers.ts';

// Each instance plans a change on the newest activity as it last saw it; the write checks that
// version under the accessory's row lock, so a stale view is planned anew, never written.
describe.runIf(backends.includes('postgres'))('ingest from two instances on one database', () => {
  let a: TestApp;
  let b: TestApp;

  beforeAll(async () => {
    a = await startApp('postgres');
    b = await startApp('postgres', { DATABASE_URL: a.config.databaseUrl! });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('alternating creates finish each previous activity, with increasing ids', async () => {
    const s = await seedAccessory(a, 'two-instances', 'cam');
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const t = i % 2 === 0 ? a : b;
      const created = await ok(t, s.ingest, CreateActivity, {
        accessoryId: s.accessoryId,
        input: { relevanceLevel: i },
      });
      ids.push(created.createActivity.activityId);
    }
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    // B last saw the fifth activity; A created the sixth, so B's finish of the fifth is a 409.
    const stale = await b.app.services.activities
      .finish(s.accessoryId, ids[4]!, new Date())
      .catch((err: unknown) => err);
    expect(stale).toMatchObject({ code: 'CONFLICT' });
    const finished = await ok(b, s.ingest, FinishActivity, {
      accessoryId: s.accessoryId,
      activityId: ids[5]!,
      endTime: new Date(Date.now() + 1000).toISOString(),
    });
    expect(finished.finishActivity.activityId).toBe(ids[5]);
    const { rows } = await a.app.services.db.pool.query<{ running: number }>(
      'SELECT count(*)::int AS running FROM activities WHERE accessory_id = $1 AND end_time IS NULL',
      [s.accessoryId],
    );
    expect(rows[0]!.running).toBe(0);
  });

  it('judges a change again on the stored head before refusing it on a cached one', async () => {
    // Found by the chaos run: A still held its own activity as the newest, so it answered 404
    // for the activity B had created since, without asking the database.
    const s = await seedAccessory(a, 'stale-refusal', 'cam');
    await ok(a, s.ingest, CreateActivity, { accessoryId: s.accessoryId, input: {} });
    const newer = await ok(b, s.ingest, CreateActivity, { accessoryId: s.accessoryId, input: {} });
    const updated = await ok(a, s.ingest, UpdateActivity, {
      accessoryId: s.accessoryId,
      activityId: newer.createActivity.activityId,
      input: { relevanceLevel: 4 },
    });
    expect(updated.updateActivity).toMatchObject({
      activityId: newer.createActivity.activityId,
      relevanceLevel: 4,
    });
  });
});
