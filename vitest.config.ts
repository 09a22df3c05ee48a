import os from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // graphql ships CJS and ESM builds; Pothos loads the CJS one, so the tests must too, or the
  // schema's types come from another "realm" than the functions checking them.
  resolve: { alias: { graphql: 'graphql/index.js' } },
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Most files spend their time waiting on sockets, timers and child processes, not computing:
    // vitest's default (one worker less than the cores) leaves a two-core machine with one.
    maxWorkers: Math.max(2, os.availableParallelism() - 1),
    reporters: ['default', 'json'],
    outputFile: { json: 'test-results.json' },
  },
});
