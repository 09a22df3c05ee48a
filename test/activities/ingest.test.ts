import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graphql } from '../generated/index.ts';
import { backends, startApp, type TestApp } from '../helpers/app.ts';
import { gql, rest } from '../helpers/client.ts';
import {
  AssociateAccessory,
  CreateActivity,
  FinishActivity,
  ok,
  seedAccessory,
  UpsertAccount,
} from '../helpers/fixtures.ts';

const UpdateActivity = graphql(`
  mutation UpdateActivity($accessoryId: ID!, $activityId: String!, $input: UpdateActivityInput!) {
    updateActivity(accessoryId: $accessoryId, activityId: $activityId, input: $input) {
      activityId
      relevanceLevel
      motionZones
      objectLocations
    }
  }
`);

const errorCode = (res: { errors?: { extensions?: { code?: string } }[] }) =>
  res.errors?.[0]?.extensions?.code;

describe.each(backends)('ingest on %s', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp(backend);
  });
  afterAll(() => t.close());

  async function events(accessoryId: string) {
    const { rows } = await t.app.services.db.pool.query<{
      event_type: string;
      event_data: { activityId: string };
    }>('SELECT event_type, event_data FROM events WHERE accessory_id = $1 ORDER BY id', [
      accessoryId,
    ]);
    return rows.map((r) => `${r.event_type}:${r.event_data.activityId}`);
  }

  it('takes ids from the creation second, bumped to the next free second', async () => {
    const { ingest, accessoryId } = await seedAccessory(t, 'ids-user', 'cam-ids');
    const at = new Date(Date.now() - 3_600_000);
    at.setUTCMilliseconds(100);
    const create = (createdAt: Date) =>
      ok(t, ingest, CreateActivity, { accessoryId, input: { createdAt: createdAt.toISOString() } });
    const a = await create(at);
    const b = await create(new Date(at.getTime() + 500));
    const c = await create(new Date(at.getTime() + 800));
    const base = at.toISOString().slice(0, 19).replace(/[-:]/g, '');
    const plus = (s: number) =>
      new Date(at.getTime() + s * 1000).toISOString().slice(0, 19).replace(/[-:]/g, '') + 'Z';
    expect([a, b, c].map((x) => x.createActivity.activityId)).toEqual([
      `${base}Z`,
      plus(1),
      plus(2),
    ]);

    // Older than the newest: a conflict.
    const stale = await gql(t.url, ingest, CreateActivity, {
      accessoryId,
      input: { createdAt: new Date(at.getTime() - 1000).toISOString() },
    });
    expect(errorCode(stale)).toBe('CONFLICT');

    // Each creation finished the previous activity.
    expect(await events(accessoryId)).toEqual([
      `activity_created:${base}Z`,
      `activity_finished:${base}Z`,
      `activity_created:${plus(1)}`,
      `activity_finished:${plus(1)}`,
      `activity_created:${plus(2)}`,
    ]);
  });

  it('lets only the newest activity change', async () => {
    const { ingest, accessoryId } = await seedAccessory(t, 'newest-user', 'cam-newest');
    const t0 = Date.now() - 600_000;
    const first = await ok(t, ingest, CreateActivity, {
      accessoryId,
      input: { createdAt: new Date(t0).toISOString() },
    });
    const second = await ok(t, ingest, CreateActivity, {
      accessoryId,
      input: { createdAt: new Date(t0 + 5000).toISOString() },
    });
    const oldId = first.createActivity.activityId;
    const newId = second.createActivity.activityId;

    const old = await gql(t.url, ingest, UpdateActivity, {
      accessoryId,
      activityId: oldId,
      input: { relevanceLevel: 3 },
    });
    expect(errorCode(old)).toBe('CONFLICT');
    const unknown = await gql(t.url, ingest, UpdateActivity, {
      accessoryId,
      activityId: '20000101T000000Z',
      input: {},
    });
    expect(errorCode(unknown)).toBe('NOT_FOUND');

    const updated = await ok(t, ingest, UpdateActivity, {
      accessoryId,
      activityId: newId,
      input: { relevanceLevel: 2, motionZones: ['z1', 'z3'], objectLocations: [0, 17, 127] },
    });
    expect(updated.updateActivity).toEqual({
      activityId: newId,
      relevanceLevel: 2,
      motionZones: ['z1', 'z3'],
      objectLocations: [0, 17, 127],
    });

    const bad = await gql(t.url, ingest, UpdateActivity, {
      accessoryId,
      activityId: newId,
      input: { objectLocations: [128] },
    });
    expect(bad.errors?.[0]?.extensions).toMatchObject({
      code: 'INVALID_ARGUMENT',
      details: { field: 'objectLocations' },
    });

    const early = await gql(t.url, ingest, FinishActivity, {
      accessoryId,
      activityId: newId,
      endTime: new Date(t0).toISOString(),
    });
    expect(early.errors?.[0]?.extensions).toMatchObject({
      code: 'INVALID_ARGUMENT',
      details: { field: 'endTime' },
    });
    const end = new Date(t0 + 65_000).toISOString();
    const done = await ok(t, ingest, FinishActivity, {
      accessoryId,
      activityId: newId,
      endTime: end,
    });
    expect(done.finishActivity.playbackDuration).toBe(60_000);
    const again = await gql(t.url, ingest, FinishActivity, {
      accessoryId,
      activityId: newId,
      endTime: end,
    });
    expect(errorCode(again)).toBe('CONFLICT');

    expect(await events(accessoryId)).toEqual([
      `activity_created:${oldId}`,
      `activity_finished:${oldId}`,
      `activity_created:${newId}`,
      `activity_updated:${newId}`,
      `activity_finished:${newId}`,
    ]);
  });

  it('keeps accessory ids per device and account', async () => {
    const ingest = await t.token(['ingest']);
    const a = (await ok(t, ingest, UpsertAccount, { subject: 'acc-a' })).upsertAccount.accountId;
    const b = (await ok(t, ingest, UpsertAccount, { subject: 'acc-b' })).upsertAccount.accountId;
    const again = (await ok(t, ingest, UpsertAccount, { subject: 'acc-a' })).upsertAccount
      .accountId;
    expect(again).toBe(a);
    const associate = async (accountId: string) =>
      (await ok(t, ingest, AssociateAccessory, { accountId, deviceId: 'dev-42', name: 'Porch' }))
        .associateAccessory.id;
    const first = await associate(a);
    expect(await associate(a)).toBe(first);
    const other = await associate(b);
    expect(other).not.toBe(first);
    expect(first).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('requires the ingest scope', async () => {
    const reader = await t.token(['activities_basic']);
    const res = await gql(t.url, reader, UpsertAccount, { subject: 'x' });
    expect(res.errors?.[0]?.extensions).toMatchObject({ code: 'PERMISSION_DENIED' });
    expect(res.errors?.[0]?.message).toContain('service:ingest');
  });

  it('stays consistent under concurrent ingest and reads', async () => {
    const { ingest, accessoryId } = await seedAccessory(t, 'busy-user', 'cam-busy');
    const reader = await t.token(['activities_basic'], 'busy-user');
    const at = new Date(Date.now() - 120_000).toISOString();
    const results = await Promise.all([
      ...Array.from({ length: 20 }, () =>
        gql(t.url, ingest, CreateActivity, { accessoryId, input: { createdAt: at } }),
      ),
      ...Array.from({ length: 20 }, () =>
        rest(t.url, reader, 'POST', `/api/accessories/${accessoryId}/activities`, { limit: 100 }),
      ),
    ]);
    const created = results.slice(0, 20).map((r) => {
      const res = r as Awaited<ReturnType<typeof gql>>;
      expect(res.errors).toBeUndefined();
      return (res.data as { createActivity: { activityId: string } }).createActivity.activityId;
    });
    for (const r of results.slice(20)) expect((r as { status: number }).status).toBe(200);
    const sorted = [...created].sort();
    expect(new Set(created).size).toBe(20);
    const seconds = sorted.map((id) =>
      Date.parse(id.replace(/(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z/, '$1-$2-$3T$4:$5:$6Z')),
    );
    expect(seconds.at(-1)! - seconds[0]!).toBe(19_000);
    const list = await rest(t.url, reader, 'POST', `/api/accessories/${accessoryId}/activities`, {
      limit: 100,
    });
    expect(list.body.activities.map((a: { activityId: string }) => a.activityId)).toEqual(
      sorted.reverse(),
    );
    expect(list.body.activities.filter((a: { inProgress: boolean }) => a.inProgress)).toHaveLength(
      1,
    );
  });
});
