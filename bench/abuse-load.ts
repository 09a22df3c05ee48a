// The abusers of bench/abuse, forked by it so that their answers (thousands of 429s a second)
// take this process's event loop, not the polite client's: one client flooding the REST list
// and one sending the costliest GraphQL operation the limits allow, each in closed loops, until
// told to stop; then it reports how many answers of each status each got.
import { Agent, request } from 'undici';

export type AbuseCommand =
  | {
      type: 'start';
      base: string;
      flood: { token: string; accessoryId: string; workers: number };
      costly: { token: string; query: string; workers: number };
    }
  | { type: 'stop' };

export type AbuseReport =
  { type: 'started' } | { type: 'stopped'; flood: [number, number][]; costly: [number, number][] };

const send = (report: AbuseReport) => process.send!(report);

/** Closed loops of `send` until `running()` is false; answers counted by status (0: none). */
async function loops(
  workers: number,
  running: () => boolean,
  attempt: (dispatcher: Agent) => Promise<number>,
): Promise<[number, number][]> {
  // Each client its own connections, as separate clients would have.
  const dispatcher = new Agent({ connections: 64 });
  const statuses = new Map<number, number>();
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (running()) {
        const status = await attempt(dispatcher).catch(() => 0);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
    }),
  );
  await dispatcher.close();
  return [...statuses];
}

let running = true;
process.on('message', (command: AbuseCommand) => {
  if (command.type === 'stop') {
    running = false;
    return;
  }
  const { base, flood, costly } = command;
  const floods = loops(
    flood.workers,
    () => running,
    async (dispatcher) => {
      const res = await request(`${base}/api/accessories/${flood.accessoryId}/activities`, {
        method: 'POST',
        dispatcher,
        headers: { authorization: `Bearer ${flood.token}`, 'content-type': 'application/json' },
        body: '{}',
      });
      await res.body.dump();
      return res.statusCode;
    },
  );
  const costlies = loops(
    costly.workers,
    () => running,
    async (dispatcher) => {
      const res = await request(`${base}/graphql`, {
        method: 'POST',
        dispatcher,
        headers: { authorization: `Bearer ${costly.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query: costly.query }),
      });
      await res.body.dump();
      return res.statusCode;
    },
  );
  send({ type: 'started' });
  void Promise.all([floods, costlies]).then(([f, c]) => {
    send({ type: 'stopped', flood: f, costly: c });
    process.disconnect();
  });
});
