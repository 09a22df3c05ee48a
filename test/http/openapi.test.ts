import fs from 'node:fs/promises';
import SwaggerParser from '@apidevtools/swagger-parser';
import createClient from 'openapi-fetch';
import type { OpenAPIV3_1 } from 'openapi-types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPENAPI_TYPES, openApiTypes } from '../../scripts/openapi-types.ts';
import { accessoryRoutes } from '../../src/http/routes/accessories.ts';
import { accountRoutes } from '../../src/http/routes/accounts.ts';
import { activityRoutes } from '../../src/http/routes/activities.ts';
import type { RestRoute } from '../../src/http/rest.ts';
import { eventRoutes } from '../../src/http/routes/events.ts';
import { notificationRoutes } from '../../src/http/routes/notifications.ts';
import { zoneRoutes } from '../../src/http/routes/zones.ts';
import type { paths } from '../generated/openapi.ts';
import { backends, startApp, type TestApp } from '../helpers/app.ts';
import { rest } from '../helpers/client.ts';
import { seedAccessory, seedActivities } from '../helpers/fixtures.ts';

const methods = ['get', 'put', 'post', 'delete', 'head'] as const;

/** Every operation of the document with its method and path. */
function operations(doc: OpenAPIV3_1.Document) {
  return Object.entries(doc.paths!).flatMap(([path, item]) =>
    methods
      .filter((m) => item![m])
      .map((method) => ({ path, method, op: item![method] as OpenAPIV3_1.OperationObject })),
  );
}

describe('/openapi.json', () => {
  let t: TestApp;
  let doc: OpenAPIV3_1.Document;
  beforeAll(async () => {
    t = await startApp('pglite');
    doc = (await rest(t.url, undefined, 'GET', '/openapi.json')).body;
  });
  afterAll(() => t.close());

  it('is a valid OpenAPI 3.1 document', async () => {
    // The validator dereferences in place: it gets copies.
    await expect(SwaggerParser.validate(structuredClone(doc))).resolves.toBeTruthy();
    const broken = structuredClone(doc);
    delete broken.components!.schemas!.Activity;
    await expect(SwaggerParser.validate(broken)).rejects.toThrow(/Activity/);
  });

  it('gives every operation an id, its request body, its success answers and its error answers', () => {
    const ops = operations(doc);
    expect(ops.length).toBeGreaterThanOrEqual(9 + 6 * 4 + 2);
    const ids = ops.map(({ op }) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const { path, method, op } of ops) {
      const where = `${method.toUpperCase()} ${path}`;
      expect(op.operationId, where).toBeTruthy();
      const responses = op.responses as Record<string, OpenAPIV3_1.ResponseObject>;
      const success = Object.keys(responses).filter((s) => /^2\d\d$/.test(s));
      expect(success.length, where).toBeGreaterThan(0);
      for (const status of success) {
        const content = responses[status]!.content;
        if (status === '204' || method === 'head') expect(content, where).toBeUndefined();
        else expect(Object.values(content ?? {})[0]?.schema, `${where} ${status}`).toBeTruthy();
      }
      expect(responses.default, where).toEqual({ $ref: '#/components/responses/Error' });
      if (op.security?.length) expect(responses['401'] ?? responses['403'], where).toBeTruthy();
      if (method === 'put' || method === 'post') {
        const body = op.requestBody as OpenAPIV3_1.RequestBodyObject;
        expect(Object.values(body.content)[0]?.schema, where).toBeTruthy();
      }
    }
    for (const response of Object.values(doc.components!.responses!)) {
      expect((response as OpenAPIV3_1.ResponseObject).content!['application/json']!.schema).toEqual(
        { $ref: '#/components/schemas/Error' },
      );
    }
  });

  it('describes media as binary with the content types served, ranges and their errors', () => {
    const base = '/api/accessories/{accessoryId}/activities/{activityId}';
    const mp4 = doc.paths![`${base}/mp4`]!;
    expect(Object.keys(mp4.get!.responses!)).toEqual(
      expect.arrayContaining(['200', '206', '304', '401', '403', '404', '416']),
    );
    expect((mp4.get!.responses!['206'] as OpenAPIV3_1.ResponseObject).content).toEqual({
      'video/mp4': { schema: { type: 'string', format: 'binary' } },
    });
    expect(mp4.put!.requestBody).toMatchObject({
      required: true,
      content: { 'video/mp4': { schema: { type: 'string', format: 'binary' } } },
    });
    expect((mp4.put!.responses!['201'] as OpenAPIV3_1.ResponseObject).content).toEqual({
      'application/json': { schema: { $ref: '#/components/schemas/MediaUpload' } },
    });
    const playlist = doc.paths![`${base}/signed/{signature}/hls/activity.m3u8`]!.get!;
    expect(playlist.security).toEqual([]);
    expect(Object.keys(playlist.responses!)).toContain('503');
    expect(Object.keys(playlist.responses!)).not.toContain('401');
  });

  it('test/generated/openapi.ts holds its types (run `npm run openapi:types`)', async () => {
    expect(await fs.readFile(OPENAPI_TYPES, 'utf8')).toBe(await openApiTypes(doc));
  });
});

const jsonRoutes: RestRoute[] = [
  ...accountRoutes,
  ...accessoryRoutes,
  ...activityRoutes,
  ...zoneRoutes,
  ...notificationRoutes,
  ...eventRoutes,
];

/** The documented success body of an operation, parsed strictly (undocumented members fail). */
function documented(operationId: string, body: unknown): unknown {
  const route = jsonRoutes.find((r) => r.operationId === operationId)!;
  return route.response!.parse(body);
}

