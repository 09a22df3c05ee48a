/**
 * The one-minute demo: starts the service on the embedded database (unless one already answers
 * at --url), runs the camera simulator against it, and prints the dashboard's address with a
 * development token in the URL fragment (never sent to the server).
 *
 *   npm run demo -- [--port 4000] [--accessories 3] [--rate 6]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadDevSecret, signDevToken } from '../src/accounts/auth.ts';
import { loadConfig } from '../src/config.ts';
import { dashboardDir } from '../src/web/static.ts';
import { defaults, simulate } from './simulate.ts';

const root = fileURLToPath(new URL('../', import.meta.url));

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: process.env.PORT ?? '4000' },
    accessories: { type: 'string', default: String(defaults.accessories) },
    rate: { type: 'string', default: String(defaults.rate) },
    subject: { type: 'string', default: defaults.subject },
  },
});
const url = `http://127.0.0.1:${values.port}`;

async function answers(): Promise<boolean> {
  try {
    return (await fetch(`${url}/readyz`)).ok;
  } catch {
    return false;
  }
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv = {}): ChildProcess {
  return spawn(command, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
}

async function main(): Promise<void> {
  let stopping = false;
  const config = loadConfig();
  if (config.auth.mode !== 'dev') throw new Error('the demo needs dev authentication');
  if (!fs.existsSync(`${dashboardDir()}/index.html`)) {
    console.log('[demo] building the dashboard (npm run build:web)…');
    const build = run('npx', ['vite', 'build', 'web']);
    const code = await new Promise<number | null>((r) => build.once('exit', r));
    if (code !== 0) throw new Error('the dashboard build failed');
  }

  let service: ChildProcess | undefined;
  if (await answers()) {
    console.log(`[demo] using the service already running at ${url}`);
  } else {
    console.log(`[demo] starting the service at ${url} (embedded database in ${config.dataDir})`);
    service = run(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      PORT: values.port,
      HOST: '127.0.0.1',
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    });
    service.once('exit', (code) => {
      if (!stopping) {
        console.error(`[demo] the service exited (${code})`);
        process.exit(1);
      }
    });
    const deadline = Date.now() + 60_000;
    while (!(await answers())) {
      if (Date.now() > deadline) throw new Error('the service did not become ready in 60 s');
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  const { secret } = await loadDevSecret(config.dataDir, config.auth.secret);
  const scope = (n: string) => `${config.scopePrefix}:${n}`;
  const token = await signDevToken(secret, {
    sub: values.subject,
    clientId: 'dashboard',
    scopes: ['activities_basic', 'zones', 'notifications'].map(scope),
    ttlSeconds: 12 * 3600,
  });

  const controller = new AbortController();
  const stop = () => {
    if (stopping) return;
    stopping = true;
    controller.abort();
    service?.kill('SIGTERM');
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);

  const simulation = simulate({
    ...defaults,
    url,
    accessories: Number(values.accessories),
    rate: Number(values.rate),
    subject: values.subject,
    signal: controller.signal,
  });
  // The account exists once the simulator's first call returned; the page needs it.
  await new Promise((r) => setTimeout(r, 1500));
  console.log(`\n  Dashboard: ${url}/app#token=${token}\n`);
  console.log(
    '  (the token is in the fragment, never sent to the server, and the page drops it from the address bar; Ctrl-C stops)\n',
  );
  await simulation.catch((err: unknown) => {
    console.error(`[demo] simulator: ${err instanceof Error ? err.message : err}`);
  });
  stop();
  if (service && service.exitCode === null) {
    await new Promise((r) => service!.once('exit', r));
  }
}

main().catch((err: unknown) => {
  console.error(`[demo] ${err instanceof Error ? err.message : err}`);
  process.exitCode = 1;
});
