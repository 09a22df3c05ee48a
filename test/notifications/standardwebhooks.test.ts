import fs from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  receiver,
  webhookSecret,
  type Notification,
} from '../../examples/standardwebhooks-receiver.ts';
import { backends, startApp, type TestApp } from '../helpers/app.ts';
import { CreateActivity, ok, seedAccessory } from '../helpers/fixtures.ts';
import { NotificationDeliveries, register, SendTestNotification, sleep } from './helpers.ts';

const authKey = 'standard-webhooks-key-0123456789';

describe('the standardwebhooks walkthrough of docs/api.md', () => {
  it('shows the example receiver as it is', async () => {
    const doc = await fs.readFile(new URL('../../docs/api.md', import.meta.url), 'utf8');
    const example = await fs.readFile(
      new URL('../../examples/standardwebhooks-receiver.ts', import.meta.url),
      'utf8',
    );
    expect(doc).toContain(`\`\`\`ts\n${example}\`\`\``);
    expect(doc).toContain("`whsec_${Buffer.from(authKey, 'utf8').toString('base64')}`");
  });
});

describe.each(backends)('a standardwebhooks receiver on %s', (backend) => {
  let t: TestApp;
  let server: Server;
  let url: string;
  const received: { notification: Notification; webhookId: string }[] = [];

  beforeAll(async () => {
    t = await startApp(backend, {
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_ALLOW_HTTP: 'true',
    });
    server = receiver(authKey, (notification, webhookId) =>
      received.push({ notification, webhookId }),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await t.close();
  });

  const waitFor = async (count: number) => {
    const until = Date.now() + 15_000;
    while (received.length < count) {
      if (Date.now() > until) throw new Error(`${received.length} of ${count} notifications`);
      await sleep(20);
    }
  };

  it('verifies the notifications the service sends, and they are delivered', async () => {
    const { ingest, accountId, accessoryId } = await seedAccessory(t, 'sw-user');
    const token = await t.token(['notifications'], 'sw-user');
    await register(t, token, {
      url,
      authKey,
      eventTypes: ['activity_created'],
      userData: { tenant: 42 },
    });
    const { sendTestNotification } = await ok(t, token, SendTestNotification, { accountId });
    await waitFor(1);
    expect(received[0]).toEqual({
      webhookId: `test_${sendTestNotification.id}`,
      notification: {
        accountId,
        eventType: 'test_notification',
        eventData: {},
        userData: { tenant: 42 },
      },
    });

    const { createActivity } = await ok(t, ingest, CreateActivity, {
      accessoryId,
      input: { relevanceLevel: 2 },
    });
    await waitFor(2);
    expect(received[1]!.notification).toMatchObject({
      accountId,
      eventType: 'activity_created',
      eventData: { accessoryId, activityId: createActivity.activityId, relevanceLevel: 2 },
      userData: { tenant: 42 },
    });

    // The receiver's 204s were the service's proof of delivery (recorded just after they came).
    await vi.waitFor(async () => {
      const log = await ok(t, token, NotificationDeliveries, { accountId, first: 5 });
      expect(log.notificationDeliveries!.edges.map((e) => e.node.status)).toEqual([
        'delivered',
        'delivered',
      ]);
      expect(log.notificationDeliveries!.edges[0]!.node.attempts[0]!.status).toBe(204);
    });
  });

  it('refuses what is not signed with the key, or signed too long ago', async () => {
    const body = JSON.stringify({ accountId: 'x', eventType: 'activity_created', eventData: {} });
    const post = (headers: Record<string, string>) =>
      fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body,
      });
    const signed = (key: string, at: Date) => ({
      'webhook-id': 'forged-1',
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': new Webhook(webhookSecret(key)).sign('forged-1', at, body),
    });
    const before = received.length;
    expect((await post(signed('another-key-0123456789', new Date()))).status).toBe(401);
    expect((await post(signed(authKey, new Date(Date.now() - 3_600_000)))).status).toBe(401);
    expect((await post({})).status).toBe(401);
    // The same library, the right key and a fresh timestamp: accepted, so the refusals above
    // were for the key and the time.
    expect((await post(signed(authKey, new Date()))).status).toBe(204);
    expect(received.length).toBe(before + 1);
  });
});
