import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { getHeapStatistics } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';

const root = fileURLToPath(new URL('../', import.meta.url));
const SECRET = 'clipgate-test-secret-0123456789abcdef'; // 37 bytes, as the tests use

describe('loadConfig', () => {
  it('runs one GraphQL worker thread by default on PostgreSQL, none on the embedded database', () => {
    const url = 'postgres://clipgate@db.internal/clipgate';
    expect(loadConfig({}).graphqlWorkers.threads).toBe(0);
    expect(loadConfig({ DATABASE_URL: '' }).graphqlWorkers.threads).toBe(0);
    expect(loadConfig({ DATABASE_URL: url }).graphqlWorkers.threads).toBe(1);
    expect(loadConfig({ DATABASE_URL: url, GRAPHQL_WORKERS: '0' }).graphqlWorkers.threads).toBe(0);
    expect(loadConfig({ DATABASE_URL: url, GRAPHQL_WORKERS: '3' }).graphqlWorkers.threads).toBe(3);
  });

  it('takes GRAPHQL_WORKER_NICE as steps of nice, 0-19, and refuses others naming it', () => {
    expect(loadConfig({}).graphqlWorkers.nice).toBe(10);
    expect(loadConfig({ GRAPHQL_WORKER_NICE: '0' }).graphqlWorkers.nice).toBe(0);
    expect(loadConfig({ GRAPHQL_WORKER_NICE: '19' }).graphqlWorkers.nice).toBe(19);
    for (const value of ['20', '-1', '2.5', 'low']) {
      expect(() => loadConfig({ GRAPHQL_WORKER_NICE: value }), value).toThrow(
        /^GRAPHQL_WORKER_NICE must be/,
      );
    }
  });

  it('takes GRAPHQL_UNPRICED_DATABASE_MS from 0 to 3600000 ms, and refuses others naming it', () => {
    const unpriced = (value?: string) =>
      loadConfig(value === undefined ? {} : { GRAPHQL_UNPRICED_DATABASE_MS: value }).limits.graphql
        .unpricedDatabaseMs;
    expect(unpriced()).toBe(50);
    expect(unpriced('0')).toBe(0);
    expect(unpriced('3600000')).toBe(3_600_000);
    for (const value of ['3600001', '-1', '2.5', 'none']) {
      expect(() => unpriced(value), value).toThrow(/^GRAPHQL_UNPRICED_DATABASE_MS must be/);
    }
  });

  it('takes LIVE_CHECK_MS from 100 to 60000 ms, and refuses others naming it', () => {
    expect(loadConfig({}).live.checkMs).toBe(1000);
    expect(loadConfig({ LIVE_CHECK_MS: '100' }).live.checkMs).toBe(100);
    for (const value of ['99', '60001', '0', 'soon']) {
      expect(() => loadConfig({ LIVE_CHECK_MS: value }), value).toThrow(/^LIVE_CHECK_MS must be/);
    }
  });

  it('takes WEBHOOK_REPLAY_RATE from 1 to 100000 a second, and refuses others naming it', () => {
    expect(loadConfig({}).webhook.replayRate).toBe(100);
    expect(loadConfig({ WEBHOOK_REPLAY_RATE: '1' }).webhook.replayRate).toBe(1);
    expect(loadConfig({ WEBHOOK_REPLAY_RATE: '100000' }).webhook.replayRate).toBe(100_000);
    for (const value of ['0', '100001', '-5', '2.5', 'fast']) {
      expect(() => loadConfig({ WEBHOOK_REPLAY_RATE: value }), value).toThrow(
        /^WEBHOOK_REPLAY_RATE must be/,
      );
    }
  });

  it('takes LIVE_QUERY_MIN_INTERVAL_MS from 50 to 60000 ms, and refuses others naming it', () => {
    expect(loadConfig({}).live.queryMinIntervalMs).toBe(1000);
    expect(loadConfig({ LIVE_QUERY_MIN_INTERVAL_MS: '50' }).live.queryMinIntervalMs).toBe(50);
    for (const value of ['49', '60001', '0', 'often']) {
      expect(() => loadConfig({ LIVE_QUERY_MIN_INTERVAL_MS: value }), value).toThrow(
        /^LIVE_QUERY_MIN_INTERVAL_MS must be/,
      );
    }
  });

  it('bounds live queries per caller and in all: 20, 8 MiB, and 1/16 of the heap by default', () => {
    const { live } = loadConfig({});
    expect(live.queryMaxPerCaller).toBe(20);
    expect(live.queryMaxBytesPerCaller).toBe(8 * 1024 * 1024);
    expect(live.queryMaxBytes).toBe(Math.floor(getHeapStatistics().heap_size_limit / 16));
    expect(loadConfig({ LIVE_QUERY_MAX_BYTES: '1000' }).live.queryMaxBytes).toBe(1000);
    for (const name of [
      'LIVE_QUERY_MAX_PER_CALLER',
      'LIVE_QUERY_MAX_BYTES_PER_CALLER',
      'LIVE_QUERY_MAX_BYTES',
    ]) {
      for (const value of ['0', '-1', 'lots']) {
        expect(() => loadConfig({ [name]: value }), `${name}=${value}`).toThrow(
          new RegExp(`^${name} must be`),
        );
      }
    }
  });

  it('takes DATABASE_DIRECT_URL beside a DATABASE_URL only, as a postgres URL', () => {
    const pooler = 'postgres://app@127.0.0.1:6432/db';
    const direct = 'postgres://app@127.0.0.1:5432/db';
    expect(loadConfig({ DATABASE_URL: pooler }).databaseDirectUrl).toBeUndefined();
    expect(
      loadConfig({ DATABASE_URL: pooler, DATABASE_DIRECT_URL: direct }).databaseDirectUrl,
    ).toBe(direct);
    expect(() => loadConfig({ DATABASE_DIRECT_URL: direct })).toThrow(
      /^DATABASE_DIRECT_URL needs DATABASE_URL/,
    );
    expect(() => loadConfig({ DATABASE_URL: pooler, DATABASE_DIRECT_URL: 'db:5432' })).toThrow(
      /^DATABASE_DIRECT_URL must be a postgres:\/\/ URL/,
    );
  });

  it('takes one Redis server or a Redis Cluster, never both, and names a bad node', () => {
    expect(loadConfig({}).redis).toBeUndefined();
    expect(loadConfig({ REDIS_URL: 'redis://r:6379' }).redis).toEqual({ url: 'redis://r:6379' });
    expect(loadConfig({ REDIS_CLUSTER_NODES: '10.0.0.1:7000, r2:7001,[::1]:7002' }).redis).toEqual({
      clusterNodes: [
        { host: '10.0.0.1', port: 7000 },
        { host: 'r2', port: 7001 },
        { host: '::1', port: 7002 },
      ],
    });
    expect(() =>
      loadConfig({ REDIS_URL: 'redis://r:6379', REDIS_CLUSTER_NODES: 'r:7000' }),
    ).toThrow(/^REDIS_URL and REDIS_CLUSTER_NODES are both set/);
    for (const bad of ['r', 'r:0', 'r:70000', 'r:7000,,r:7001', 'redis://r:7000']) {
      expect(() => loadConfig({ REDIS_CLUSTER_NODES: bad })).toThrow(
        /^REDIS_CLUSTER_NODES must be host:port pairs/,
      );
    }
    expect(() => loadConfig({ REDIS_URL: 'r:6379' })).toThrow(
      /^REDIS_URL must be a redis:\/\/ URL/,
    );
  });

  describe('authentication', () => {
    it('refuses an AUTH_DEV_SECRET shorter than 32 bytes, in production or not', () => {
      for (const NODE_ENV of [undefined, 'development', 'production']) {
        for (const secret of ['x', 'x'.repeat(31), 'ü'.repeat(15)]) {
          expect(() => loadConfig({ NODE_ENV, AUTH_DEV_SECRET: secret }), secret).toThrow(
            /^AUTH_DEV_SECRET must be at least 32 bytes/,
          );
        }
        const random = randomBytes(24).toString('base64');
        expect(random).toHaveLength(32);
        expect(loadConfig({ NODE_ENV, AUTH_DEV_SECRET: random }).auth).toEqual({
          mode: 'dev',
          secret: random,
        });
        expect(loadConfig({ NODE_ENV, AUTH_DEV_SECRET: SECRET }).auth.mode).toBe('dev');
      }
    });

    it('refuses an AUTH_DEV_SECRET of 32 bytes or more with little entropy, in production or not', () => {
      for (const NODE_ENV of [undefined, 'development', 'production']) {
        for (const secret of [
          'x'.repeat(32),
          // 16 characters of two bytes each are 32 bytes.
          'ü'.repeat(16),
          'ab'.repeat(32),
          'password'.repeat(4),
        ]) {
          expect(() => loadConfig({ NODE_ENV, AUTH_DEV_SECRET: secret }), secret).toThrow(
            /^AUTH_DEV_SECRET must have at least 128 bits of entropy, its characters show about \d+: a random secret, not a few characters repeated \(e\.g\. `openssl rand -base64 32`\)$/,
          );
        }
        for (const secret of [
          randomBytes(32).toString('base64'),
          randomBytes(32).toString('hex'),
          'abcdefghijklmnopqrstuvwxyz012345',
        ]) {
          expect(loadConfig({ NODE_ENV, AUTH_DEV_SECRET: secret }).auth.mode, secret).toBe('dev');
        }
      }
    });

    it('generates a development secret outside production only', () => {
      expect(loadConfig({}).auth).toEqual({ mode: 'dev', secret: undefined });
      expect(loadConfig({ NODE_ENV: 'test', AUTH_DEV_SECRET: '' }).auth).toEqual({
        mode: 'dev',
        secret: undefined,
      });
      for (const env of [{}, { AUTH_DEV_SECRET: '' }]) {
        expect(() => loadConfig({ NODE_ENV: 'production', ...env })).toThrow(
          /^AUTH_DEV_SECRET must be set \(at least 32 bytes\) for development tokens with NODE_ENV=production/,
        );
      }
    });

    it('requires AUTH_ISSUER and AUTH_AUDIENCE with AUTH_JWKS_URL, in production or not', () => {
      const jwks = { AUTH_JWKS_URL: 'https://idp.example.com/jwks.json' };
      for (const NODE_ENV of [undefined, 'production']) {
        expect(() => loadConfig({ NODE_ENV, ...jwks })).toThrow(/^AUTH_ISSUER must be set/);
        expect(() =>
          loadConfig({ NODE_ENV, ...jwks, AUTH_ISSUER: ' ', AUTH_AUDIENCE: 'clipgate' }),
        ).toThrow(/^AUTH_ISSUER must be set/);
        expect(() =>
          loadConfig({ NODE_ENV, ...jwks, AUTH_ISSUER: 'https://idp.example.com/' }),
        ).toThrow(/^AUTH_AUDIENCE must be set/);
        expect(
          loadConfig({
            NODE_ENV,
            ...jwks,
            AUTH_ISSUER: 'https://idp.example.com/',
            AUTH_AUDIENCE: 'clipgate',
          }).auth,
        ).toEqual({
          mode: 'jwks',
          jwksUrl: jwks.AUTH_JWKS_URL,
          issuer: 'https://idp.example.com/',
          audience: 'clipgate',
        });
      }
      // Another mode chosen: no development secret needed, even in production.
      expect(
        loadConfig({
          NODE_ENV: 'production',
          AUTH_INTROSPECTION_URL: 'https://idp.example.com/introspect',
        }).auth.mode,
      ).toBe('introspection');
    });
  });
});

