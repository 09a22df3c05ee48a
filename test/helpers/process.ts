import { spawn } from 'node:child_process';
import { TEST_SECRET } from './app.ts';

/** The service running as its own process, as an operator starts it. */
export interface ServiceProcess {
  port: number;
  /** Its JSON log lines so far. */
  lines: Record<string, unknown>[];
  /** Sends SIGTERM and resolves with the exit code. */
  stop(): Promise<number | null>;
}

/**
 * Starts `node <args>` with the service's defaults (the embedded database in `dataDir`, dev
 * authentication with TEST_SECRET) on a free loopback port, and resolves once it logs that it
 * is listening.
 */
export async function startServiceProcess(
  args: string[],
  dataDir: string,
  options: { cwd?: string } = {},
): Promise<ServiceProcess> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: '0',
    DATA_DIR: dataDir,
    AUTH_DEV_SECRET: TEST_SECRET,
    DATABASE_URL: '',
    LOG_LEVEL: 'info',
  };
  delete env.WEB_DIST_DIR; // the dashboard build next to the code, as shipped
  const child = spawn(process.execPath, args, {
    cwd: options.cwd,
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const lines: Record<string, unknown>[] = [];
  const listening = new Promise<{ port: number }>((resolve, reject) => {
    let buffer = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      for (let i = buffer.indexOf('\n'); i >= 0; i = buffer.indexOf('\n')) {
        const line = JSON.parse(buffer.slice(0, i)) as Record<string, unknown>;
        buffer = buffer.slice(i + 1);
        lines.push(line);
        if (line.msg === 'listening') resolve(line as { port: number });
      }
    });
    void exited.then((code) => reject(new Error(`exited early with ${code}`)));
  });
  const { port } = await listening;
  return {
    port,
    lines,
    stop: () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}