describe.each(backends)('a client generated from /openapi.json on %s', (backend) => {
  let t: TestApp;
  let accessoryId: string;
  let ids: string[];
  let api: ReturnType<typeof createClient<paths>>;

  beforeAll(async () => {
    t = await startApp(backend, {
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    });
    const seeded = await seedAccessory(t, 'openapi-user');
    accessoryId = seeded.accessoryId;
    ids = await seedActivities(t, seeded.ingest, accessoryId, 7);
    const token = await t.token(
      ['activities_basic', 'zones', 'notifications', 'ingest'],
      'openapi-user',
    );
    api = createClient<paths>({ baseUrl: t.url, headers: { authorization: `Bearer ${token}` } });
  });
  afterAll(() => t.close());

  it('pages through the activities of an accessory with openapi-fetch', async () => {
    const path = { accessoryId };
    const seen: string[] = [];
    let next: string | undefined;
    do {
      const { data, error, response } = await api.POST(
        '/api/accessories/{accessoryId}/activities',
        {
          params: { path },
          body: {
            limit: 3,
            extraFields: ['motionZones'],
            ...(next && { startActivityId: next, operator: '<' as const }),
          },
        },
      );
      expect(error).toBeUndefined();
      expect(response.status).toBe(200);
      expect(documented('listActivities', data)).toEqual(data);
      seen.push(...data!.activities.map((a) => a.activityId));
      expect(data!.activities.every((a) => Array.isArray(a.motionZones))).toBe(true);
      next = data!.nextStartActivityId;
    } while (next);
    expect(seen).toEqual([...ids].reverse());

    const { error, response } = await api.POST('/api/accessories/{accessoryId}/activities', {
      params: { path },
      body: { limit: 0 },
    });
    expect(response.status).toBe(400);
    expect(error?.error).toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'limit' } });
  });

  it('answers every JSON operation with the body its schema documents', async () => {
    const accountId = 'self';
    const activityId = ids.at(-1)!;
    const answers: [string, unknown][] = [];
    answers.push([
      'getAccount',
      (await api.GET('/api/accounts/{accountId}', { params: { path: { accountId } } })).data,
    ]);
    answers.push(['listAccessories', (await api.GET('/api/accessories')).data]);
    answers.push([
      'getActivity',
      (
        await api.GET('/api/accessories/{accessoryId}/activities/{activityId}', {
          params: { path: { accessoryId, activityId } },
        })
      ).data,
    ]);
    answers.push([
      'getZones',
      (await api.GET('/api/accessories/{accessoryId}/zones', { params: { path: { accessoryId } } }))
        .data,
    ]);
    const zones = [
      {
        id: 'z1' as const,
        name: 'Door',
        color: '#FF8800',
        vertices: [
          { x: 0, y: 0 },
          { x: 0.5, y: 0 },
          { x: 0.5, y: 1 },
        ],
      },
    ];
    answers.push([
      'saveZones',
      (
        await api.PUT('/api/accessories/{accessoryId}/zones', {
          params: { path: { accessoryId } },
          body: { zones },
        })
      ).data,
    ]);
    const registration = {
      url: 'http://127.0.0.1:9/hooks',
      authKey: 'openapi-test-key-0123',
      eventTypes: ['activity_created' as const],
      userData: { team: 'web' },
    };
    answers.push([
      'registerNotifications',
      (
        await api.PUT('/api/accounts/{accountId}/notifications', {
          params: { path: { accountId } },
          body: registration,
        })
      ).data,
    ]);
    answers.push([
      'getNotificationRegistration',
      (
        await api.GET('/api/accounts/{accountId}/notifications', {
          params: { path: { accountId } },
        })
      ).data,
    ]);
    for (const [operationId, data] of answers) {
      expect(data, operationId).toBeDefined();
      expect(documented(operationId, data), operationId).toEqual(data);
    }
    const removed = await api.DELETE('/api/accounts/{accountId}/notifications', {
      params: { path: { accountId } },
    });
    expect(removed.response.status).toBe(204);
    const gone = await api.GET('/api/accounts/{accountId}/notifications', {
      params: { path: { accountId } },
    });
    expect(gone.error?.error.code).toBe('NOT_FOUND');
  });

  it('uploads and reads media as the document says: binary bodies, ranges, 416', async () => {
    const activityId = ids.at(-1)!;
    const path = { accessoryId, activityId };
    const jpeg = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(96, 7)]);
    const put = await api.PUT('/api/accessories/{accessoryId}/activities/{activityId}/image', {
      params: { path },
      body: Uint8Array.from(jpeg) as unknown as string,
      bodySerializer: (body) => body as unknown as BodyInit,
      headers: { 'content-type': 'image/jpeg' },
    });
    expect(put.response.status).toBe(201);
    expect(put.data).toMatchObject({ kind: 'image', size: jpeg.length, packaging: null });
    const range = await api.GET('/api/accessories/{accessoryId}/activities/{activityId}/image', {
      params: { path, header: { Range: 'bytes=4-9' } },
      parseAs: 'arrayBuffer',
    });
    expect(range.response.status).toBe(206);
    expect(range.response.headers.get('content-range')).toBe(`bytes 4-9/${jpeg.length}`);
    expect(Buffer.from(range.data!)).toEqual(jpeg.subarray(4, 10));
    const past = await api.GET('/api/accessories/{accessoryId}/activities/{activityId}/image', {
      params: { path, header: { Range: `bytes=${jpeg.length}-` } },
    });
    expect(past.response.status).toBe(416);
    expect(past.error?.error.code).toBe('INVALID_ARGUMENT');
  });
});
