/**
 * A broker restart during a backlog: a Mosquitto of the test's own (MOSQUITTO_PATH, else the
 * PATH's), persisting what it holds, is stopped and started again while the dispatcher drains
 * BROKER_BACKLOG notifications (2,000 by default). The example subscriber, on a persistent
 * session, must then get every webhook-id, once after it drops repeats, and each activity's
 * newest change.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { mqttSubscriber, type Automation } from '../../../examples/mqtt-subscriber.ts';
import { serversRequired, startApp, type TestApp } from '../../helpers/app.ts';
import { rest } from '../../helpers/client.ts';
import { seedAccessory } from '../../helpers/fixtures.ts';
import { closedPort, listening } from './helpers.ts';

const mosquitto = process.env.MOSQUITTO_PATH ?? 'mosquitto';
const hasMosquitto = spawnSync(mosquitto, ['-h']).error === undefined;
const BACKLOG = Number(process.env.BROKER_BACKLOG ?? 2000);
/** The activities the backlog's changes are spread over. */
const ACTIVITIES = 50;
const authKey = 'mqtt-restart-key-0123456789';

describe.skipIf(!hasMosquitto && !serversRequired)('an MQTT broker restarted mid-backlog', () => {
  let t: TestApp;
  let dir: string;
  let port: number;
  let broker: ChildProcess | undefined;
  let subscriber: MqttClient;
  const got: Automation[] = [];

  const startBroker = async () => {
    broker = spawn(mosquitto, ['-c', path.join(dir, 'mosquitto.conf')], { stdio: 'ignore' });
    await listening(port);
  };
  const stopBroker = async () => {
    const exited = new Promise((resolve) => broker!.once('exit', resolve));
    broker!.kill('SIGTERM'); // it saves what it holds to its persistence file first
    await exited;
  };

  /** The example subscriber on a persistent session: what is published while it is away waits. */
  const subscribe = () =>
    mqttSubscriber(
      {
        url: `mqtt://127.0.0.1:${port}`,
        topic: 'clipgate/#',
        authKey,
        clientId: 'clipgate-restart-test',
        clean: false,
        properties: { sessionExpiryInterval: 600 },
      },
      (automation) => got.push(automation),
    );
  /** The webhook-ids the subscribers got (each drops its own repeats; these are all of them). */
  const received = () => new Set(got.map((a) => a.event_data.webhook_id)).size;

  beforeAll(async () => {
    if (!hasMosquitto) throw new Error(`no ${mosquitto} to run (MOSQUITTO_PATH names one)`);
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'clipgate-mosquitto-'));
    await fs.chmod(dir, 0o777); // started as root, Mosquitto runs as its own user
    port = await closedPort();
    await fs.writeFile(
      path.join(dir, 'mosquitto.conf'),
      [
        `listener ${port} 127.0.0.1`,
        'allow_anonymous true',
        'persistence true',
        `persistence_location ${dir}/`,
        'max_queued_messages 0', // what waits for the subscriber is never dropped
        '',
      ].join('\n'),
    );
    await startBroker();
    t = await startApp('pglite', {
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_RETRY_DELAYS_MS: '500,1000,2000,4000,8000,8000',
    });
    const seeded = await seedAccessory(t, 'restart-user', 'restart-cam');
    const token = await t.token(['notifications'], 'restart-user', 'restart-client');
    const put = await rest(t.url, token, 'PUT', '/api/accounts/self/notifications', {
      kind: 'mqtt',
      url: `mqtt://127.0.0.1:${port}`,
      topic: 'clipgate/{accountId}/{accessoryId}/{eventType}',
      authKey,
      eventTypes: ['activity_updated'],
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    subscriber = await subscribe();
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
        WHERE r.client_id = 'restart-client'
        ORDER BY g`,
      [BACKLOG, seeded.accessoryId, ACTIVITIES],
    );
  }, 120_000);
  afterAll(async () => {
    await subscriber?.endAsync(true);
    await t?.close();
    if (broker && broker.exitCode === null) await stopBroker();
    if (dir) await fs.rm(dir, { recursive: true, force: true });
  });

  it('delivers every notification once per webhook-id, each activity ending at its newest change', async () => {
    const states = async () => {
      const { rows } = await t.app.services.db.pool.query<{ state: string; n: string }>(
        `SELECT state, count(*) AS n FROM deliveries WHERE client_id = 'restart-client'
          GROUP BY state ORDER BY state`,
      );
      return Object.fromEntries(rows.map((r) => [r.state, Number(r.n)]));
    };
    // The subscriber is away while the backlog drains (its session kept): every message the
    // broker acknowledged waits in it across the restart.
    await subscriber.endAsync();
    await t.app.services.db.pool.query("SELECT pg_notify('clipgate_deliveries', 'test')");
    // The restart, once a part of the backlog got through.
    await vi.waitFor(async () => expect((await states()).delivered).toBeGreaterThan(BACKLOG / 10), {
      timeout: 60_000,
      interval: 5,
    });
    await stopBroker();
    const beforeRestart = (await states()).delivered!;
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await startBroker();
    await vi.waitFor(async () => expect(await states()).toEqual({ delivered: BACKLOG }), {
      timeout: 180_000,
      interval: 100,
    });
    expect(beforeRestart).toBeLessThan(BACKLOG);
    subscriber = await subscribe();
    await vi.waitFor(() => expect(received()).toBe(BACKLOG), { timeout: 60_000, interval: 50 });
    expect(got).toHaveLength(BACKLOG); // the subscriber dropped the repeats
    // The newest change of each activity is the highest sequence it has.
    const newest = new Map<string, number>();
    for (const a of got) {
      const id = a.event_data.activity_id!;
      newest.set(id, Math.max(newest.get(id) ?? 0, a.event_data.sequence ?? 0));
    }
    expect(newest.size).toBe(ACTIVITIES);
    for (const [id, sequence] of newest) {
      expect([id, sequence]).toEqual([id, Math.ceil((BACKLOG - Number(id.slice(3))) / ACTIVITIES)]);
    }
  }, 300_000);
});
