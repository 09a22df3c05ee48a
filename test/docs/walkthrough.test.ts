/**
 * The docs as tests: the shell examples of the README's walkthrough, then those of docs/api.md,
 * run in order by one shell against a fresh service on the embedded database, as a reader runs
 * them (test/helpers/doc-runner.ts says how a block is marked and what is checked). More files
 * run by adding them to `docs`, after the ones whose answers they build on.
 */
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  DocRunner,
  DocShell,
  findValue,
  markOf,
  shellBlocks,
  type DocBlock,
} from '../helpers/doc-runner.ts';
import { startServiceProcess, type ServiceProcess } from '../helpers/process.ts';

const docs = ['README.md', 'docs/api.md'];

/** Where each block is, for a failure's message. */
const named = (blocks: DocBlock[]) => blocks.map((b) => `${b.file}:${b.line} \`\`\`${b.info}`);

/** The ports the docs name: the service's, and the example receivers'. */
const SERVICE_PORT = 4000;
const RECEIVER_PORTS = [8080, 8081];

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });

describe('the shell examples of the README and docs/api.md', () => {
  let blocks: DocBlock[];
  let shell: DocShell | undefined;
  let service: ServiceProcess | undefined;
  let dataDir: string | undefined;
  afterAll(async () => {
    await service?.stop();
    await shell?.close();
    if (dataDir) await fs.rm(dataDir, { recursive: true, force: true });
  });

  it('are each marked as run by this test, or as not, with why', async () => {
    blocks = (await Promise.all(docs.map(shellBlocks))).flat();
    expect(blocks.length).toBeGreaterThan(20);
    expect(named(blocks.filter((b) => markOf(b) === undefined))).toEqual([]);
  });

  it('in docs/development.md (the dashboard and suite commands), none runs and each says why', async () => {
    const development = await shellBlocks('docs/development.md');
    expect(named(development.filter((b) => typeof markOf(b) !== 'object'))).toEqual([]);
  });

  it('behave as written, in order, against a fresh service', async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'clipgate-walkthrough-'));
    // The service keeps its port across restarts, as `npm start` on 4000 does.
    const servicePort = await freePort();
    const receivers = new Map<number, number>();
    for (const port of RECEIVER_PORTS) receivers.set(port, await freePort());
    shell = await DocShell.open({
      DATA_DIR: dataDir,
      DOC_BACKGROUND_LOG: path.join(dataDir, 'background.log'),
    });
    const runner = new DocRunner(shell, {
      substitute: (text) => {
        let rewritten = text.replace(
          new RegExp(`\\b(localhost|127\\.0\\.0\\.1):${SERVICE_PORT}\\b`, 'g'),
          `127.0.0.1:${servicePort}`,
        );
        for (const [documented, port] of receivers) {
          rewritten = rewritten.replace(new RegExp(`\\b${documented}\\b`, 'g'), String(port));
        }
        return rewritten;
      },
      start: async (env) => {
        await service?.stop();
        // As a reader's: dev authentication with the secret the service generates in DATA_DIR.
        service = await startServiceProcess(
          ['start'],
          { DATA_DIR: dataDir!, PORT: String(servicePort), AUTH_DEV_SECRET: '', ...env },
          {
            command: 'npm',
          },
        );
      },
    });

    const problems: string[] = [];
    for (const file of docs) {
      if (file === 'docs/api.md') {
        // What docs/api.md's examples take as given: the service, and the README's ids.
        const given = {
          API: service!.url,
          ACCESSORY: findValue(runner.answers, 'accessoryId'),
          ACTIVITY: findValue(runner.answers, 'activityId'),
        };
        await shell.run(
          `export ${Object.entries(given)
            .map(([k, v]) => `${k}=${v}`)
            .join(' ')}`,
        );
      }
      for (const block of blocks.filter((b) => b.file === file && markOf(b) === 'run')) {
        problems.push(...(await runner.run(block)));
      }
    }
    expect(problems).toEqual([]);
  }, 300_000);
});
