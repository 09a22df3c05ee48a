import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/clock.ts';
import { graphql } from '../generated/index.ts';
import { backends, startApp, type TestApp } from '../helpers/app.ts';
import { gql, rest } from '../helpers/client.ts';
import { CreateActivity, ok, seedAccessory } from '../helpers/fixtures.ts';
import { accountEvent, subscribe, waitFor, wsClient } from '../events/live-helpers.ts';
import {
  queuedDeliveries,
  register,
  SendTestNotification,
  sleep,
  startReceiver,
  accept,
  type Receiver,
  type Responder,
} from './helpers.ts';

const HealthOfRegistration = graphql(`
  query HealthOfRegistration($accountId: ID!) {
    notificationRegistration(accountId: $accountId) {
      maxPerSecond
      state
      failingSince
      disabledAt
      disabledReason
    }
  }
`);

const EnableNotifications = graphql(`
  mutation EnableNotifications($accountId: ID!) {
    enableNotifications(accountId: $accountId) {
      state
      failingSince
      disabledReason
    }
  }
`);

const RegistrationEvents = graphql(`
  subscription RegistrationEvents($accountId: ID!) {
    accountEvents(accountId: $accountId, eventTypes: [receiver_disabled, receiver_enabled]) {
      eventId
      accountId
      accessoryId
      eventType
      eventData
      occurredAt
    }
  }
`);

