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

  it('takes LIVE_CHECK_MS from 100 to 60000 ms, and refuses others naming it', () => {
    expect(loadConfig({}).live.checkMs).toBe(1000);
    expect(loadConfig({ LIVE_CHECK_MS: '100' }).live.checkMs).toBe(100);
    for (const value of ['99', '60001', '0', 'soon']) {
      expect(() => loadConfig({ LIVE_CHECK_MS: value }), value).toThrow(/^LIVE_CHECK_MS must be/);
    }
  });
});
