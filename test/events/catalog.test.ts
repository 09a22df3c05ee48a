import SwaggerParser from '@apidevtools/swagger-parser';
import { Parser } from '@asyncapi/parser';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { OpenAPIV3_1 } from 'openapi-types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventTypes, recordedEventTypes } from '../../src/events/types.ts';
import { startApp, type TestApp } from '../helpers/app.ts';
import { liveEventProblems, notificationProblems } from '../helpers/catalog.ts';
import { rest } from '../helpers/client.ts';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

/** The AsyncAPI parser's errors about a document (warnings and hints left out). */
async function asyncApiErrors(doc: unknown): Promise<string[]> {
  const { diagnostics } = await new Parser().parse(JSON.stringify(doc));
  return diagnostics
    .filter((d) => d.severity === 0)
    .map((d) => `${d.path.join('.')}: ${d.message}`);
}

describe('the event catalog', () => {
  let t: TestApp;
  let catalog: any[];
  let openapi: OpenAPIV3_1.Document;
  let asyncapi: any;

  beforeAll(async () => {
    t = await startApp('pglite');
    const token = await t.token(['zones'], 'catalog-reader');
    catalog = (await rest(t.url, token, 'GET', '/api/event-types')).body;
    openapi = (await rest(t.url, undefined, 'GET', '/openapi.json')).body;
    asyncapi = (await rest(t.url, undefined, 'GET', '/asyncapi.json')).body;
  });
  afterAll(() => t?.close());

  it('answers GET /api/event-types to any valid token, and 401 without one', async () => {
    const anonymous = await rest(t.url, undefined, 'GET', '/api/event-types');
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error.code).toBe('UNAUTHENTICATED');
    expect(catalog.map((e) => e.eventType).sort()).toEqual(
      [...recordedEventTypes, 'test_notification'].sort(),
    );
    // What registrations accept, what subscriptions stream: the catalog says the same.
    expect(catalog.filter((e) => e.registrable).map((e) => e.eventType)).toEqual([...eventTypes]);
    expect(catalog.filter((e) => e.channels.includes('live')).map((e) => e.eventType)).toEqual([
      ...recordedEventTypes,
    ]);
    expect(catalog.find((e) => e.eventType === 'registration_disabled')).toMatchObject({
      deprecated: expect.stringMatching(/receiver_disabled/),
    });
  });

  it('gives every event type JSON Schemas (2020-12) that compile, for each thing that carries it', () => {
    const ajv = addFormats(new Ajv2020({ strict: true }));
    for (const entry of catalog) {
      const where = entry.eventType;
      for (const key of ['schema', 'webhookSchema', 'eventSchema']) {
        const schema = entry[key];
        if (schema === null) continue;
        expect(schema.$schema, `${where} ${key}`).toBe(
          'https://json-schema.org/draft/2020-12/schema',
        );
        expect(() => ajv.compile(schema), `${where} ${key}`).not.toThrow();
      }
      expect(entry.webhookSchema !== null, where).toBe(entry.channels.includes('webhook'));
      expect(entry.eventSchema !== null, where).toBe(entry.channels.includes('live'));
    }
    const created = catalog.find((e) => e.eventType === 'activity_created');
    const validate = ajv.compile(created.webhookSchema);
    const body = {
      accountId: '0b7c1f2e-3d4a-4b5c-8d6e-7f8091a2b3c4',
      eventType: 'activity_created',
      eventData: {
        activityId: '20261121T204117Z',
        accessoryId: '9f3e5a4c-0d7b-4e61-a1f2-3b4c5d6e7f80',
        startTime: '2026-11-21T20:41:17.000Z',
        endTime: null,
        playbackDuration: null,
        relevanceLevel: 2,
        inProgress: true,
        motionZones: ['z1'],
        objectLocations: [3],
        sequence: 1,
        occurredAt: '2026-11-21T20:41:17.120Z',
      },
      userData: { team: 'backend' },
    };
    expect(validate(body)).toBe(true);
    expect(validate({ ...body, eventType: 'activity_updated' })).toBe(false);
    expect(validate({ ...body, eventData: { ...body.eventData, extra: 1 } })).toBe(false);
  });

  it('puts a webhook per type sent to receivers into the OpenAPI document, which its parser validates', async () => {
    await expect(SwaggerParser.validate(structuredClone(openapi))).resolves.toBeTruthy();
    const webhooks = openapi.webhooks as Record<string, OpenAPIV3_1.PathItemObject>;
    expect(Object.keys(webhooks).sort()).toEqual(
      catalog
        .filter((e) => e.channels.includes('webhook'))
        .map((e) => e.eventType)
        .sort(),
    );
    const post = webhooks.delivery_exhausted!.post!;
    expect(post.requestBody).toMatchObject({
      content: {
        'application/json': {
          schema: { $ref: '#/components/schemas/DeliveryExhaustedNotification' },
        },
      },
    });
    expect((post.parameters as OpenAPIV3_1.ParameterObject[]).map((p) => p.name)).toEqual([
      'webhook-id',
      'webhook-timestamp',
      'webhook-signature',
      'X-Vendor-Verify',
    ]);
    const broken = structuredClone(openapi);
    delete broken.components!.schemas!.DeliveryExhaustedEventData;
    await expect(SwaggerParser.validate(broken)).rejects.toThrow(/DeliveryExhaustedEventData/);
  });

  it('serves an AsyncAPI 3 document of the live channels and the webhooks, which its parser validates', async () => {
    expect(asyncapi.asyncapi).toBe('3.0.0');
    expect(await asyncApiErrors(asyncapi)).toEqual([]);
    expect(Object.keys(asyncapi.channels)).toEqual([
      'accountEvents',
      'accessoryEvents',
      'notifications',
      'brokerNotifications',
    ]);
    expect(Object.keys(asyncapi.servers)).toEqual([
      'websocket',
      'sse',
      'receiver',
      'mqtt',
      'amqp',
      'nats',
    ]);
    expect(asyncapi.operations.publishNotifications.bindings.mqtt).toEqual({
      qos: 1,
      retain: false,
    });
    const names = (channel: string) =>
      Object.keys(asyncapi.channels[channel].messages).map(
        (m) => asyncapi.components.messages[m].name,
      );
    expect(names('accountEvents')).toEqual([...recordedEventTypes]);
    expect(names('accessoryEvents')).toEqual(
      expect.arrayContaining(['activity_created', 'motion_started', 'zones_saved']),
    );
    expect(names('accessoryEvents')).not.toContain('receiver_disabled');
    expect(names('notifications')).toContain('test_notification');
    expect(names('notifications')).not.toContain('zones_saved');
    expect(names('brokerNotifications')).toEqual(names('notifications'));

    const broken = structuredClone(asyncapi);
    delete broken.components.schemas.ReceiverEnabledEventData;
    expect((await asyncApiErrors(broken)).join('\n')).toMatch(/ReceiverEnabledEventData/);
  });

  it('tells what a received notification or live event has that its schema does not', () => {
    expect(notificationProblems({ accountId: 'x', eventType: 'nothing', eventData: {} })).toEqual([
      'no webhook schema for eventType "nothing"',
    ]);
    expect(
      notificationProblems({
        accountId: '0b7c1f2e-3d4a-4b5c-8d6e-7f8091a2b3c4',
        eventType: 'account_deleted',
        eventData: { why: 'gone' },
      }),
    ).toEqual(['/eventData must NOT have additional properties']);
    // A subscription selects some members only: those are checked.
    expect(liveEventProblems({ eventId: '7', eventType: 'account_deleted' })).toEqual([]);
    expect(liveEventProblems({ eventId: 'seven', eventType: 'account_deleted' })).toHaveLength(1);
    expect(liveEventProblems({ eventType: 'test_notification' })).toHaveLength(1);
  });
});
