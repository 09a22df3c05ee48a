import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startServiceProcess, type ServiceProcess } from '../../test/helpers/process.ts';

/** One slot of the cluster: the service process running in it now, if any. */
export interface Instance {
  index: number;
  service: ServiceProcess | undefined;
  starts: number;
}

/** A SIGKILL the fault injector sent, and when. */
export interface Kill {
  index: number;
  at: number;
}

/**
 * N instances of the service (`node --import tsx src/main.ts`, as an operator starts it) on one
 * database and one Redis, each in its own DATA_DIR with the same SECRETS_KEY.
 */
export class Cluster {
  readonly instances: Instance[];
  readonly kills: Kill[] = [];
  /** Instances that exited without being killed (each restarted). */
  readonly crashes: { index: number; at: number; code: number | null }[] = [];
  /** Starts that failed (e.g. while the database was cut: it migrates first) and were retried. */
  failedStarts = 0;
  #stopping = false;
  readonly #env: Record<string, string>;
  readonly #dataDirs: string[] = [];

  constructor(count: number, env: Record<string, string>) {
    this.instances = Array.from({ length: count }, (_, index) => ({
      index,
      service: undefined,
      starts: 0,
    }));
    this.#env = {
      SECRETS_KEY: randomBytes(32).toString('base64'),
      MEDIA_URL_SECRET: randomBytes(24).toString('base64url'),
      ...env,
    };
  }

  async start(): Promise<void> {
    await Promise.all(this.instances.map((i) => this.#launch(i)));
  }

  /** The base URLs of the instances that run now. */
  urls(): string[] {
    return this.instances.flatMap((i) => (i.service ? [i.service.url] : []));
  }

  /** A random running instance's URL (undefined while none runs). */
  pick(): string | undefined {
    const urls = this.urls();
    return urls[Math.floor(Math.random() * urls.length)];
  }

  /** SIGKILLs instance `index` (if it runs) and resolves once it is gone. */
  async kill(index: number): Promise<void> {
    const instance = this.instances[index]!;
    const service = instance.service;
    if (!service) return;
    instance.service = undefined;
    this.kills.push({ index, at: Date.now() });
    service.child.kill('SIGKILL');
    await service.exited;
  }

  /** Starts instance `index` again (it must not run), retrying a start that fails. */
  async restart(index: number): Promise<void> {
    for (let tries = 1; ; tries++) {
      try {
        return await this.#launch(this.instances[index]!);
      } catch (err) {
        this.failedStarts++;
        if (tries >= 30 || this.#stopping) throw err;
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
  }

  /** SIGTERMs every instance (a graceful drain) and removes their data directories. */
  async stop(): Promise<void> {
    this.#stopping = true;
    await Promise.all(
      this.instances.map(async (i) => {
        const service = i.service;
        i.service = undefined;
        await service?.stop();
      }),
    );
    await Promise.all(this.#dataDirs.map((d) => fs.rm(d, { recursive: true, force: true })));
  }

  async #launch(instance: Instance): Promise<void> {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), `clipgate-chaos-${instance.index}-`));
    this.#dataDirs.push(dataDir);
    const service = await startServiceProcess(
      ['--import', 'tsx', 'src/main.ts'],
      { ...this.#env, DATA_DIR: dataDir },
      { listenTimeoutMs: 60_000 },
    );
    // The log is not kept in memory beyond the start; CHAOS_LOG_DIR keeps each start's in a file.
    service.child.stdout?.removeAllListeners('data');
    const logDir = process.env.CHAOS_LOG_DIR;
    if (logDir) {
      const file = path.join(logDir, `instance-${instance.index}-${instance.starts}.log`);
      service.child.stdout?.pipe(createWriteStream(file));
    } else {
      service.child.stdout?.resume();
    }
    instance.starts++;
    instance.service = service;
    void service.exited.then((code) => {
      if (instance.service !== service) return; // killed or stopped on purpose
      instance.service = undefined;
      this.crashes.push({ index: instance.index, at: Date.now(), code });
      if (!this.#stopping) void this.restart(instance.index);
    });
  }
}
