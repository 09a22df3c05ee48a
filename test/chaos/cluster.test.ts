import { describe, expect, it } from 'vitest';
import { runChaos } from '../../bench/chaos/run.ts';

// Three instances on one PostgreSQL and one Redis: CI sets both, and must.
// The run cuts the database at TCP proxies of its own: on the server itself, behind a pooler or not.
const databaseUrl = process.env.TEST_DATABASE_DIRECT_URL ?? process.env.TEST_DATABASE_URL;
const redisUrl = process.env.TEST_REDIS_URL;
if (process.env.CI && (!databaseUrl || !redisUrl)) {
  throw new Error('CI must set TEST_DATABASE_URL and TEST_REDIS_URL: the chaos run needs both');
}
if (!databaseUrl || !redisUrl) {
  console.warn('the chaos run needs TEST_DATABASE_URL and TEST_REDIS_URL: it does not run');
}

/**
 * 30 s of load and faults, 18 s of quiet cameras with a database cut at a commit, the start of
 * three instances before, and up to 90 s to drain after.
 */
const TIMEOUT_MS = 240_000;

describe.runIf(databaseUrl && redisUrl)('a three-instance cluster under chaos', () => {
  it(
    'loses nothing, sends each attempt from one instance, keeps every live stream whole, and holds no quiet event back',
    async () => {
      const result = await runChaos({
        instances: 3,
        seconds: 30,
        quietSeconds: 18,
        adminDatabaseUrl: databaseUrl!,
        redisUrl: redisUrl!,
      });
      const v = result.verdict;
      expect(v.unaccounted).toEqual([]);
      expect(v.unexplainedDuplicates).toEqual([]);
      expect(v.overlaps).toEqual([]);
      expect(v.gaps).toEqual([]);
      expect(v.badServerErrors).toEqual([]);
      expect(v.crashes).toEqual([]);
      expect(v.events).toBeGreaterThan(0);
      expect(v.resumes).toBeGreaterThan(0);
      // After the database cut, each event of the quiet cameras reached every subscriber in time.
      expect(v.held).toEqual([]);
      expect(v.quiet.receipts).toBeGreaterThan(0);
      expect(result.ok).toBe(true);
    },
    TIMEOUT_MS,
  );
});
