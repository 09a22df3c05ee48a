import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signDevToken } from '../../src/accounts/auth.ts';
import { backends, freshPostgres, TEST_SECRET } from '../helpers/app.ts';
import { startServiceProcess, type ServiceProcess } from '../helpers/process.ts';

/**
 * Overload end to end: the service runs as its own process, and the test stops that process
 * (SIGSTOP) for longer than OVERLOAD_LAG_MS, which from the outside is an event loop blocked
 * that long: connections queue in the kernel and nothing runs. Once it runs again, the lag
 * monitor sees the late timer before the queued requests are read, and sheds them.
 */
describe.each(backends)('overload shedding on %s', (backend) => {
  let service: ServiceProcess;
  let dataDir: string;
  let dropDatabase: (() => Promise<void>) | undefined;
  let token: string;

  beforeAll(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'clipgate-overload-'));
    const db = backend === 'postgres' ? await freshPostgres() : undefined;
    dropDatabase = db?.drop;
    service = await startServiceProcess(['--import', 'tsx', 'src/main.ts'], {
      DATA_DIR: dataDir,
      OVERLOAD_LAG_MS: '300',
      ...(db && { DATABASE_URL: db.url }),
    });
    token = await signDevToken(TEST_SECRET, {
      sub: 'user-1',
      clientId: 'client-1',
      scopes: ['service:activities_basic'],
    });
  });
  afterAll(async () => {
    await service?.stop();
    await dropDatabase?.();
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  const get = (pathname: string, authorized = true) =>
    fetch(`${service.url}${pathname}`, {
      headers: authorized ? { authorization: `Bearer ${token}` } : {},
    });
  const graphql = () =>
    fetch(`${service.url}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ accessories { edges { node { id } } } }' }),
    });
  const shed = async () => {
    const text = await (await get('/metrics', false)).text();
    return Number(/^clipgate_refusals_total\{reason="shed"\} (\d+)/m.exec(text)?.[1] ?? 0);
  };

  it('refuses new requests with 503 and Retry-After while the loop lags, health and metrics answer', async () => {
    expect((await get('/api/accessories')).status).toBe(200);
    const shedBefore = await shed();

    service.child.kill('SIGSTOP');
    const queued = [get('/api/accessories'), get('/api/accessories'), graphql()];
    const health = [get('/healthz', false), get('/readyz', false), get('/metrics', false)];
    await new Promise((resolve) => setTimeout(resolve, 1000));
    service.child.kill('SIGCONT');

    for (const res of await Promise.all(queued)) {
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('1');
      const body = (await res.json()) as {
        error?: { code: string };
        errors?: { extensions: { code: string } }[];
      };
      expect(body.error?.code ?? body.errors?.[0]?.extensions.code).toBe('UNAVAILABLE');
    }
    expect((await Promise.all(health)).map((r) => r.status)).toEqual([200, 200, 200]);
    expect(await shed()).toBe(shedBefore + queued.length);

    // The loop has caught up: requests are served again.
    await expect
      .poll(async () => (await get('/api/accessories')).status, { timeout: 10_000, interval: 100 })
      .toBe(200);
  });
});
