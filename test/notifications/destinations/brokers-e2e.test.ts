/**
 * The amqp and nats destinations end to end, the same tests for each kind (kinds.ts): registered
 * over REST and over GraphQL, an activity's notification and a test notification published by the
 * service's dispatcher, a redelivery and a replay of a range, each taken by the kind's example
 * consumer (examples/amqp-consumer.ts, examples/nats-consumer.ts), which verifies its signature
 * with `clipgate/receiver` and drops repeats by webhook-id. MQTT's are in mqtt.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { backends, startApp, type TestApp } from '../../helpers/app.ts';
import { brokerUrl } from '../../helpers/brokers.ts';
import { gql, rest } from '../../helpers/client.ts';
import { CreateActivity, ok, seedAccessory } from '../../helpers/fixtures.ts';
import { NotificationDeliveries, RedeliverNotification, SendTestNotification } from '../helpers.ts';
import { closedPort } from './helpers.ts';
import {
  harnesses,
  RegisterDestination,
  ReplayRange,
  type Destination,
  type Inbox,
  type Taken,
} from './kinds.ts';

const PATH = '/api/accounts/self/notifications';
const authKey = 'broker-destination-key-0123456789';

for (const kind of ['amqp', 'nats'] as const) {
  const url = brokerUrl(kind);
  const harness = harnesses[kind];

  describe.skipIf(!url).each(backends)(`${kind} destinations on %s`, (backend) => {
    let t: TestApp;
    let token: string;
    let seeded: Awaited<ReturnType<typeof seedAccessory>>;
    let inbox: Inbox;
    let destination: Destination;
    const root = harness.root();
    const taken: Taken[] = [];

    const takenFor = (webhookId: string) => taken.filter((n) => n.webhookId === webhookId);
    const deliveries = async () =>
      (
        await ok(t, token, NotificationDeliveries, { accountId: seeded.accountId, first: 30 })
      ).notificationDeliveries!.edges.map((e) => e.node);
    /** What a registration answers of where it sends: the destination, never its password. */
    const answered = (d: Destination) => ({
      kind: d.kind,
      url: d.url,
      topic: d.topic,
      exchange: d.exchange ?? null,
      hasCredentials: d.username !== undefined,
    });
    /** Waits until the delivery `id` is recorded delivered (after the broker's receipt). */
    const delivered = (id: string) =>
      vi.waitFor(
        async () => expect((await deliveries()).find((d) => d.id === id)?.status).toBe('delivered'),
        { timeout: 5_000, interval: 50 },
      );
    const createActivity = async () =>
      (
        await ok(t, seeded.ingest, CreateActivity, {
          accessoryId: seeded.accessoryId,
          input: { relevanceLevel: 1 },
        })
      ).createActivity;

    beforeAll(async () => {
      t = await startApp(backend, {
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        WEBHOOK_ALLOW_HTTP: 'true',
        WEBHOOK_RETRY_DELAYS_MS: '50,50',
        WEBHOOK_TIMEOUT_MS: '2000',
      });
      seeded = await seedAccessory(t, `${kind}-user`, `${kind}-cam`);
      token = await t.token(['notifications'], `${kind}-user`, `${kind}-client`);
      destination = harness.destination(url!, root);
      inbox = await harness.inbox(url!, root, authKey);
      await inbox.consume((n) => taken.push(n));
    });
    afterAll(async () => {
      await inbox?.close();
      await t?.close();
    });

    it('registers over REST; an activity notification reaches the example consumer verified; credentials never returned', async () => {
      const put = await rest(t.url, token, 'PUT', PATH, {
        ...destination,
        authKey,
        eventTypes: ['activity_created'],
      });
      expect(put.status, JSON.stringify(put.body)).toBe(200);
      const get = await rest(t.url, token, 'GET', PATH);
      for (const answer of [put.body, get.body]) {
        expect(answer).toMatchObject(answered(destination));
        expect(answer).not.toHaveProperty('username');
        expect(answer).not.toHaveProperty('password');
        if (destination.password)
          expect(JSON.stringify(answer)).not.toContain(destination.password);
      }

      const { activityId } = await createActivity();
      await vi.waitFor(() => expect(taken).toHaveLength(1), { timeout: 10_000, interval: 20 });
      expect(taken[0]).toMatchObject({
        accountId: seeded.accountId,
        eventType: 'activity_created',
        accessoryId: seeded.accessoryId,
        activityId,
        sequence: 1,
      });
      await vi.waitFor(
        async () => {
          const [node] = await deliveries();
          expect(node).toMatchObject({
            webhookId: taken[0]!.webhookId,
            status: 'delivered',
            url: destination.url,
          });
          expect(node!.attempts[0]).toMatchObject({ outcome: 'accepted', status: null });
        },
        { timeout: 5_000, interval: 50 },
      );
    });

    it('registers over GraphQL; a test notification reaches the example consumer, of no accessory', async () => {
      const graphqlRoot = `${root}.graphql`;
      const registered = harness.destination(url!, graphqlRoot);
      const { registerNotifications } = await ok(t, token, RegisterDestination, {
        input: {
          accountId: seeded.accountId,
          ...registered,
          authKey,
          eventTypes: ['activity_created'],
        },
      });
      expect(registerNotifications).toEqual(answered(registered));
      const { sendTestNotification } = await ok(t, token, SendTestNotification, {
        accountId: seeded.accountId,
      });
      await vi.waitFor(() => expect(takenFor(sendTestNotification.webhookId)).toHaveLength(1), {
        timeout: 10_000,
        interval: 20,
      });
      expect(takenFor(sendTestNotification.webhookId)[0]).toMatchObject({
        accountId: seeded.accountId,
        eventType: 'test_notification',
        accessoryId: null,
      });
      // Recorded after the receipt: the next registration leaves it alone (one saved while a
      // delivery is pending retargets it).
      await delivered(sendTestNotification.id);
    });

    it('a redelivery and a replay of a range reach the example consumer; a replayed repeat is dropped', async () => {
      // A broker that refuses: both notifications are discarded after their attempts.
      const refusing = harness.at(await closedPort());
      const put = await rest(t.url, token, 'PUT', PATH, {
        ...destination,
        url: refusing,
        authKey,
        eventTypes: ['activity_created'],
      });
      expect(put.status, JSON.stringify(put.body)).toBe(200);
      const first = await createActivity();
      const second = await createActivity();
      const before = taken.length;
      let failed: Awaited<ReturnType<typeof deliveries>> = [];
      await vi.waitFor(
        async () => {
          failed = (await deliveries()).filter((d) => d.url === refusing).reverse();
          expect(failed.map((d) => d.status)).toEqual(['discarded', 'discarded']);
        },
        { timeout: 10_000, interval: 50 },
      );
      expect(failed.map((d) => (d.eventData as { activityId: string }).activityId)).toEqual([
        first.activityId,
        second.activityId,
      ]);
      for (const attempt of failed.flatMap((d) => d.attempts)) {
        expect(attempt).toMatchObject({ outcome: 'failed', status: null, error: 'connect' });
      }
      expect(taken).toHaveLength(before);

      // Registered at the broker that works again (over GraphQL): the redelivery goes there.
      await ok(t, token, RegisterDestination, {
        input: {
          accountId: seeded.accountId,
          ...destination,
          authKey,
          eventTypes: ['activity_created'],
        },
      });
      const [one, two] = failed as [(typeof failed)[number], (typeof failed)[number]];
      const redelivered = await gql(t.url, token, RedeliverNotification, { deliveryId: one.id });
      expect(redelivered.errors).toBeUndefined();
      await vi.waitFor(() => expect(takenFor(one.webhookId)).toHaveLength(1), {
        timeout: 10_000,
        interval: 20,
      });
      expect(takenFor(one.webhookId)[0]).toMatchObject({ activityId: first.activityId });
      await delivered(one.id);

      // A replay of the range, of what failed only: the other one, with its webhook-id.
      const range = {
        accountId: seeded.accountId,
        from: one.createdAt,
        to: new Date().toISOString(),
      };
      const onlyFailed = await ok(t, token, ReplayRange, { ...range, onlyFailed: true });
      expect(onlyFailed.replayNotifications.queued).toBe(1);
      await vi.waitFor(() => expect(takenFor(two.webhookId)).toHaveLength(1), {
        timeout: 10_000,
        interval: 20,
      });
      expect(takenFor(two.webhookId)[0]).toMatchObject({ activityId: second.activityId });
      // Recorded: a replay leaves a pending one alone.
      await vi.waitFor(
        async () => {
          const replayed = (await deliveries()).filter(
            (d) => d.webhookId === two.webhookId && d.id !== two.id,
          );
          expect(replayed.map((d) => d.status)).toEqual(['delivered']);
        },
        { timeout: 5_000, interval: 50 },
      );

      // The whole range again: published with the same webhook-ids, each a repeat the consumer
      // drops (or the NATS stream does, within its duplicate window).
      const whole = await ok(t, token, ReplayRange, range);
      expect(whole.replayNotifications.queued).toBe(2);
      await vi.waitFor(
        async () => {
          const replays = (await deliveries()).filter(
            (d) => [one.webhookId, two.webhookId].includes(d.webhookId) && d.id !== two.id,
          );
          // The redelivered one, the replay of the other, and the two of the whole range.
          expect(replays.map((d) => d.status)).toEqual(Array(4).fill('delivered'));
        },
        { timeout: 10_000, interval: 50 },
      );
      expect(takenFor(one.webhookId)).toHaveLength(1);
      expect(takenFor(two.webhookId)).toHaveLength(1);
      expect(taken).toHaveLength(before + 2);
    });
  });
}
