import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSecretBox, secretContext } from '../../src/notifications/secrets.ts';
import { backends, startApp, type TestApp } from '../helpers/app.ts';
import { gql, rest } from '../helpers/client.ts';
import type { EventType } from '../generated/graphql.ts';
import { CreateActivity, ok, seedAccessory } from '../helpers/fixtures.ts';
import {
  NotificationDeliveries,
  NotificationRegistration,
  RegisterNotifications,
  sleep,
  startReceiver,
  UnregisterNotifications,
} from './helpers.ts';

const PATH = '/api/accounts/self/notifications';
const valid = {
  url: 'https://receiver.example.com/hooks/clipgate?team=7',
  authKey: 'a-receiver-key-of-enough-length',
  eventTypes: ['activity_created', 'activity_finished'],
  userData: { team: 'backend', nested: { n: 1 } },
};

// Registration only: this app never sends (no events reach these receivers), so the example
// URLs are never contacted. The security settings are the defaults: https only, public only.
describe.each(backends)('notification registration on %s', (backend) => {
  let t: TestApp;
  let accountId: string;
  let token: string;
  let motionToken: string;

  beforeAll(async () => {
    t = await startApp(backend, { WEBHOOK_TIMEOUT_MS: '1000', WEBHOOK_RETRY_DELAYS_MS: '50,100' });
    ({ accountId } = await seedAccessory(t, 'reg-user', 'reg-cam'));
    token = await t.token(['notifications'], 'reg-user', 'reg-client');
    motionToken = await t.token(['notifications_motion'], 'reg-user', 'reg-motion-client');
  });
  afterAll(() => t?.close());

  it('PUT creates the registration, GET returns it, DELETE removes it; authKey never returned', async () => {
    const put = await rest(t.url, token, 'PUT', PATH, valid);
    expect(put.status).toBe(200);
    expect(put.body).toEqual({
      accountId,
      clientId: 'reg-client',
      url: valid.url,
      eventTypes: valid.eventTypes,
      userData: valid.userData,
      filter: null,
      maxPerSecond: null,
      state: 'active',
      failingSince: null,
      disabledAt: null,
      disabledReason: null,
      previousKeyUntil: null,
      signing: 'hmac-sha256',
      publicKey: null,
      kind: 'webhook',
      topic: null,
      exchange: null,
      hasCredentials: false,
      createdAt: expect.stringMatching(/Z$/),
      updatedAt: expect.stringMatching(/Z$/),
    });
    expect(JSON.stringify(put.body)).not.toContain(valid.authKey);

    const get = await rest(t.url, token, 'GET', `/api/accounts/${accountId}/notifications`);
    expect(get.status).toBe(200);
    expect(get.body).toEqual(put.body);

    const del = await rest(t.url, token, 'DELETE', PATH);
    expect(del.status).toBe(204);
    expect(del.body).toBeUndefined();
    expect((await rest(t.url, token, 'GET', PATH)).status).toBe(404);
    expect((await rest(t.url, token, 'DELETE', PATH)).status).toBe(404);
  });

  it('keeps one registration per client: PUT again overwrites, other clients are separate', async () => {
    const first = (await rest(t.url, token, 'PUT', PATH, valid)).body;
    await new Promise((resolve) => setTimeout(resolve, 20));
    const second = await rest(t.url, token, 'PUT', PATH, {
      url: 'https://other.example.com/h',
      authKey: 'another-receiver-key-0123',
      eventTypes: ['activity_updated'],
    });
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({
      url: 'https://other.example.com/h',
      eventTypes: ['activity_updated'],
      userData: null,
      createdAt: first.createdAt,
    });
    expect(Date.parse(second.body.updatedAt)).toBeGreaterThan(Date.parse(first.updatedAt));

    const otherClient = await t.token(['notifications'], 'reg-user', 'reg-client-2');
    expect((await rest(t.url, otherClient, 'GET', PATH)).status).toBe(404);
    await rest(t.url, otherClient, 'PUT', PATH, valid);
    const { rows } = await t.app.services.db.pool.query(
      'SELECT client_id, url FROM notification_registrations WHERE account_id = $1 ORDER BY client_id',
      [accountId],
    );
    expect(rows).toEqual([
      { client_id: 'reg-client', url: 'https://other.example.com/h' },
      { client_id: 'reg-client-2', url: valid.url },
    ]);
    await rest(t.url, otherClient, 'DELETE', PATH);
    await rest(t.url, token, 'DELETE', PATH);
  });

  it('stores the authKey encrypted (AES-256-GCM bound to the registration)', async () => {
    await rest(t.url, token, 'PUT', PATH, valid);
    const { rows } = await t.app.services.db.pool.query<{ auth_key: string }>(
      'SELECT auth_key FROM notification_registrations WHERE account_id = $1 AND client_id = $2',
      [accountId, 'reg-client'],
    );
    const sealed = rows[0]!.auth_key;
    expect(sealed).toMatch(/^v1\./);
    expect(sealed).not.toContain(valid.authKey);
    expect(Buffer.from(sealed.slice(3), 'base64').toString('latin1')).not.toContain(valid.authKey);
    // Generated into the data directory, readable by the owner only.
    const file = path.join(t.config.dataDir, 'secrets-key');
    expect((await fs.stat(file)).mode & 0o777).toBe(0o600);
    const key = Buffer.from((await fs.readFile(file, 'utf8')).trim(), 'base64');
    const box = createSecretBox(key);
    expect(box.open(sealed, secretContext(accountId, 'reg-client'))).toBe(valid.authKey);
    expect(() => box.open(sealed, secretContext(accountId, 'someone-else'))).toThrow();
    await rest(t.url, token, 'DELETE', PATH);
  });

  it.each([
    ['url', { url: 'http://receiver.example.com/h' }, /https/],
    ['url', { url: 'https://user:pw@receiver.example.com/h' }, /username or password/],
    ['url', { url: `https://receiver.example.com/${'a'.repeat(2048)}` }, /2048/],
    ['url', { url: '/relative/path' }, /absolute/],
    ['url', { url: 42 }, /string/],
    ['url', { url: undefined }, /url/],
    ['url', { url: 'https://127.0.0.1/h' }, /non-public.*loopback/],
    ['url', { url: 'https://10.1.2.3:8443/h' }, /private/],
    ['url', { url: 'https://[::1]/h' }, /loopback/],
    ['url', { url: 'https://[::ffff:192.168.0.1]/h' }, /ipv4-mapped private/],
    ['url', { url: 'https://169.254.169.254/latest' }, /link-local/],
    ['url', { url: 'https://100.64.0.1/h' }, /carrier-grade NAT/],
    ['authKey', { authKey: 'short' }, /16\.\.256/],
    ['authKey', { authKey: 'k'.repeat(257) }, /16\.\.256/],
    ['authKey', { authKey: undefined }, /authKey/],
    ['eventTypes', { eventTypes: [] }, /non-empty/],
    ['eventTypes', { eventTypes: 'activity_created' }, /non-empty list/],
    ['eventTypes', { eventTypes: ['activity_created', 'clip_made'] }, /clip_made/],
    ['eventTypes', { eventTypes: ['zones_saved'] }, /zones_saved/],
    ['eventTypes', { eventTypes: ['test_notification'] }, /test_notification/],
    ['eventTypes', { eventTypes: ['activity_created', 'activity_created'] }, /more than once/],
    ['userData', { userData: [1, 2] }, /object/],
    ['userData', { userData: 'text' }, /object/],
    ['userData', { userData: { blob: 'x'.repeat(4100) } }, /4096/],
    ['filter', { filter: 'relevanceLevel >> 2' }, /at position 16/],
    ['filter', { filter: 'relevanceLevel >= "2"' }, /relevanceLevel is a number.*at position 18/],
    ['filter', { filter: 'accessoryId = "cam-1"' }, /accessoryId is a UUID v4 string/],
    ['filter', { filter: '' }, /at position 0/],
    ['filter', { filter: 7 }, /string/],
    ['colour', { colour: 'blue' }, /unknown field/],
    // Broker kinds (docs/api.md, Destinations): the same address rules, the kind's schemes.
    ['kind', { kind: 'kafka' }, /webhook, mqtt, amqp, nats/],
    ['url', { kind: 'mqtt', url: 'mqtt://broker.example.com', topic: 't' }, /must use mqtts$/],
    ['url', { kind: 'mqtt', url: 'mqtts://10.0.0.1', topic: 't' }, /private/],
    ['url', { kind: 'amqp', url: 'amqps://[::1]/vhost', topic: 't' }, /loopback/],
    ['url', { kind: 'nats', url: 'nats://broker.example.com', topic: 't' }, /must use tls$/],
    ['url', { kind: 'amqp', url: 'amqps://u:p@broker.example.com', topic: 't' }, /username/],
    ['topic', { kind: 'nats', url: 'tls://broker.example.com', topic: 'a.>' }, /wildcards/],
    ['topic', { topic: 'clipgate/{eventType}' }, /not a webhook/],
    [
      'password',
      { kind: 'mqtt', url: 'mqtts://b.example.com', topic: 't', username: 'u' },
      /together/,
    ],
  ])('400 naming %s for %j', async (field, change, message) => {
    const res = await rest(t.url, token, 'PUT', PATH, { ...valid, ...change });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'INVALID_ARGUMENT', details: { field } });
    expect(res.body.error.message).toMatch(message);
    // Nothing was registered.
    expect((await rest(t.url, token, 'GET', PATH)).status).toBe(404);
  });

  it('registers a broker by host name with the default settings; webhook again clears it', async () => {
    const broker = {
      kind: 'amqp',
      url: 'amqps://rabbit.example.com/tenants',
      topic: 'clipgate.{accountId}.{eventType}',
      username: 'clipgate',
      password: 'a-broker-password',
    };
    const put = await rest(t.url, token, 'PUT', PATH, { ...valid, ...broker });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body).toMatchObject({
      kind: 'amqp',
      url: broker.url,
      topic: broker.topic,
      exchange: '',
      hasCredentials: true,
    });
    const again = await rest(t.url, token, 'PUT', PATH, valid);
    expect(again.body).toMatchObject({ kind: 'webhook', topic: null, hasCredentials: false });
    await rest(t.url, token, 'DELETE', PATH);
  });

  it('accepts userData of exactly 4 KiB and host names (checked again at every connection)', async () => {
    const userData = { blob: 'x'.repeat(4096 - '{"blob":""}'.length) };
    expect(Buffer.byteLength(JSON.stringify(userData))).toBe(4096);
    const res = await rest(t.url, token, 'PUT', PATH, {
      ...valid,
      url: 'https://localhost:8443/h',
      userData,
    });
    expect(res.status).toBe(200);
    await rest(t.url, token, 'DELETE', PATH);
  });

  it('403 PERMISSION_DENIED for motion types without notifications_motion', async () => {
    const res = await rest(t.url, token, 'PUT', PATH, {
      ...valid,
      eventTypes: ['activity_created', 'motion_started'],
    });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('PERMISSION_DENIED');
    expect(res.headers.get('www-authenticate')).toContain('service:notifications_motion');
    expect((await rest(t.url, token, 'GET', PATH)).status).toBe(404);

    const motion = await rest(t.url, motionToken, 'PUT', PATH, {
      ...valid,
      eventTypes: ['motion_started', 'motion_ended'],
    });
    expect(motion.status).toBe(200);
    expect(motion.body.eventTypes).toEqual(['motion_started', 'motion_ended']);
    await rest(t.url, motionToken, 'DELETE', PATH);
  });

  it('requires a notifications scope and the caller’s own account', async () => {
    const reader = await t.token(['activities_basic'], 'reg-user', 'reg-client');
    const denied = await rest(t.url, reader, 'PUT', PATH, valid);
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe('PERMISSION_DENIED');
    const stranger = crypto.randomUUID();
    expect(
      (await rest(t.url, token, 'PUT', `/api/accounts/${stranger}/notifications`, valid)).status,
    ).toBe(404);
    expect(
      (await rest(t.url, token, 'GET', `/api/accounts/${stranger}/notifications`)).status,
    ).toBe(404);
    const noAccount = await t.token(['notifications'], 'nobody-yet', 'reg-client');
    expect((await rest(t.url, noAccount, 'PUT', PATH, valid)).status).toBe(404);
    expect((await rest(t.url, undefined, 'GET', PATH)).status).toBe(401);
  });

  it('stores a filter as written and returns it; PUT without one removes it', async () => {
    const filter = 'relevanceLevel >= 2 AND contains_any(motionZones, ["z1"])';
    const put = await rest(t.url, token, 'PUT', PATH, { ...valid, filter });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body.filter).toBe(filter);
    expect((await rest(t.url, token, 'GET', PATH)).body.filter).toBe(filter);
    const viaGraphql = await gql(t.url, token, NotificationRegistration, { accountId });
    expect(viaGraphql.data?.notificationRegistration?.filter).toBe(filter);
    expect((await rest(t.url, token, 'PUT', PATH, valid)).body.filter).toBeNull();
    const bad = await gql(t.url, token, RegisterNotifications, {
      input: { accountId, ...valid, eventTypes: valid.eventTypes as EventType[], filter: 'NOT' },
    });
    expect(bad.errors?.[0]?.extensions).toMatchObject({
      code: 'INVALID_ARGUMENT',
      details: { field: 'filter', position: 3 },
    });
    expect((await rest(t.url, token, 'DELETE', PATH)).status).toBe(204);
  });

  it('registers, reads and unregisters over GraphQL with the same rules', async () => {
    const input = { accountId, ...valid, eventTypes: valid.eventTypes as EventType[] };
    const created = await gql(t.url, token, RegisterNotifications, { input });
    expect(created.errors).toBeUndefined();
    expect(created.data?.registerNotifications).toMatchObject({
      accountId,
      clientId: 'reg-client',
      url: valid.url,
      eventTypes: valid.eventTypes,
      userData: valid.userData,
    });
    const read = await gql(t.url, token, NotificationRegistration, { accountId });
    expect(read.data?.notificationRegistration?.url).toBe(valid.url);

    const bad = await gql(t.url, token, RegisterNotifications, {
      input: { ...input, authKey: 'short' },
    });
    expect(bad.errors?.[0]?.extensions).toMatchObject({
      code: 'INVALID_ARGUMENT',
      details: { field: 'authKey' },
    });
    const privateIp = await gql(t.url, token, RegisterNotifications, {
      input: { ...input, url: 'https://192.168.1.20/h' },
    });
    expect(privateIp.errors?.[0]?.extensions).toMatchObject({ details: { field: 'url' } });
    const motion = await gql(t.url, token, RegisterNotifications, {
      input: { ...input, eventTypes: ['motion_ended'] },
    });
    expect(motion.errors?.[0]?.extensions?.code).toBe('PERMISSION_DENIED');
    const notObject = await gql(t.url, token, RegisterNotifications, {
      input: { ...input, userData: [1] },
    });
    expect(notObject.errors?.[0]?.extensions).toMatchObject({ details: { field: 'userData' } });
    // The failed attempts left the registration as it was.
    expect(
      (await gql(t.url, token, NotificationRegistration, { accountId })).data
        ?.notificationRegistration?.eventTypes,
    ).toEqual(valid.eventTypes);

    // Another account's registration is as missing as none.
    const other = await gql(t.url, token, NotificationRegistration, {
      accountId: crypto.randomUUID(),
    });
    expect(other.errors).toBeUndefined();
    expect(other.data?.notificationRegistration).toBeNull();

    const removed = await gql(t.url, token, UnregisterNotifications, { accountId });
    expect(removed.data?.unregisterNotifications).toBe(true);
    const again = await gql(t.url, token, UnregisterNotifications, { accountId });
    expect(again.data?.unregisterNotifications).toBe(false);
    expect(
      (await gql(t.url, token, NotificationRegistration, { accountId })).data
        ?.notificationRegistration,
    ).toBeNull();
  });

  it('refuses at delivery a host name that resolves to loopback (blocked_address)', async () => {
    const {
      ingest,
      accessoryId,
      accountId: ssrfAccount,
    } = await seedAccessory(t, 'ssrf-user', 'ssrf-cam');
    const ssrfToken = await t.token(['notifications'], 'ssrf-user', 'reg-client');
    const rx = await startReceiver('ssrf-receiver-key-0123');
    try {
      // A host name passes registration; the address it resolves to is checked at connect time.
      const put = await rest(t.url, ssrfToken, 'PUT', PATH, {
        url: `https://localhost:${rx.port}/h`,
        authKey: 'ssrf-receiver-key-0123',
        eventTypes: ['activity_created'],
      });
      expect(put.status).toBe(200);
      await ok(t, ingest, CreateActivity, { accessoryId, input: {} });
      let node;
      for (let i = 0; i < 200; i++) {
        const res = await gql(t.url, ssrfToken, NotificationDeliveries, { accountId: ssrfAccount });
        node = res.data?.notificationDeliveries?.edges[0]?.node;
        if (node?.status === 'discarded') break;
        await sleep(20);
      }
      expect(node?.status).toBe('discarded');
      expect(node?.attempts).toHaveLength(3);
      for (const attempt of node!.attempts) {
        expect(attempt).toMatchObject({
          status: null,
          outcome: 'failed',
          error: 'blocked_address',
        });
        // Nothing of how the name resolved reaches the client.
        expect(attempt.errorMessage).toBe('blocked: non-public address');
      }
      expect(rx.connections).toBe(0);
      expect(rx.receipts).toHaveLength(0);
    } finally {
      await rx.close();
    }
  });

  it('describes the routes in /openapi.json', async () => {
    const doc = (await rest(t.url, undefined, 'GET', '/openapi.json')).body;
    const route = doc.paths['/api/accounts/{accountId}/notifications'];
    expect(Object.keys(route).sort()).toEqual(['delete', 'get', 'put']);
    expect(route.put.requestBody.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/NotificationRegistrationInput',
    });
    expect(
      doc.components.schemas.NotificationRegistrationInput.properties.eventTypes.items.enum,
    ).toContain('motion_started');
  });
});
