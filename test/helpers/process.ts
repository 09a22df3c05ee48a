import { spawn, type ChildProcess } from 'node:child_process';
import { TEST_SECRET } from './app.ts';

/** The service running as its own process, as an operator starts it. */
export interface ServiceProcess {
  child: ChildProcess;
  port: number;
  url: string;
  /** Its stdout so far, a parsed JSON log line each (`{ raw }` for anything else). */
  lines: Record<string, unknown>[];
  /** The exit code (null when a signal ended it). */
  exited: Promise<number | null>;
  /** Sends SIGTERM and resolves with the exit code. */
  stop(): Promise<number | null>;
}

/**
 * Starts `node <args>` (or `command <args>`) on a free loopback port with dev authentication (TEST_SECRET), the
 * embedded database unless `env` says otherwise, and `env` (which names the DATA_DIR), and
 * resolves once it logs that it listens; a process that does not within `listenTimeoutMs` is
 * killed.
 */
export async function startServiceProcess(
  args: string[],
  env: Record<string, string> & { DATA_DIR: string },
  options: { cwd?: string; listenTimeoutMs?: number; command?: string } = {},
): Promise<ServiceProcess> {
  const childEnv: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: '0',
    AUTH_DEV_SECRET: TEST_SECRET,
    DATABASE_URL: '',
    LOG_LEVEL: 'info',
    // As in startApp: a loaded test machine stalls for longer than OVERLOAD_LAG_MS now and then,
    // and a shed request would fail an unrelated test. test/limits/overload.test.ts sets its own.
    OVERLOAD_LAG_MS: '0',
    ...env,
  };
  delete childEnv.WEB_DIST_DIR; // the dashboard build next to the code, as shipped
  const child = spawn(options.command ?? process.execPath, args, {
    cwd: options.cwd,
    env: childEnv,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const lines: Record<string, unknown>[] = [];
  const timeoutMs = options.listenTimeoutMs ?? 60_000;
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the service did not listen within ${timeoutMs / 1000} s`));
    }, timeoutMs);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the service exited early with ${code}`));
    });
    let buffer = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      for (let i = buffer.indexOf('\n'); i >= 0; i = buffer.indexOf('\n')) {
        const raw = buffer.slice(0, i);
        buffer = buffer.slice(i + 1);
        let line: Record<string, unknown>;
        try {
          line = JSON.parse(raw) as Record<string, unknown>;
        } catch {
          line = { raw };
        }
        lines.push(line);
        if (line.msg === 'listening') {
          clearTimeout(timer);
          resolve(line.port as number);
        }
      }
    });
  });
  return {
    child,
    port,
    url: `http://127.0.0.1:${port}`,
    lines,
    exited,
    stop: () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

export interface Finished {
  code: number | null;
  /** Its stdout and stderr, line by line, empty lines left out. */
  lines: string[];
  /** From the spawn to the exit. */
  ms: number;
}

/**
 * Runs `command` from the repository's root with this process's environment and `env`, and
 * resolves once it exits (a run longer than `timeoutMs` is killed and rejected).
 */
export async function runToEnd(
  command: string,
  args: string[],
  env: Record<string, string>,
  timeoutMs = 60_000,
): Promise<Finished> {
  const started = Date.now();
  const child = spawn(command, args, {
    cwd: new URL('../../', import.meta.url),
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${command} ${args.join(' ')} did not end within ${timeoutMs / 1000} s`));
    }, timeoutMs);
    child.once('close', (exitCode) => {
      clearTimeout(timer);
      resolve(exitCode);
    });
  });
  return { code, lines: output.split('\n').filter(Boolean), ms: Date.now() - started };
}
