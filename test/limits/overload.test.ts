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
    const db = backend === 'postgres' ? await freshPostgres({ migrated: true }) : undefined;
    dropDatabase = db?.drop;
    service = await startServiceProcess(['--import', 'tsx', 'src/main.ts'], {
      DATA_DIR: dataDir,
      OVERLOAD_LAG_MS: '300',
      ...db?.env,
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
  const refusals = async () => {
    const text = await (await get('/metrics', false)).text();
    const count = (reason: string) =>
      Number(
        new RegExp(`^clipgate_refusals_total\\{reason="${reason}"\\} (\\d+)`, 'm').exec(
          text,
        )?.[1] ?? 0,
      );
    return { shed: count('shed'), unavailable: count('unavailable') };
  };

  it('refuses new requests with 503 and Retry-After while the loop lags, health and metrics answer', async () => {
    expect((await get('/api/accessories')).status).toBe(200);
    const before = await refusals();

    service.child.kill('SIGSTOP');
    const queued = [get('/api/accessories'), get('/api/accessories'), graphql()];
    const health = [get('/healthz', false), get('/readyz', false), get('/metrics', false)];
    await new Promise((resolve) => setTimeout(resolve, 1000));
    service.child.kill('SIGCONT');

    const answers = await Promise.all(queued);
    for (const res of answers) {
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('1');
    }
    const message = 'the service is overloaded; retry shortly';
    const details = { retryAfterSeconds: 1 };
    for (const res of answers.slice(0, 2)) {
      expect(await res.json()).toEqual({ error: { code: 'UNAVAILABLE', message, details } });
    }
    // A GraphQL client finds the refusal where it finds every other error: in `errors`.
    expect(await answers[2]!.json()).toEqual({
      errors: [{ message, extensions: { code: 'UNAVAILABLE', details } }],
    });
    expect((await Promise.all(health)).map((r) => r.status)).toEqual([200, 200, 200]);
    // Counted once, as shed.
    expect(await refusals()).toEqual({
      shed: before.shed + queued.length,
      unavailable: before.unavailable,
    });

    // The loop has caught up: requests are served again.
    await expect
      .poll(async () => (await get('/api/accessories')).status, { timeout: 10_000, interval: 100 })
      .toBe(200);
  });
});
