import os from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * Files that change what other files would see in their process: a module mocked
 * (`vi.mock`), an environment variable set. They run each in a process of its own.
 */
const isolated = ['test/graphql/workers.test.ts', 'test/web/**/*.test.ts'];

export default defineConfig({
  // graphql ships CJS and ESM builds; Pothos loads the CJS one, so the tests must too, or the
  // schema's types come from another "realm" than the functions checking them.
  resolve: { alias: { graphql: 'graphql/index.js' } },
  test: {
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Most files spend their time waiting on sockets, timers and child processes, not computing:
    // vitest's default (one worker less than the cores) leaves a two-core machine with one.
    maxWorkers: Math.max(2, os.availableParallelism() - 1),
    reporters: ['default', 'json'],
    outputFile: { json: 'test-results.json' },
    projects: [
      {
        extends: true,
        // The other files share their worker's modules: the service is imported once per worker,
        // not once per file (the time spent importing, summed over the files: 90 s before, 17 s).
        test: {
          name: 'shared',
          include: ['test/**/*.test.ts', ...isolated.map((glob) => `!${glob}`)],
          isolate: false,
        },
      },
      { extends: true, test: { name: 'isolated', include: isolated } },
    ],
  },
});