/** A clock the test moves by hand. */
class FakeClock implements Clock {
  #ms = Date.parse('2026-11-20T00:00:00Z');
  now(): Date {
    return new Date(this.#ms);
  }
  advanceHours(hours: number): void {
    this.#ms += hours * 3_600_000;
  }
}

const RATE = 5;
const COUNT = 41;

/**
 * Queues COUNT test notifications at once through `apps` in turn (each app's dispatcher may
 * send them) to a receiver allowed RATE per second, and checks they arrive at that rate within
 * 10 %, without bursts, and are all delivered.
 */
async function expectThrottled(
  apps: TestApp[],
  s: { token: string; accountId: string; rx: Receiver },
): Promise<void> {
  const sent = await Promise.all(
    Array.from({ length: COUNT }, (_, i) =>
      gql(apps[i % apps.length]!.url, s.token, SendTestNotification, { accountId: s.accountId }),
    ),
  );
  const allQueued = Date.now();
  expect(sent.every((r) => r.errors === undefined)).toBe(true);
  await s.rx.waitFor(() => s.rx.receipts.length >= COUNT, 'every notification', 40_000);
  const at = s.rx.receipts.map((r) => r.at).sort((a, b) => a - b);
  // The rate once everything is queued (before, queueing may be what is slower), over at least
  // two seconds' worth.
  const measuredAt = at.filter((v) => v >= allQueued);
  expect(measuredAt.length).toBeGreaterThan(2 * RATE);
  const measured = (measuredAt.length - 1) / ((measuredAt.at(-1)! - measuredAt[0]!) / 1000);
  expect(Math.abs(measured - RATE) / RATE, `measured ${measured}/s`).toBeLessThanOrEqual(0.1);
  // No burst anywhere: any 2 s worth of consecutive notifications spans about 2 s (the starts
  // are spaced exactly; arrivals carry the loaded machine's timer jitter).
  const spans = at.slice(2 * RATE).map((v, i) => v - at[i]!);
  expect(Math.min(...spans)).toBeGreaterThanOrEqual(0.75 * 2000);
  expect(new Set(s.rx.receipts.map((r) => r.webhookId)).size).toBe(COUNT);
  // Every one delivered (once its outcome is recorded), none dropped or discarded.
  let states: string[] = [];
  const until = Date.now() + 10_000;
  while (Date.now() < until) {
    states = (await queuedDeliveries(apps[0]!, s.accountId)).map((d) => d.state);
    if (states.every((state) => state === 'delivered')) break;
    await sleep(50);
  }
  expect(states).toEqual(Array(COUNT).fill('delivered'));
}

const webhookEnv = {
  WEBHOOK_ALLOW_HTTP: 'true',
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
  WEBHOOK_RETRY_DELAYS_MS: '10',
};

// Two instances on one PostgreSQL database share the registration's rate.
describe.skipIf(!process.env.TEST_DATABASE_URL)('receiver rate limit across instances', () => {
  it('holds the rate with two dispatchers sending', async () => {
    const secrets = { SECRETS_KEY: randomBytes(32).toString('base64') };
    const a = await startApp('postgres', { ...webhookEnv, ...secrets });
    const b = await startApp('postgres', {
      ...webhookEnv,
      ...secrets,
      DATABASE_URL: a.config.databaseUrl!,
    });
    const authKey = 'two-instances-receiver-key';
    const rx = await startReceiver(authKey);
    try {
      const { accountId } = await seedAccessory(a, 'rate-user', 'rate-cam');
      const token = await a.token(['notifications'], 'rate-user');
      await register(a, token, {
        url: rx.url,
        authKey,
        eventTypes: ['activity_created'],
        maxPerSecond: RATE,
      });
      await expectThrottled([a, b], { token, accountId, rx });
      const { rows } = await a.app.services.db.pool.query<{ instances: number }>(
        'SELECT count(DISTINCT instance_id)::int AS instances FROM delivery_attempts',
      );
      expect(rows[0]!.instances).toBe(2);
    } finally {
      await rx.close();
      await b.close();
      await a.close();
    }
  }, 60_000);
});

describe.each(backends)('receiver health on %s', (backend) => {
  let t: TestApp;
  const clock = new FakeClock();
  const receivers: Receiver[] = [];
  let subjects = 0;

  beforeAll(async () => {
    t = await startApp(backend, webhookEnv, () => {}, { clock });
  });
  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.close()));
    await t?.close();
  });

  async function setup(respond: Responder, maxPerSecond?: number) {
    const subject = `health-${++subjects}`;
    const seeded = await seedAccessory(t, subject, `cam-${subjects}`);
    const authKey = `key-of-${subject}-0123456789`;
    const rx = await startReceiver(authKey, respond);
    receivers.push(rx);
    const token = await t.token(['notifications'], subject);
    const registration = await register(t, token, {
      url: rx.url,
      authKey,
      eventTypes: ['activity_created'],
      ...(maxPerSecond !== undefined && { maxPerSecond }),
    });
    return { ...seeded, subject, authKey, rx, token, registration };
  }

  it('throttles a receiver to maxPerSecond within 10 %, dropping none', async () => {
    const s = await setup(accept, RATE);
    expect(s.registration).toMatchObject({ maxPerSecond: RATE, state: 'active' });
    await expectThrottled([t], s);
  }, 60_000);

  it('disables a receiver that failed every attempt for 72 hours, until enabled', async () => {
    let answer = 500;
    const s = await setup((_r, res) => void res.writeHead(answer).end());
    const path = `/api/accounts/${s.accountId}/notifications`;
    const reader = await t.token(['activities_basic'], s.subject);
    const ws = wsClient(t.url, `Bearer ${reader}`);
    const live = subscribe(ws.client, RegistrationEvents, { accountId: s.accountId }, accountEvent);
    const metric = async () => {
      const text = await (await fetch(`${t.url}/metrics`)).text();
      return Number(/^clipgate_webhook_receivers_disabled_total (\S+)$/m.exec(text)?.[1] ?? 0);
    };
    const disabledBefore = await metric();

    /** Sends a test notification and waits until its attempts are done. */
    const attempt = async (attempts: number) => {
      const before = s.rx.receipts.length;
      await gql(t.url, s.token, SendTestNotification, { accountId: s.accountId });
      await s.rx.waitFor(() => s.rx.receipts.length >= before + attempts, 'the attempts');
      await sleep(100); // the outcomes are recorded
    };
    const registration = async () => (await rest(t.url, s.token, 'GET', path)).body;

    const start = clock.now().toISOString();
    await attempt(2);
    expect(await registration()).toMatchObject({ state: 'active', failingSince: start });

    clock.advanceHours(71);
    await attempt(2);
    expect(await registration()).toMatchObject({ state: 'active', failingSince: start });

    clock.advanceHours(1);
    await attempt(1); // disabled at the first failure past 72 hours: its retry is dropped
    await waitFor(() => live.items.length === 1, 'receiver_disabled');
    const disabled = await registration();
    expect(disabled).toMatchObject({
      state: 'disabled',
      failingSince: start,
      disabledAt: clock.now().toISOString(),
    });
    expect(disabled.disabledReason).toMatch(/72 hours.*HTTP 500/);
    const viaGraphql = await gql(t.url, s.token, HealthOfRegistration, { accountId: s.accountId });
    expect(viaGraphql.data?.notificationRegistration).toMatchObject({
      state: 'disabled',
      disabledReason: disabled.disabledReason,
    });
    expect(live.items[0]).toMatchObject({
      eventType: 'receiver_disabled',
      accessoryId: null,
      eventData: {
        clientId: 'client-1',
        url: s.rx.url,
        failingSince: start,
        disabledAt: disabled.disabledAt,
        reason: disabled.disabledReason,
      },
    });
    expect(await metric()).toBe(disabledBefore + 1);

    // Disabled: events queue nothing for it.
    answer = 204;
    const create = () =>
      ok(t, s.ingest, CreateActivity, { accessoryId: s.accessoryId, input: {} }).then(
        (r) => r.createActivity.activityId,
      );
    await create();
    const created = async () =>
      (await queuedDeliveries(t, s.accountId)).filter((d) => d.event_type === 'activity_created');
    expect(await created()).toHaveLength(0);

    // Enabled again (GraphQL; REST has POST .../enable): failures forgotten, events sent.
    const enabled = await gql(t.url, s.token, EnableNotifications, { accountId: s.accountId });
    expect(enabled.data?.enableNotifications).toEqual({
      state: 'active',
      failingSince: null,
      disabledReason: null,
    });
    await waitFor(() => live.items.length === 2, 'receiver_enabled');
    expect(live.items[1]).toMatchObject({
      eventType: 'receiver_enabled',
      accessoryId: null,
      eventData: {
        clientId: 'client-1',
        url: s.rx.url,
        disabledAt: disabled.disabledAt,
        cause: 'enable',
      },
    });
    await create();
    await s.rx.waitFor(
      () => s.rx.receipts.some((r) => r.body?.eventType === 'activity_created'),
      'the activity notification',
    );
    // Enabling an active registration changes nothing, and tells nobody.
    const viaRest = await rest(t.url, s.token, 'POST', `${path}/enable`);
    expect(viaRest.status).toBe(200);
    expect(viaRest.body).toMatchObject({ state: 'active', failingSince: null });
    await sleep(300);
    expect(live.items.map((e) => e.eventType)).toEqual(['receiver_disabled', 'receiver_enabled']);
    await ws.dispose();
  });

  it('refuses a maxPerSecond that is not a whole number 1..1000', async () => {
    const s = await setup(accept);
    for (const maxPerSecond of [0, 1.5, 1001, '5']) {
      const res = await rest(t.url, s.token, 'PUT', '/api/accounts/self/notifications', {
        url: s.rx.url,
        authKey: s.authKey,
        eventTypes: ['activity_created'],
        maxPerSecond,
      });
      expect(res.status).toBe(400);
      expect(JSON.stringify(res.body)).toContain('maxPerSecond');
    }
  });
});
