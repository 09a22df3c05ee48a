import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';

describe('loadConfig', () => {
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
