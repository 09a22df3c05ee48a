import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends, startApp, type TestApp } from '../helpers/app.ts';
import { rest } from '../helpers/client.ts';
import { seedAccessory } from '../helpers/fixtures.ts';
import { startServiceProcess } from '../helpers/process.ts';

describe.each(backends)('operations on %s', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp(backend);
  });
  afterAll(() => t.close());

  it('serves health, readiness and metrics without a token', async () => {
    expect((await rest(t.url, undefined, 'GET', '/healthz')).status).toBe(200);
    expect((await rest(t.url, undefined, 'GET', '/readyz')).body).toEqual({ status: 'ready' });
    const metrics = await fetch(`${t.url}/metrics`);
    const text = await metrics.text();
    expect(text).toMatch(
      /clipgate_http_requests_total\{method="GET",route="\/readyz",status="200"\} 1/,
    );
    // Answered without waiting for anything, and still counted under its route.
    expect(text).toMatch(
      /clipgate_http_requests_total\{method="GET",route="\/healthz",status="200"\} 1/,
    );
    expect(text).not.toContain('route="unmatched"');
    expect(text).toContain('clipgate_http_request_duration_seconds_bucket');
  });

  it('describes every REST route in /openapi.json', async () => {
    const doc = (await rest(t.url, undefined, 'GET', '/openapi.json')).body;
    expect(doc.openapi).toBe('3.1.0');
    expect(
      doc.paths['/api/accessories/{accessoryId}/activities'].post.requestBody.content[
        'application/json'
      ].schema,
    ).toEqual({ $ref: '#/components/schemas/ActivityListRequest' });
    expect(doc.components.schemas.ActivityListRequest.properties.limit).toMatchObject({
      type: 'integer',
      minimum: 1,
      maximum: 100,
    });
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/api/accessories', '/api/accounts/{accountId}']),
    );
  });

  it('lists the accessories and the account of the caller', async () => {
    const { accountId, accessoryId } = await seedAccessory(t, 'ops-user', 'cam-ops');
    const reader = await t.token(['activities_basic'], 'ops-user');
    const accessories = await rest(t.url, reader, 'GET', '/api/accessories');
    expect(accessories.body.accessories).toEqual([
      {
        accessoryId,
        deviceId: 'cam-ops',
        name: 'Camera cam-ops',
        createdAt: expect.stringMatching(/Z$/),
      },
    ]);
    expect((await rest(t.url, reader, 'GET', '/api/accounts/self')).body).toEqual({
      accountId,
      retentionDays: 30,
    });
    expect((await rest(t.url, reader, 'GET', `/api/accounts/${accountId}`)).status).toBe(200);
    expect((await rest(t.url, reader, 'GET', `/api/accounts/${crypto.randomUUID()}`)).status).toBe(
      404,
    );
    const nobody = await t.token(['activities_basic'], 'no-account-yet');
    expect((await rest(t.url, nobody, 'GET', '/api/accessories')).body).toEqual({
      accessories: [],
    });
    expect((await rest(t.url, nobody, 'GET', '/api/accounts/self')).status).toBe(404);
  });
});

describe('the service process', () => {
  it('starts with npm start defaults on the embedded database and drains on SIGTERM', async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'clipgate-main-'));
    const service = await startServiceProcess(['--import', 'tsx', 'src/main.ts'], {
      DATA_DIR: dataDir,
    });
    expect((await fetch(`${service.url}/healthz`)).status).toBe(200);
    expect(await service.stop()).toBe(0);
    const { lines } = service;
    expect(lines.map((l) => l.msg)).toEqual(
      expect.arrayContaining(['applied migration', 'listening', 'draining', 'stopped']),
    );
    expect(lines.every((l) => typeof l.level === 'number' && typeof l.time === 'number')).toBe(
      true,
    );
    // The embedded database persisted in DATA_DIR.
    expect((await fs.readdir(path.join(dataDir, 'pgdata'))).length).toBeGreaterThan(0);
    await fs.rm(dataDir, { recursive: true, force: true });
  }, 60_000);
});
