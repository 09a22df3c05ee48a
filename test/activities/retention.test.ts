import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { purgeExpiredActivities } from '../../src/activities/retention.ts';
import { graphql } from '../generated/index.ts';
import { backends, startApp, type TestApp } from '../helpers/app.ts';
import { gql, rest } from '../helpers/client.ts';
import { AssociateAccessory, CreateActivity, ok, UpsertAccount } from '../helpers/fixtures.ts';

const SetRetention = graphql(`
  mutation SetRetention($accountId: ID!, $retentionDays: Int!) {
    setRetention(accountId: $accountId, retentionDays: $retentionDays) {
      retentionDays
    }
  }
`);

describe.each(backends)('retention on %s', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp(backend, { RETENTION_SWEEP_MS: '200' });
  });
  afterAll(() => t.close());

  it('never returns activities past the window, and drops their day once past every window', async () => {
    const ingest = await t.token(['ingest']);
    const admin = await t.token(['admin']);
    const reader = await t.token(['activities_basic'], 'retained');
    const { upsertAccount } = await ok(t, ingest, UpsertAccount, {
      subject: 'retained',
      retentionDays: 10,
    });
    const accountId = upsertAccount.accountId;
    const { associateAccessory } = await ok(t, ingest, AssociateAccessory, {
      accountId,
      deviceId: 'cam',
      name: 'Cam',
    });
    const accessoryId = associateAccessory.id;
    const create = async (agoMs: number) =>
      (
        await ok(t, ingest, CreateActivity, {
          accessoryId,
          input: { createdAt: new Date(Date.now() - agoMs).toISOString() },
        })
      ).createActivity.activityId;
    const oldId = await create(3 * 86_400_000);
    const newId = await create(0);
    const list = async () =>
      (
        await rest(t.url, reader, 'POST', `/api/accessories/${accessoryId}/activities`, {})
      ).body.activities.map((a: { activityId: string }) => a.activityId);
    const stored = async () =>
      (
        await t.app.services.db.pool.query(
          'SELECT 1 FROM activities WHERE accessory_id = $1 AND activity_id = $2',
          [accessoryId, oldId],
        )
      ).rowCount;

    expect(await list()).toEqual([newId, oldId]);

    await ok(t, admin, SetRetention, { accountId, retentionDays: 1 });
    expect(await list()).toEqual([newId]);
    expect(
      (await rest(t.url, reader, 'GET', `/api/accessories/${accessoryId}/activities/${oldId}`))
        .status,
    ).toBe(404);
    const before = await rest(t.url, reader, 'POST', `/api/accessories/${accessoryId}/activities`, {
      startActivityId: oldId,
      operator: '>=',
    });
    expect(before.status).toBe(400);
    expect(before.body.error.details.field).toBe('startActivityId');

    // The row stays stored, hidden, until its whole day is past every account's window; then
    // the day's partition goes. At the next midnight the days before today are past a 1-day
    // window; today's (holding newId) is not.
    expect(await stored()).toBe(1);
    const midnight = new Date((Math.floor(Date.now() / 86_400_000) + 1) * 86_400_000);
    expect(await purgeExpiredActivities(t.app.services.db, midnight)).toBeGreaterThanOrEqual(1);
    expect(await stored()).toBe(0);
    await ok(t, admin, SetRetention, { accountId, retentionDays: 10 });
    expect(await list()).toEqual([newId]);
  });

  it('checks the retention values and scopes', async () => {
    const admin = await t.token(['admin']);
    const ingest = await t.token(['ingest']);
    const bad = await gql(t.url, ingest, UpsertAccount, { subject: 'r2', retentionDays: 0 });
    expect(bad.errors?.[0]?.extensions).toMatchObject({
      code: 'INVALID_ARGUMENT',
      details: { field: 'retentionDays' },
    });
    const { upsertAccount } = await ok(t, ingest, UpsertAccount, { subject: 'r2' });
    expect(upsertAccount.retentionDays).toBe(30);
    const denied = await gql(t.url, ingest, SetRetention, {
      accountId: upsertAccount.accountId,
      retentionDays: 5,
    });
    expect(denied.errors?.[0]?.extensions?.code).toBe('PERMISSION_DENIED');
    const missing = await gql(t.url, admin, SetRetention, {
      accountId: crypto.randomUUID(),
      retentionDays: 5,
    });
    expect(missing.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
  });
});
