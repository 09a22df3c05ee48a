import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import { buildApp, type App, type AppOptions } from '../../src/app.ts';
import { signDevToken } from '../../src/accounts/auth.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';

export type Backend = 'pglite' | 'postgres';

/**
 * On CI the suites that need the external servers fail without them instead of skipping, but
 * on the lines that run on the embedded database only, and say so (TEST_EMBEDDED_ONLY, .ci/run).
 */
export const serversRequired = Boolean(process.env.CI) && !process.env.TEST_EMBEDDED_ONLY;

if (serversRequired && !process.env.TEST_DATABASE_URL) {
  throw new Error('CI must set TEST_DATABASE_URL: the suite runs on PGlite and PostgreSQL');
}

/** Every suite runs on the embedded database, and on PostgreSQL when TEST_DATABASE_URL is set. */
export const backends: Backend[] = process.env.TEST_DATABASE_URL
  ? ['pglite', 'postgres']
  : ['pglite'];

export const TEST_SECRET = 'clipgate-test-secret-0123456789abcdef';

/**
 * With TEST_DATABASE_DIRECT_URL, TEST_DATABASE_URL is a transaction pooler in front of that
 * server (CI runs one line of the suite through PgBouncer): the apps connect through the pooler
 * and reach the database itself at the same database name on the direct server.
 */
const directServer = process.env.TEST_DATABASE_DIRECT_URL;

/** The direct server's URL of the database a pooler's `url` names, behind a pooler. */
export function directUrlOf(url: string): string | undefined {
  if (!directServer) return undefined;
  const direct = new URL(directServer);
  direct.pathname = new URL(url).pathname;
  return direct.toString();
}

/**
 * A fresh PostgreSQL database on the test server, dropped by the returned function: empty, or
 * with `migrated` a copy of the suite's migrated template (test/global-setup.ts); `env` are the
 * settings a service process takes for it (behind a pooler, its direct URL too).
 */
export async function freshPostgres({ migrated = false } = {}): Promise<{
  url: string;
  env: { DATABASE_URL: string; DATABASE_DIRECT_URL?: string };
  drop: () => Promise<void>;
}> {
  const admin = directServer ?? process.env.TEST_DATABASE_URL!;
  const name = `clipgate_test_${randomUUID().replace(/-/g, '')}`;
  const template = migrated ? inject('postgresTemplate') : null;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  await client.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`);
  await client.end();
  const url = new URL(process.env.TEST_DATABASE_URL!);
  url.pathname = `/${name}`;
  const direct = directUrlOf(url.toString());
  return {
    url: url.toString(),
    env: { DATABASE_URL: url.toString(), ...(direct && { DATABASE_DIRECT_URL: direct }) },
    drop: async () => {
      const c = new pg.Client({ connectionString: admin });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

let image: Promise<Blob> | undefined;
/** The suite's migrated embedded database (test/global-setup.ts), read once per test file. */
export function migratedImage(): Promise<Blob> {
  image ??= fs.readFile(inject('embeddedImage')).then((bytes) => new Blob([bytes]));
  return image;
}

export interface TestApp {
  app: App;
  url: string;
  config: Config;
  /** A dev token for a subject with the given short scope names. */
  token(scopes: string[], subject?: string, clientId?: string): Promise<string>;
  close(): Promise<void>;
}

/**
 * Starts the whole service on a loopback port, on its own fresh database. `adjust` changes the
 * loaded configuration where no variable can (e.g. an instance without ffmpeg); `options` are
 * handed to `buildApp` (e.g. a route to the embedded database through a TCP proxy, or a fake
 * clock that lets hours pass for receiver health).
 */
export async function startApp(
  backend: Backend,
  env: Record<string, string> = {},
  adjust: (config: Config) => void = () => {},
  options: Pick<AppOptions, 'routeEmbedded' | 'clock'> = {},
): Promise<TestApp> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'clipgate-test-'));
  // `env.DATABASE_URL` shares an existing database (e.g. a second instance on another app's
  // `config.databaseUrl`); the app that created it drops it.
  const pgdb =
    backend === 'postgres' && !env.DATABASE_URL
      ? await freshPostgres({ migrated: true })
      : undefined;
  const databaseUrl = env.DATABASE_URL ?? pgdb?.url;
  const directUrl = databaseUrl && directUrlOf(databaseUrl);
  const config = loadConfig({
    PORT: '0',
    DATA_DIR: dataDir,
    AUTH_DEV_SECRET: TEST_SECRET,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    // Suites drive many requests from one token; the rate-limit tests set their own budgets.
    RATE_LIMIT_RPS: '0',
    // A loaded test machine stalls for longer than OVERLOAD_LAG_MS now and then; a shed request
    // would fail an unrelated test. test/limits/overload.test.ts sets its own.
    OVERLOAD_LAG_MS: '0',
    // A loaded test machine's statements take longer than their price pays for; a request billed
    // for that would fail an unrelated test. The tests of what database time costs set their own.
    GRAPHQL_UNPRICED_DATABASE_MS: '3600000',
    // A thread on every PostgreSQL app would cost each suite its start and its memory; the tests
    // of the threads (and of their default, test/build.test.ts) ask for them.
    GRAPHQL_WORKERS: '0',
    ...(pgdb && { DATABASE_URL: pgdb.url }),
    ...(directUrl && { DATABASE_DIRECT_URL: directUrl }),
    ...env,
  });
  adjust(config);
  const app = await buildApp(config, {
    logger: createLogger(config.logLevel),
    embeddedDir: 'memory://',
    embeddedImage: await migratedImage(),
    ...options,
  });
  await app.listen();
  return {
    app,
    url: app.url(),
    config,
    token: (scopes, subject = 'user-1', clientId = 'client-1') =>
      signDevToken(TEST_SECRET, {
        sub: subject,
        clientId,
        scopes: scopes.map((s) => `${config.scopePrefix}:${s}`),
      }),
    close: async () => {
      await app.close();
      await pgdb?.drop();
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}
