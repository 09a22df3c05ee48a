import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ActivityOrderTracker } from '../../src/notifications/receiver.ts';
import { backends, startApp, type TestApp } from '../helpers/app.ts';
import { gql, rest } from '../helpers/client.ts';
import {
  AssociateAccessory,
  CreateActivity,
  FinishActivity,
  ok,
  seedAccessory,
} from '../helpers/fixtures.ts';
import {
  DeleteAccount,
  queuedDeliveries,
  register,
  ReportMotion,
  startReceiver,
  UpdateActivity,
  type Receiver,
} from './helpers.ts';

describe.each(backends)('filtered notifications on %s', (backend) => {
  let t: TestApp;
  let receivers: Receiver[] = [];

  beforeAll(async () => {
    t = await startApp(backend, {
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_TIMEOUT_MS: '1000',
      WEBHOOK_RETRY_DELAYS_MS: '50,100',
    });
  });
  afterEach(async () => {
    await Promise.all(receivers.map((r) => r.close()));
    receivers = [];
  });
  afterAll(() => t?.close());

  /** A receiver verifying the HMAC with its own key, registered for `client` of `subject`. */
  async function registered(
    subject: string,
    client: string,
    eventTypes: string[],
    filter?: string,
  ) {
    const authKey = `key-of-${subject}-${client}-0123456789`;
    const rx = await startReceiver(authKey);
    receivers.push(rx);
    const token = await t.token(['notifications_motion'], subject, client);
    const registration = await register(t, token, {
      url: rx.url,
      authKey,
      eventTypes,
      ...(filter !== undefined && { filter }),
    });
    return { rx, registration };
  }

  /** The account's event ids, oldest first. */
  async function eventIds(accountId: string): Promise<string[]> {
    const { rows } = await t.app.services.db.pool.query<{ id: string }>(
      'SELECT id::text AS id FROM events WHERE account_id = $1 ORDER BY id',
      [accountId],
    );
    return rows.map((row) => row.id);
  }

  const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000).toISOString();

  it('sends a filtered registration exactly the matching events, signed, while the rest go to others', async () => {
    const subject = 'filter-exact';
    const { ingest, accountId, accessoryId: a } = await seedAccessory(t, subject, 'cam-a');
    const { associateAccessory } = await ok(t, ingest, AssociateAccessory, {
      accountId,
      deviceId: 'cam-b',
      name: 'Camera B',
    });
    const b = associateAccessory.id;
    const types = ['activity_created', 'activity_updated', 'activity_finished', 'motion_started'];
    // Upper case on purpose: accessory ids match whatever their case.
    const filter = `accessoryId = "${a.toUpperCase()}" AND (relevanceLevel >= 2 OR contains(motionZones, "z2"))`;
    const filtered = await registered(subject, 'filtered', types, filter);
    expect(filtered.registration.filter).toBe(filter);
    const everything = await registered(subject, 'everything', types);

    const matching: boolean[] = [];
    const step = async (matches: boolean, run: () => Promise<unknown>) => {
      await run();
      matching.push(matches);
    };
    let activityId = '';
    await step(false, async () => {
      const created = await ok(t, ingest, CreateActivity, {
        accessoryId: a,
        input: { createdAt: minutesAgo(5), relevanceLevel: 1 },
      });
      activityId = created.createActivity.activityId;
    });
    await step(true, () =>
      ok(t, ingest, UpdateActivity, { accessoryId: a, activityId, input: { relevanceLevel: 3 } }),
    );
    await step(true, () =>
      ok(t, ingest, FinishActivity, { accessoryId: a, activityId, endTime: minutesAgo(4) }),
    );
    await step(false, () =>
      ok(t, ingest, CreateActivity, { accessoryId: b, input: { relevanceLevel: 3 } }),
    );
    const motion = (accessoryId: string, zone: string) => () =>
      ok(t, ingest, ReportMotion, { accessoryId, state: 'started', motionZones: [zone] });
    await step(true, motion(a, 'z2'));
    await step(false, motion(a, 'z1'));
    await step(false, motion(b, 'z2'));
    await step(true, () =>
      ok(t, ingest, CreateActivity, { accessoryId: a, input: { relevanceLevel: 2 } }),
    );

    const ids = await eventIds(accountId);
    expect(ids).toHaveLength(matching.length);
    const expected = ids.filter((_, i) => matching[i]);
    // The outbox queued nothing for the events that do not match.
    const queued = (await queuedDeliveries(t, accountId)).sort(
      (x, y) => Number(x.id) - Number(y.id),
    );
    expect(queued.filter((d) => d.client_id === 'filtered').map((d) => d.event_type)).toEqual([
      'activity_updated',
      'activity_finished',
      'motion_started',
      'activity_created',
    ]);
    expect(queued.filter((d) => d.client_id === 'everything')).toHaveLength(ids.length);

    // account_deleted passes every filter.
    const admin = await t.token(['admin'], 'an-admin');
    expect((await gql(t.url, admin, DeleteAccount, { accountId })).errors).toBeUndefined();
    const all = [...(await eventIds(accountId))];
    expect(all).toHaveLength(ids.length + 1);
    const deleted = all.at(-1)!;

    await everything.rx.waitFor(() => everything.rx.receipts.length >= all.length, 'every event');
    await filtered.rx.waitFor(
      () => filtered.rx.receipts.length >= expected.length + 1,
      'the matching events',
    );
    const received = filtered.rx.receipts;
    expect(received.every((r) => r.standard && r.vendor)).toBe(true);
    expect(received.map((r) => r.webhookId).sort()).toEqual([...expected, deleted].sort());
    expect(received.find((r) => r.webhookId === deleted)!.body.eventType).toBe('account_deleted');

    // The receiver helper's tracker takes them in order, and drops an update that comes late.
    const tracker = new ActivityOrderTracker();
    const inOrder = [...received].sort((x, y) => Number(x.webhookId) - Number(y.webhookId));
    expect(inOrder.map((r) => tracker.accept(r.body))).toEqual(inOrder.map(() => true));
    const update = inOrder.find((r) => r.body.eventType === 'activity_updated')!;
    expect(update.body.eventData).toMatchObject({ activityId, sequence: 2 });
    expect(tracker.accept(update.body)).toBe(false);
  });

  it('answers zone conditions by the zones-and-time rule, as listing does', async () => {
    const subject = 'filter-zones';
    const { ingest, accountId, accessoryId } = await seedAccessory(t, subject, 'cam-z');
    const { rx } = await registered(
      subject,
      'zoned',
      ['activity_created', 'activity_updated'],
      'contains(motionZones, "z1")',
    );
    const created = await ok(t, ingest, CreateActivity, {
      accessoryId,
      input: { createdAt: minutesAgo(10), motionZones: [], objectLocations: [] },
    });
    const old = created.createActivity.activityId;
    const editor = await t.token(['zones'], subject);
    const leftHalf = [
      { x: 0, y: 0 },
      { x: 0.5, y: 0 },
      { x: 0.5, y: 1 },
      { x: 0, y: 1 },
    ];
    const saved = await rest(t.url, editor, 'PUT', `/api/accessories/${accessoryId}/zones`, {
      zones: [{ id: 'z1', name: 'Left', color: '#ff8800', vertices: leftHalf }],
    });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    const update = (activityId: string, input: object) =>
      ok(t, ingest, UpdateActivity, { accessoryId, activityId, input });
    // Started before the save: its object locations decide (cell 0 is top-left, 15 top-right).
    await update(old, { objectLocations: [0] });
    await update(old, { objectLocations: [15], motionZones: ['z1'] });
    // Started after: its motionZones decide.
    const fresh = await ok(t, ingest, CreateActivity, {
      accessoryId,
      input: { motionZones: ['z1'], objectLocations: [15] },
    });
    await update(fresh.createActivity.activityId, { motionZones: [], objectLocations: [0] });

    const { rows } = await t.app.services.db.pool.query<{
      event_type: string;
      event_data: { activityId: string; sequence: number };
    }>(
      `SELECT e.event_type, e.event_data FROM deliveries d JOIN events e ON e.id = d.event_id
        WHERE d.account_id = $1 ORDER BY d.id`,
      [accountId],
    );
    expect(rows.map((r) => [r.event_type, r.event_data.activityId, r.event_data.sequence])).toEqual(
      [
        ['activity_updated', old, 2],
        ['activity_created', fresh.createActivity.activityId, 1],
      ],
    );
    await rx.waitFor(() => rx.receipts.length >= 2, 'the two matching events');
    expect(rx.receipts.every((r) => r.standard && r.vendor)).toBe(true);
  });
});
