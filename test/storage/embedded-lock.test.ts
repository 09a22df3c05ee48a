/**
 * One process per embedded database: a second opener (the service, `npm run seed`) stops at once
 * naming the first; a lock left by a process that died is taken over. On PostgreSQL the seed
 * runs beside the service.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { signDevToken } from '../../src/accounts/auth.ts';
import { createLogger } from '../../src/logger.ts';
import { openDatabase } from '../../src/storage/database.ts';
import { DatabaseInUse, embeddedDirectory, lockEmbedded } from '../../src/storage/embedded-lock.ts';
import { backends, freshPostgres, TEST_SECRET } from '../helpers/app.ts';
import { gql, rest } from '../helpers/client.ts';
import { AssociateAccessory, CreateActivity, UpsertAccount } from '../helpers/fixtures.ts';
import { runToEnd, startServiceProcess, type ServiceProcess } from '../helpers/process.ts';

const logger = createLogger('silent');
const token = (sub: string, scopes: string[]) =>
  signDevToken(TEST_SECRET, {
    sub,
    clientId: 'lock-test',
    scopes: scopes.map((s) => `service:${s}`),
  });

const dirs: string[] = [];
const tempDir = async () => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'clipgate-lock-'));
  dirs.push(dir);
  return dir;
};
afterEach(async () => {
  for (const dir of dirs.splice(0)) await fs.rm(dir, { recursive: true, force: true });
});

/** The pid of a process that has ended. */
async function deadPid(): Promise<number> {
  const { spawn } = await import('node:child_process');
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid!;
}

/** An account with an accessory and an activity, written through the service's API. */
async function writeThroughApi(url: string) {
  const ingest = await token('owner', ['ingest']);
  const account = await gql(url, ingest, UpsertAccount, { subject: 'owner' });
  const accountId = account.data!.upsertAccount.accountId;
  const accessory = await gql(url, ingest, AssociateAccessory, {
    accountId,
    deviceId: 'cam-1',
    name: 'Porch',
  });
  const accessoryId = accessory.data!.associateAccessory.id;
  const created = await gql(url, ingest, CreateActivity, { accessoryId, input: {} });
  return { accessoryId, activityId: created.data!.createActivity.activityId };
}

const seed = (env: Record<string, string>) =>
  runToEnd('npm', ['run', '-s', 'seed', '--', '--accessories', '2', '--activities', '5'], env);

describe('the embedded database lock, in one process', () => {
  it('refuses a second lock, releases, and takes over a lock whose process is gone', async () => {
    const dir = embeddedDirectory(await tempDir());
    const release = await lockEmbedded(dir, logger);
    await expect(lockEmbedded(dir, logger)).rejects.toThrow(
      new DatabaseInUse(dir, process.pid).message,
    );
    await release();
    await expect(fs.stat(`${dir}.lock`)).rejects.toThrow(/ENOENT/);

    // Left by a process that died; or with this process's pid by an earlier process (a
    // container restarted after a crash gives its process the same pid).
    for (const stale of [await deadPid(), process.pid]) {
      await fs.writeFile(`${dir}.lock`, `${stale}\n`);
      const again = await lockEmbedded(dir, logger);
      expect(await fs.readFile(`${dir}.lock`, 'utf8')).toBe(`${process.pid}\n`);
      await again();
    }
    expect(await fs.readdir(path.dirname(dir))).toEqual([]);
  });
});

describe('a second process on a data directory in use', () => {
  let service: ServiceProcess | undefined;
  afterEach(async () => {
    await service?.stop();
    service = undefined;
  });

  it('stops at once naming the service, which keeps serving and loses nothing', async () => {
    const dataDir = await tempDir();
    service = await startServiceProcess(['--import', 'tsx', 'src/main.ts'], { DATA_DIR: dataDir });
    const { url } = service;
    const pid = service.child.pid!;
    const { accessoryId, activityId } = await writeThroughApi(url);

    const env = { DATA_DIR: dataDir, DATABASE_URL: '', PORT: '0', AUTH_DEV_SECRET: TEST_SECRET };
    const refusal = new DatabaseInUse(embeddedDirectory(dataDir), pid).message;
    const second = await runToEnd(process.execPath, ['--import', 'tsx', 'src/main.ts'], env);
    const seeding = await seed(env);
    for (const refused of [second, seeding]) {
      expect(refused.code).toBe(1);
      expect(refused.lines).toHaveLength(1);
      expect(refused.lines[0]).toContain(refusal);
      expect(refused.ms).toBeLessThan(5000);
    }

    // The first one serves on, and writes.
    const reader = await token('owner', ['activities_basic']);
    const list = () => rest(url, reader, 'POST', `/api/accessories/${accessoryId}/activities`, {});
    expect((await list()).body.activities.map((a: { activityId: string }) => a.activityId)).toEqual(
      [activityId],
    );
    expect((await rest(url, reader, 'GET', '/api/accessories')).status).toBe(200);
    expect(await service.stop()).toBe(0);
    service = undefined;
    await expect(fs.stat(`${embeddedDirectory(dataDir)}.lock`)).rejects.toThrow(/ENOENT/);

    // A lock left by a process that died is taken over (with a warning naming it), and nothing
    // the service wrote was lost.
    const dead = await deadPid();
    await fs.writeFile(`${embeddedDirectory(dataDir)}.lock`, `${dead}\n`);
    const seeded = await seed(env);
    expect(seeded.code).toBe(0);
    expect(seeded.lines.find((l) => l.includes('took over the lock'))).toContain(`"pid":${dead}`);
    const db = await openDatabase({
      databaseUrl: undefined,
      embeddedDir: embeddedDirectory(dataDir),
      logger,
    });
    try {
      const activities = await db.pool.query<{ activity_id: string }>(
        'SELECT activity_id FROM activities WHERE accessory_id = $1',
        [accessoryId],
      );
      expect(activities.rows.map((r) => r.activity_id)).toEqual([activityId]);
      const seededCount = await db.pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM activities JOIN accessories ON accessories.id = accessory_id
          JOIN accounts ON accounts.id = accessories.account_id WHERE accounts.subject = 'demo'`,
      );
      expect(seededCount.rows[0]!.n).toBe(10);
    } finally {
      await db.close();
    }
  }, 120_000);

  it.runIf(backends.includes('postgres'))(
    'on PostgreSQL, npm run seed writes beside the running service',
    async () => {
      const pg = await freshPostgres();
      try {
        const dataDir = await tempDir();
        service = await startServiceProcess(['--import', 'tsx', 'src/main.ts'], {
          DATA_DIR: dataDir,
          ...pg.env,
        });
        const seeded = await seed({ DATA_DIR: dataDir, ...pg.env });
        expect(seeded.code).toBe(0);
        const demo = await token('demo', ['activities_basic']);
        const { body } = await rest(service.url, demo, 'GET', '/api/accessories');
        expect(body.accessories.map((a: { deviceId: string }) => a.deviceId).sort()).toEqual([
          'seed-camera-1',
          'seed-camera-2',
        ]);
        expect(await service.stop()).toBe(0);
        service = undefined;
      } finally {
        await pg.drop();
      }
    },
    120_000,
  );
});
