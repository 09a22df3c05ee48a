/**
 * The service as an operator starts it (src/main.ts): `npm start` stops on SIGTERM with its
 * whole process tree, a bad setting is one line naming the variable, and the start log names
 * every backing service in use.
 */
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { backends, freshPostgres } from './helpers/app.ts';
import { runToEnd, startServiceProcess } from './helpers/process.ts';

const dirs: string[] = [];
const tempDir = async () => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'clipgate-main-'));
  dirs.push(dir);
  return dir;
};
afterEach(async () => {
  for (const dir of dirs.splice(0)) await fs.rm(dir, { recursive: true, force: true });
});

/** The processes below `pid`, from /proc (Linux). */
async function descendants(pid: number): Promise<number[]> {
  const parents = new Map<number, number>();
  for (const entry of await fs.readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await fs.readFile(`/proc/${entry}/stat`, 'utf8').catch(() => undefined);
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses.
    if (stat)
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
  }
  const found: number[] = [];
  for (let frontier = [pid]; frontier.length > 0;) {
    frontier = [...parents]
      .filter(([, parent]) => frontier.includes(parent))
      .map(([child]) => child);
    found.push(...frontier);
  }
  return found;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const refused = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });

async function until(condition: () => boolean | Promise<boolean>, ms: number): Promise<boolean> {
  for (const deadline = Date.now() + ms; Date.now() < deadline;) {
    if (await condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return condition();
}

describe('npm start', () => {
  it('stops on SIGTERM to the npm process: the service drains, the port closes, every process ends', async () => {
    const service = await startServiceProcess(
      ['start'],
      { DATA_DIR: await tempDir() },
      {
        command: 'npm',
      },
    );
    const tree = await descendants(service.child.pid!);
    expect(tree.length).toBeGreaterThan(0);
    try {
      await service.stop();
      expect(await until(() => refused(service.port), 30_000)).toBe(true);
      expect(await until(() => tree.every((pid) => !alive(pid)), 30_000)).toBe(true);
      expect(service.lines.map((l) => l.msg)).toEqual(
        expect.arrayContaining(['listening', 'draining', 'stopped']),
      );
    } finally {
      for (const pid of tree.filter(alive)) process.kill(pid, 'SIGKILL');
    }
  }, 90_000);
});

describe('a setting the service cannot start with', () => {
  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['LOG_LEVEL', 'loud'],
    ['WEBHOOK_ALLOW_HTTP', 'yes'],
    ['LIVE_CHECK_MS', '5'],
  ])('%s=%s is one line naming it, and exit code 1', async (name, value) => {
    const run = await runToEnd(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      DATA_DIR: await tempDir(),
      [name]: value,
    });
    expect(run.code).toBe(1);
    expect(run.lines).toHaveLength(1);
    const line = JSON.parse(run.lines[0]!) as { level: number; msg: string };
    expect(line.level).toBe(60);
    expect(line.msg).toMatch(new RegExp(`^configuration refused: ${name} must be`));
  });
});

describe.each(backends)('the start log (%s)', (backend) => {
  it('names every backing service in use, without credentials', async () => {
    const dataDir = await tempDir();
    const pg = backend === 'postgres' ? await freshPostgres() : undefined;
    // A password in the URLs (the test server trusts loopback, so any will do).
    const withPassword = pg && pg.url.replace('postgres@', 'postgres:hunter2@');
    const env: Record<string, string> & { DATA_DIR: string } = withPassword
      ? {
          DATA_DIR: dataDir,
          ...pg.env,
          DATABASE_URL: withPassword,
          DATABASE_READ_URL: withPassword,
          REDIS_URL: process.env.TEST_REDIS_URL ?? '',
          OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9',
          FFMPEG_PATH: '/opt/none/ffmpeg',
        }
      : { DATA_DIR: dataDir };
    const service = await startServiceProcess(['--import', 'tsx', 'src/main.ts'], env);
    try {
      const listening = service.lines.find((l) => l.msg === 'listening')!;
      if (!pg) {
        expect(listening).toMatchObject({
          database: `embedded ${path.join(dataDir, 'pgdata')}`,
          readReplica: 'none',
          redis: expect.stringMatching(/^none: /),
          mediaStore: `fs ${path.join(dataDir, 'media')}`,
          ffmpeg: expect.stringMatching(/ffmpeg$/),
          tracing: 'off',
        });
      } else {
        const { host, pathname } = new URL(pg.url);
        expect(listening).toMatchObject({
          database: `postgres postgres://${host}${pathname}`,
          readReplica: `postgres://${host}${pathname}`,
          redis: process.env.TEST_REDIS_URL ?? expect.stringMatching(/^none: /),
          mediaStore: `fs ${path.join(dataDir, 'media')}`,
          ffmpeg: '/opt/none/ffmpeg',
          tracing: 'http://127.0.0.1:9',
        });
      }
      expect(JSON.stringify(service.lines)).not.toContain('hunter2');
    } finally {
      await service.stop();
      await pg?.drop();
    }
  }, 90_000);
});