describe('the service refusing its configuration', () => {
  /** `node src/main.ts` with `env`: its exit code and stdout lines. */
  async function start(env: Record<string, string>) {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'clipgate-config-'));
    try {
      const childEnv: NodeJS.ProcessEnv = {
        ...process.env,
        PORT: '0',
        DATA_DIR: dataDir,
        DATABASE_URL: '',
        AUTH_DEV_SECRET: '',
        AUTH_JWKS_URL: '',
        AUTH_INTROSPECTION_URL: '',
        ...env,
      };
      return await new Promise<{ code: number | null; lines: string[] }>((resolve) => {
        execFile(
          process.execPath,
          ['--import', 'tsx', 'src/main.ts'],
          { cwd: root, env: childEnv, timeout: 30_000 },
          (err, stdout) => {
            const code = err ? ((err as { code?: number }).code ?? null) : 0;
            resolve({ code, lines: stdout.split('\n').filter(Boolean) });
          },
        );
      });
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  }

  it.each([
    [{ NODE_ENV: 'production' }, 'AUTH_DEV_SECRET'],
    [{ AUTH_DEV_SECRET: 'x' }, 'AUTH_DEV_SECRET'],
    [{ NODE_ENV: 'production', AUTH_DEV_SECRET: 'x'.repeat(32) }, 'AUTH_DEV_SECRET'],
    [{ NODE_ENV: 'production', AUTH_JWKS_URL: 'https://idp.example.com/jwks' }, 'AUTH_ISSUER'],
  ])(
    'exits 1 with one line naming the variable (%o)',
    async (env, variable) => {
      const { code, lines } = await start(env);
      expect(code).toBe(1);
      expect(lines).toHaveLength(1);
      const line = JSON.parse(lines[0]!) as { level: number; msg: string };
      expect(line.level).toBe(60);
      expect(line.msg).toMatch(new RegExp(`^configuration refused: ${variable} must `));
    },
    40_000,
  );
});

