/**
 * The production build: `tsconfig.build.json` compiles src/ to JavaScript, and plain Node runs
 * it from the layout the container image has (dist/, node_modules/, prisma/migrations,
 * web/dist and package.json side by side), here in a temporary directory.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signDevToken } from '../src/accounts/auth.ts';
import { backends, freshPostgres, TEST_SECRET } from './helpers/app.ts';
import { postGraphQL } from './helpers/client.ts';
import { startServiceProcess } from './helpers/process.ts';

const root = fileURLToPath(new URL('../', import.meta.url));

describe('the production build', () => {
  let out: string;
  beforeAll(async () => {
    out = await fs.mkdtemp(path.join(os.tmpdir(), 'clipgate-build-'));
    // TypeScript 7's tsc, as `npm run build` runs it (docs/development.md, The toolchain).
    const tsc = path.join(root, 'node_modules/@typescript/native/bin/tsc');
    const dist = path.join(out, 'dist');
    await promisify(execFile)(
      process.execPath,
      [tsc, '-p', 'tsconfig.build.json', '--outDir', dist],
      {
        cwd: root,
      },
    );
    await promisify(execFile)(process.execPath, ['scripts/copy-sql.mjs', dist], { cwd: root });
    await fs.copyFile(path.join(root, 'package.json'), path.join(out, 'package.json'));
    await fs.mkdir(path.join(out, 'prisma'));
    await fs.mkdir(path.join(out, 'web'));
    for (const dir of ['node_modules', 'prisma/migrations', 'web/dist']) {
      await fs.symlink(path.join(root, dir), path.join(out, dir));
    }
  }, 180_000);
  afterAll(() => fs.rm(out, { recursive: true, force: true }));

  it('runs with node, serving the API, the dashboard and health, and stops on SIGTERM', async () => {
    const dataDir = path.join(out, 'data');
    const service = await startServiceProcess(
      [path.join(out, 'dist/main.js')],
      { DATA_DIR: dataDir },
      { cwd: out },
    );
    const { url } = service;
    try {
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      expect((await fetch(`${url}/readyz`)).status).toBe(200);
      const page = await fetch(`${url}/app`);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await page.text()).toContain('<script');
      // GraphiQL, its files out of the production dependencies.
      const graphiql = await fetch(`${url}/graphql`, { headers: { accept: 'text/html' } });
      expect(graphiql.status).toBe(200);
      const script = /src="(\/graphiql\/[^"]+\/graphiql\.js)"/.exec(await graphiql.text())?.[1];
      expect((await fetch(`${url}${script}`)).status).toBe(200);
      // The API reference, its files out of the production dependencies too.
      const reference = await (await fetch(`${url}/docs`)).text();
      const bundle = /src="(\/docs\/files\/[^"]+\/swagger-ui\.js)"/.exec(reference)?.[1];
      expect((await fetch(`${url}${bundle}`)).status).toBe(200);
      // Through the compiled Prisma client.
      const token = await signDevToken(TEST_SECRET, {
        sub: 'built',
        clientId: 'built',
        scopes: ['service:activities_basic'],
      });
      const res = await fetch(`${url}/api/accessories`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(await res.json()).toEqual({ accessories: [] });
    } finally {
      expect(await service.stop()).toBe(0);
    }
    expect(service.lines.map((l) => l.msg)).toEqual(
      expect.arrayContaining([
        'applied migration',
        'applied stored function',
        'listening',
        'stopped',
      ]),
    );
  }, 90_000);

  it.runIf(backends.includes('postgres'))(
    'runs one GraphQL worker thread by default on PostgreSQL, from the built module',
    async () => {
      const db = await freshPostgres();
      const service = await startServiceProcess(
        [path.join(out, 'dist/main.js')],
        {
          DATA_DIR: path.join(out, 'data-workers'),
          ...db.env,
          GRAPHQL_WORKER_MIN_COST: '1',
        },
        { cwd: out },
      );
      try {
        const token = await signDevToken(TEST_SECRET, {
          sub: 'built',
          clientId: 'built',
          scopes: ['service:activities_basic'],
        });
        const query = '{ accessories(first: 5) { edges { node { id } } } }';
        const res = await postGraphQL(service.url, token, query);
        // Its cost, as an answer made on the event loop carries it (the default budget is on).
        expect(await res.json()).toEqual({
          data: { accessories: { edges: [] } },
          extensions: { cost: expect.objectContaining({ requestedQueryCost: expect.any(Number) }) },
        });
        const metrics = await (await fetch(`${service.url}/metrics`)).text();
        expect(metrics).toMatch(/^clipgate_graphql_worker_operations_total\{outcome="ok"\} 1$/m);
      } finally {
        expect(await service.stop()).toBe(0);
        await db.drop();
      }
      // The start-up notices come from the instance, once: its thread repeats none of them.
      expect(service.lines.filter((l) => l.msg === 'media store')).toHaveLength(1);
      expect(service.lines).toContainEqual(
        expect.objectContaining({ msg: 'GraphQL worker threads', threads: 1 }),
      );
      expect(service.lines.filter((l) => 'graphqlWorker' in l)).toEqual([]);
    },
    90_000,
  );
});
