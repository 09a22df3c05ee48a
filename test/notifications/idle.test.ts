import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.ts';
import { sleep } from './helpers.ts';

// An idle service on the embedded database shares its one connection with every request: the
// dispatcher looks for work when told of some, not on a one-second poll.
describe('an idle dispatcher on the embedded database', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp('pglite');
  });
  afterAll(() => t.close());

  it('claims nothing on its own for seconds', async () => {
    await sleep(500); // its first look, at start
    const pool = t.app.services.db.pool;
    const query = pool.query.bind(pool);
    const names: string[] = [];
    pool.query = ((config: unknown, ...rest: unknown[]) => {
      const name = (config as { name?: string } | null)?.name;
      if (name) names.push(name);
      return (query as (...args: unknown[]) => unknown)(config, ...rest);
    }) as typeof pool.query;
    try {
      await sleep(4000);
    } finally {
      pool.query = query;
    }
    expect(names.filter((n) => n.includes('claim'))).toEqual([]);
  });
});