describe('the export settings', () => {
  const exports = (env: Record<string, string>) => loadConfig(env).media.export;

  it('default to half the slots per account, a deadline, a read rate, a size cap, URL limits', () => {
    expect(exports({})).toMatchObject({
      concurrency: 2,
      perAccount: 1,
      timeoutS: 1800,
      minReadBytesPerS: 16 * 1024,
      readWindowS: 20,
      maxBytes: 2 * 1024 ** 3,
      urlRatePerMinute: 6,
      urlBurst: 5,
    });
    expect(exports({ EXPORT_CONCURRENCY: '1' }).perAccount).toBe(1);
    expect(exports({ EXPORT_CONCURRENCY: '5' }).perAccount).toBe(2);
    expect(exports({ EXPORT_MIN_READ_BYTES_PER_S: '0' }).minReadBytesPerS).toBe(0);
    expect(exports({ EXPORT_URL_RATE_PER_MINUTE: '0', EXPORT_URL_BURST: '0' }).urlBurst).toBe(0);
  });

  it('refuses values out of range, naming the variable', () => {
    for (const [env, message] of [
      [{ EXPORT_CONCURRENCY_PER_ACCOUNT: '0' }, /^EXPORT_CONCURRENCY_PER_ACCOUNT must be/],
      [{ EXPORT_CONCURRENCY_PER_ACCOUNT: '3' }, /^EXPORT_CONCURRENCY_PER_ACCOUNT must be/],
      [{ EXPORT_TIMEOUT_S: '0' }, /^EXPORT_TIMEOUT_S must be/],
      [{ EXPORT_TIMEOUT_S: '86401' }, /^EXPORT_TIMEOUT_S must be/],
      [{ EXPORT_READ_WINDOW_S: '0' }, /^EXPORT_READ_WINDOW_S must be/],
      [{ EXPORT_READ_WINDOW_S: '601' }, /^EXPORT_READ_WINDOW_S must be/],
      [{ EXPORT_MIN_READ_BYTES_PER_S: '-1' }, /^EXPORT_MIN_READ_BYTES_PER_S must be/],
      [{ EXPORT_MAX_BYTES: String(1024 ** 2) }, /^EXPORT_MAX_BYTES must be at least/],
      [{ EXPORT_URL_BURST: '0' }, /^EXPORT_URL_BURST must be/],
      [{ EXPORT_URL_RATE_PER_MINUTE: '1.5' }, /^EXPORT_URL_RATE_PER_MINUTE must be/],
    ] as const) {
      expect(() => exports(env), JSON.stringify(env)).toThrow(message);
    }
    expect(
      exports({ EXPORT_MAX_BYTES: String(1024 ** 2), MEDIA_MAX_MP4_BYTES: String(1024 ** 2) })
        .maxBytes,
    ).toBe(1024 ** 2);
  });
});
