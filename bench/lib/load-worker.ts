// The thread of loadOnThread (bench/lib/load.ts): makes the run's requests with a factory of
// bench/lib/requests.ts, runs `load` with them, and posts when its measured part begins and
// what it measured.
import { parentPort, workerData } from 'node:worker_threads';
import { load, type LoadOnThread, type ThreadMessage } from './load.ts';
import * as factories from './requests.ts';

const { factory, args, concurrency, durationMs, warmupMs } = workerData as LoadOnThread;
const make = factories[factory] as (args: unknown) => Promise<factories.Requests>;
const { request, close } = await make(args);
const post = (message: ThreadMessage) => parentPort!.postMessage(message);
try {
  const result = await load(concurrency, durationMs, request, warmupMs, () =>
    post({ measuring: true }),
  );
  post({ result });
} finally {
  await close();
}
