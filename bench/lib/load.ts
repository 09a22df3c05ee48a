import { fork, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import type * as factories from './requests.ts';

export interface LoadResult {
  requests: number;
  rps: number;
  p50: number;
  p99: number;
}

/**
 * The flag the load's process must run with. V8's memory reducer, on by default, took bench/list's
 * process for one that could give memory back, and started full collections (incremental
 * mark-compacts) by its task while the load ran, with 40 MB of the heap's limit left (seen with
 * `--trace-incremental-marking`, Node 26): 84 over one run's loads, against 1 with it off. Each
 * stalls the clients for several ms, and the requests then in flight make the p99 of whatever
 * server they load, the bare server's as much as the service's. The npm scripts of the benches
 * that call `load` pass it to tsx; a bench run by hand needs it too (`npx tsx
 * --no-memory-reducer bench/…`).
 */
const NO_MEMORY_REDUCER = '--no-memory-reducer';

/**
 * A closed-loop load: `concurrency` workers each issue the next request as soon as the previous
 * one is answered, for `durationMs` after a short warm-up. Latencies in milliseconds. `measuring`
 * is called as the measured part begins (after the warm-up), for readings of CPU time. Refuses to
 * run in a process started without NO_MEMORY_REDUCER: its figures would be the load's own pauses.
 */
export async function load(
  concurrency: number,
  durationMs: number,
  request: (i: number) => Promise<void>,
  warmupMs = 1000,
  measuring?: () => void,
): Promise<LoadResult> {
  if (!process.execArgv.includes(NO_MEMORY_REDUCER)) {
    throw new Error(
      `run the bench with ${NO_MEMORY_REDUCER} (npm run bench:…, or npx tsx ${NO_MEMORY_REDUCER} …)`,
    );
  }
  const latencies: number[] = [];
  let counter = 0;
  const worker = async (until: number, record: boolean) => {
    while (performance.now() < until) {
      const started = performance.now();
      await request(counter++);
      if (record) latencies.push(performance.now() - started);
    }
  };
  const warmEnd = performance.now() + warmupMs;
  await Promise.all(Array.from({ length: concurrency }, () => worker(warmEnd, false)));
  measuring?.();
  const start = performance.now();
  const end = start + durationMs;
  await Promise.all(Array.from({ length: concurrency }, () => worker(end, true)));
  const elapsed = performance.now() - start;
  latencies.sort((a, b) => a - b);
  const at = (q: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!;
  return {
    requests: latencies.length,
    rps: (latencies.length / elapsed) * 1000,
    p50: at(0.5),
    p99: at(0.99),
  };
}

/** What the thread of `loadOnThread` is given (bench/lib/load-worker.ts). */
export interface LoadOnThread {
  factory: keyof typeof factories;
  args: unknown;
  concurrency: number;
  durationMs: number;
  warmupMs: number;
}

/** What that thread tells: the measured part begins; the run's result. */
export type ThreadMessage = { measuring: true } | { result: LoadResult };

/**
 * `load` on a thread of its own, with the requests that `factory` (bench/lib/requests.ts) makes
 * there of `args`. The thread's heap holds the clients and little else, and this thread's heap
 * (a bench's data set, the service's modules it imported) is collected apart from it. In
 * bench/list's own thread, which holds both, the load still had full collections of about 10 ms,
 * up to three a second, with the memory reducer off, and a third to half of the slowest percent
 * of requests were in flight during one.
 */
export function loadOnThread<F extends keyof typeof factories>(
  factory: F,
  args: Parameters<(typeof factories)[F]>[0],
  concurrency: number,
  durationMs: number,
  warmupMs = 1000,
  measuring?: () => void,
): Promise<LoadResult> {
  const workerData: LoadOnThread = { factory, args, concurrency, durationMs, warmupMs };
  const thread = new Worker(new URL('./load-worker.ts', import.meta.url), { workerData });
  return new Promise((resolve, reject) => {
    thread.on('message', (message: ThreadMessage) => {
      if ('measuring' in message) measuring?.();
      else resolve(message.result);
    });
    thread.once('error', reject);
    thread.once('exit', (code) => reject(new Error(`the load's thread exited with ${code}`)));
  });
}

export const fmt = (r: LoadResult) =>
  `${r.rps.toFixed(0).padStart(7)} req/s  p50 ${r.p50.toFixed(2).padStart(6)} ms  p99 ${r.p99.toFixed(2).padStart(6)} ms`;

/**
 * Starts a Node child process running a TypeScript file in `cwd`; resolves once it prints
 * `{"port":N}`-bearing JSON. By default BENCH_SERVICE_DIR names another checkout (a worktree of
 * an older commit, with its own node_modules) whose `src/main.ts` runs instead of this one's: the
 * same bench, before and after a change, in one session. With BENCH_SERVICE_BUILT=1 (in this
 * process's environment or the service's `env`) the service runs as the container runs it,
 * `dist/main.js` of that checkout (`npm run build` first), without tsx's transform, whose helpers
 * cost closures a little CPU each.
 */
export async function startServer(
  file: string,
  env: Record<string, string>,
  nodeArgs: string[] = [],
  cwd = file === 'src/main.ts' ? process.env.BENCH_SERVICE_DIR : undefined,
): Promise<{ port: number; child: ChildProcess; stop: () => Promise<void> }> {
  const built =
    file === 'src/main.ts' && (env.BENCH_SERVICE_BUILT ?? process.env.BENCH_SERVICE_BUILT) === '1';
  const args = built ? [...nodeArgs, builtMain(cwd)] : [...nodeArgs, '--import', 'tsx', file];
  const child = spawn(process.execPath, args, {
    cwd,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  // A bench that fails leaves no service behind to load the machine.
  const kill = () => child.kill();
  process.once('exit', kill);
  child.once('exit', () => process.off('exit', kill));
  const port = await new Promise<number>((resolve, reject) => {
    let buffer = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const m = /"port":(\d+)/.exec(buffer);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', (code) => reject(new Error(`${file} exited with ${code}`)));
  });
  child.stdout!.resume();
  return {
    port,
    child,
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** The compiled service of the checkout in `cwd` (this one by default). */
function builtMain(cwd: string | undefined): string {
  const main = path.resolve(cwd ?? '.', 'dist/main.js');
  if (!existsSync(main)) throw new Error(`${main} is missing: run npm run build first`);
  return main;
}

/** A target's verdict, as the benches print it. */
export const met = (ok: boolean): string => (ok ? 'met' : 'missed');

/** A process's user and system CPU time so far, in ms (Linux: /proc/<pid>/stat, 100 ticks/s). */
export function cpuTimesMs(pid: number): { user: number; system: number } {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return { user: Number(fields[11]) * 10, system: Number(fields[12]) * 10 };
}

/** User and system CPU time of a process so far, in ms. */
export function cpuMs(pid: number): number {
  const { user, system } = cpuTimesMs(pid);
  return user + system;
}

/**
 * CPU time so far, in ms, of each PostgreSQL server process on this machine (none where the
 * server runs elsewhere): what the database spent, read beside a run's requests.
 */
export function postgresCpuMs(): Map<number, number> {
  const byPid = new Map<number, number>();
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8') === 'postgres\n') {
        byPid.set(Number(pid), cpuMs(Number(pid)));
      }
    } catch {
      // gone meanwhile
    }
  }
  return byPid;
}

/**
 * The CPU time PostgreSQL's processes spent between two readings, in ms: of those in both (one
 * that ended meanwhile, such as an autovacuum worker, takes its whole time with it).
 */
export function postgresCpuSince(before: Map<number, number>): number {
  let sum = 0;
  for (const [pid, ms] of postgresCpuMs()) {
    const earlier = before.get(pid);
    if (earlier !== undefined) sum += ms - earlier;
  }
  return sum;
}

/** This process's CPU time so far, in ms (user and system). */
export function ownCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/**
 * Forks the load process `file` (a .ts file, run through tsx) under nice(1) at `nice`, so that
 * every thread of it has that priority from its start, and kills it when this process exits.
 */
export function forkNiced(file: string, nice: string): ChildProcess {
  const child = fork(file, [], {
    execPath: 'nice',
    execArgv: ['-n', nice, process.execPath, '--import', 'tsx'],
  });
  process.on('exit', () => child.kill());
  return child;
}

/** The machine's load average and its cores, for the last line of a bench's report. */
export const loadAverage = (): string =>
  `load average: ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')} on ${os.cpus().length} cores`;
