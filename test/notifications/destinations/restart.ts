/**
 * A broker restart during a backlog, for each broker kind (mqtt-restart.test.ts,
 * amqp-restart.test.ts, nats-restart.test.ts): a broker of the test's own (own-brokers.ts),
 * keeping what it holds on disk, is stopped and started again while the dispatcher drains
 * BROKER_BACKLOG notifications (2,000 by default; the figure is 20,000) into an inbox
 * that survives it (kinds.ts). The kind's example consumer, away while the backlog drains, must
 * then get every webhook-id, once after it drops repeats, and a receiver acting on each
 * activity's `sequence` (clipgate/receiver's ActivityOrderTracker) must end each activity at its
 * newest change. Skipped only where the broker's program is missing and the servers are not
 * required (CI, which runs it).
 */
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ActivityOrderTracker } from '../../../src/notifications/receiver.ts';
import { serversRequired, startApp, type TestApp } from '../../helpers/app.ts';
import { rest } from '../../helpers/client.ts';
import { seedAccessory } from '../../helpers/fixtures.ts';
import { harnesses, type BrokerKind, type Inbox, type Taken } from './kinds.ts';
import type { OwnBroker } from './own-brokers.ts';

export const BACKLOG = Number(process.env.BROKER_BACKLOG ?? 2000);
/** The activities the backlog's changes are spread over. */
const ACTIVITIES = 50;

export function describeBrokerRestart(
  kind: BrokerKind,
  /** The broker's program, undefined when this machine has none. */
  program: string | undefined,
  /** A broker of the test's own, not started yet. */
  ownBroker: () => Promise<OwnBroker>,
): void {
  const harness = harnesses[kind];
  const authKey = `${kind}-restart-key-0123456789`;
  const clientId = `${kind}-restart-client`;

  describe.skipIf(!program && !serversRequired)(`a ${kind} broker restarted mid-backlog`, () => {
    let t: TestApp;
    let broker: OwnBroker | undefined;
    let inbox: Inbox | undefined;
    const got: Taken[] = [];

    beforeAll(async () => {
      if (!program) throw new Error(`no ${kind} broker's program on this machine to run`);
      broker = await ownBroker();
      // The broker and the service start at once (a RabbitMQ node takes seconds).
      [t] = await Promise.all([
        startApp('pglite', {
          WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
          WEBHOOK_ALLOW_HTTP: 'true',
          // Attempts over 45 s: more than a broker's restart and the pool's back-off together.
          WEBHOOK_RETRY_DELAYS_MS: '500,1000,2000,4000,8000,10000,10000,10000',
        }),
        broker.start(),
      ]);
      const root = harness.root();
      inbox = await harness.inbox(broker.url, root, authKey);
      const seeded = await seedAccessory(t, `${kind}-restart-user`, `${kind}-restart-cam`);
      const token = await t.token(['notifications'], `${kind}-restart-user`, clientId);
      const put = await rest(t.url, token, 'PUT', '/api/accounts/self/notifications', {
        ...harness.destination(broker.url, root),
        authKey,
        eventTypes: ['activity_updated'],
      });
      expect(put.status, JSON.stringify(put.body)).toBe(200);
      // The backlog: activity_updated notifications of ACTIVITIES activities, each activity's
      // sequence rising in queue order, queued at once beside the registration's (as the outbox
      // queues them: its destination and keys copied).
      await t.app.services.db.pool.query(
        `INSERT INTO deliveries (kind, event_id, account_id, client_id, event_type, event_data,
                                 user_data, url, origin, auth_key, destination)
         SELECT 'event', 1000000000 + g, r.account_id, r.client_id, 'activity_updated',
                jsonb_build_object('accessoryId', $2::text, 'activityId', 'act' || (g % $3),
                                   'sequence', g / $3 + 1),
                r.user_data, r.url, r.origin, r.auth_key, r.destination
           FROM generate_series(0, $1 - 1) g, notification_registrations r
          WHERE r.client_id = $4
          ORDER BY g`,
        [BACKLOG, seeded.accessoryId, ACTIVITIES, clientId],
      );
    }, 120_000);
    afterAll(async () => {
      await inbox?.close().catch(() => {});
      await t?.close();
      await broker?.close();
    });

    it('delivers every notification once per webhook-id, each activity ending at its newest change', async () => {
      const states = async () => {
        const { rows } = await t.app.services.db.pool.query<{ state: string; n: string }>(
          `SELECT state, count(*) AS n FROM deliveries WHERE client_id = $1
            GROUP BY state ORDER BY state`,
          [clientId],
        );
        return Object.fromEntries(rows.map((r) => [r.state, Number(r.n)]));
      };
      let ended: Record<string, number> | undefined;
      const started = performance.now();
      await t.app.services.db.pool.query("SELECT pg_notify('clipgate_deliveries', 'test')");
      // The restart, once a part of the backlog got through.
      await vi.waitFor(
        async () => expect((await states()).delivered).toBeGreaterThan(BACKLOG / 10),
        { timeout: 60_000, interval: 5 },
      );
      await broker!.stop();
      const beforeRestart = (await states()).delivered!;
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const down = performance.now();
      await broker!.start();
      const up = performance.now();
      // Every one delivered; one that ended otherwise (discarded after its attempts) fails the
      // test at once.
      await vi.waitFor(
        async () => {
          const now = await states();
          if (Object.keys(now).some((state) => !['pending', 'delivered'].includes(state))) {
            ended = now;
            return;
          }
          expect(now).toEqual({ delivered: BACKLOG });
        },
        { timeout: 240_000, interval: 100 },
      );
      expect(ended, 'notifications ended undelivered').toBeUndefined();
      const drained = performance.now();
      expect(beforeRestart).toBeLessThan(BACKLOG);

      // The example consumer, back: every message the broker acknowledged waited for it.
      await inbox!.consume((taken) => got.push(taken));
      await vi.waitFor(() => expect(new Set(got.map((n) => n.webhookId)).size).toBe(BACKLOG), {
        timeout: 120_000,
        interval: 50,
      });
      expect(got).toHaveLength(BACKLOG); // the consumer dropped the repeats
      const consumed = performance.now();
      console.log(
        `${kind} restart, backlog ${BACKLOG}: ${beforeRestart} delivered before the stop; ` +
          `down ${((up - down) / 1000 + 1).toFixed(1)} s; drained in ` +
          `${((drained - started) / 1000).toFixed(1)} s; consumed in ` +
          `${((consumed - drained) / 1000).toFixed(1)} s`,
      );

      // A receiver acting on the highest sequence of each activity (docs/api.md, Ordering)
      // ends each at its newest change: nothing older is acted on after it.
      const tracker = new ActivityOrderTracker();
      const acted = new Map<string, number>();
      for (const n of got) {
        const notification = {
          eventType: n.eventType,
          eventData: { accessoryId: n.accessoryId, activityId: n.activityId, sequence: n.sequence },
        };
        if (tracker.accept(notification)) acted.set(n.activityId!, n.sequence!);
      }
      expect(acted.size).toBe(ACTIVITIES);
      for (const [id, sequence] of acted) {
        const newest = Math.ceil((BACKLOG - Number(id.slice(3))) / ACTIVITIES);
        expect([id, sequence]).toEqual([id, newest]);
      }
    }, 400_000);
  });
}
