// The noisy neighbour of bench/neighbours, forked by it at a low CPU priority so that its answers
// (tens of megabytes of counts, thousands of notifications) take this process's event loop, not
// the victim's probe. Mallory's one client sends each attack as an ordinary client would, until
// told to stop, and reports how many answers of each kind it got. The loopback receiver her
// webhook registration points at lives here too: it answers 204 to anything, at once.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient, type Client } from 'graphql-ws';
import { Agent, request } from 'undici';
import WebSocket from 'ws';

/** Mallory's cameras, fed by her ingest pipeline. */
export interface Cameras {
  token: string;
  accessoryIds: string[];
  /** Activities a second. */
  perSecond: number;
}

export type Attack =
  | { name: 'aliased-counts'; token: string; query: string; connections: number }
  | { name: 'rest-counts'; token: string; body: object; connections: number }
  | { name: 'replay'; token: string; bodies: object[]; connections: number }
  | {
      name: 'live-queries';
      token: string;
      query: string;
      /** The variables of the n-th live query: distinct for each. */
      from: string;
      to: string;
      connections: number;
      perConnection: number;
      openers: number;
      cameras: Cameras;
    }
  | { name: 'receiver-retry-after'; cameras: Cameras };

export type LoadCommand =
  { type: 'start'; base: string; attack: Attack } | { type: 'stop' } | { type: 'received' };

export type LoadReport =
  | { type: 'ready'; receiverPort: number }
  /** How many notifications the receiver has taken so far. */
  | { type: 'received'; count: number }
  | { type: 'started' }
  /** Answers by kind: an HTTP status, a GraphQL error's status, `no answer`, `close <code>`. */
  | { type: 'stopped'; answers: [string, number][]; notes: string[] };

/** An attacker's request gives up after this long (counted as `no answer`). */
const TIMEOUT_MS = 30_000;
/** The HTTP status of a GraphQL error code, as the REST paths would answer it. */
const STATUS_OF_CODE: Record<string, number> = {
  RATE_LIMITED: 429,
  UNAVAILABLE: 503,
  INTERNAL: 500,
  UNAUTHENTICATED: 401,
  PERMISSION_DENIED: 403,
  NOT_FOUND: 404,
};

const send = (report: LoadReport) => process.send!(report);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let received = 0;
const receiver = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    received++;
    res.writeHead(204).end();
  });
});
receiver.keepAliveTimeout = 60_000;
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));

interface GraphqlError {
  extensions?: { code?: string; details?: { retryAfterSeconds?: number } };
}

/** The kind of a GraphQL error: the status its code stands for. */
const errorKind = (errors: readonly GraphqlError[]) =>
  String(STATUS_OF_CODE[errors[0]?.extensions?.code ?? ''] ?? 400);

/** POSTs JSON with Mallory's token; the kind of the answer (a GraphQL error's in a 200). */
async function post(
  dispatcher: Agent,
  url: string,
  token: string,
  body: unknown,
  contentType = 'application/json',
): Promise<string> {
  const res = await request(url, {
    method: 'POST',
    dispatcher,
    signal: AbortSignal.timeout(TIMEOUT_MS),
    headers: { authorization: `Bearer ${token}`, 'content-type': contentType },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.body.text();
  if (res.statusCode === 200 && url.endsWith('/graphql') && text.includes('"errors"')) {
    return errorKind((JSON.parse(text) as { errors: GraphqlError[] }).errors);
  }
  return String(res.statusCode);
}

class Tally {
  readonly answers = new Map<string, number>();
  add(kind: string) {
    this.answers.set(kind, (this.answers.get(kind) ?? 0) + 1);
  }
}

/** `workers` closed loops of `attempt` while `running()`; a failed attempt is `no answer`. */
async function loops(
  workers: number,
  running: () => boolean,
  tally: Tally,
  attempt: (dispatcher: Agent, n: number) => Promise<string>,
): Promise<void> {
  const dispatcher = new Agent({ connections: workers });
  let n = 0;
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (running()) tally.add(await attempt(dispatcher, n++).catch(() => 'no answer'));
    }),
  );
  await dispatcher.close();
}

/** Mallory's cameras: `perSecond` activities each second over the ingest API, while running. */
async function cameras(base: string, c: Cameras, running: () => boolean, tally: Tally) {
  const dispatcher = new Agent({ connections: 1 });
  let n = 0;
  while (running()) {
    const started = performance.now();
    const items = Array.from({ length: c.perSecond }, () => ({
      op: 'createActivity',
      accessoryId: c.accessoryIds[n++ % c.accessoryIds.length],
      input: { relevanceLevel: n % 4 },
    }));
    tally.add(
      await post(dispatcher, `${base}/api/ingest`, c.token, items).catch(() => 'no answer'),
    );
    await sleep(1000 - (performance.now() - started));
  }
  await dispatcher.close();
}

/**
 * As many live queries as Mallory may open: `perConnection` on each of `connections` sockets,
 * each with variables of its own, opened by `openers` at once; a refusal of her rate is waited
 * out as its Retry-After says. They stay open (updates counted) until the attack stops.
 */
async function liveQueries(
  base: string,
  a: Extract<Attack, { name: 'live-queries' }>,
  running: () => boolean,
  tally: Tally,
): Promise<string[]> {
  const url = `${base.replace(/^http/, 'ws')}/graphql`;
  const clients: Client[] = [];
  const closes = new Map<number, number>();
  const client = (c: number) =>
    (clients[c] ??= createClient({
      url,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${a.token}` },
      retryAttempts: 0,
      on: {
        closed: (event) => {
          const code = (event as { code?: number }).code ?? 0;
          closes.set(code, (closes.get(code) ?? 0) + 1);
        },
      },
    }));
  let next = 0;
  let open = 0;
  let updates = 0;
  /** Opens the n-th; resolves with its first answer's kind and the seconds to wait before more. */
  const subscribe = (n: number) =>
    new Promise<{ kind: string; wait: number }>((resolve) => {
      let first = true;
      const variables = { from: new Date(Date.parse(a.from) + n * 1000).toISOString(), to: a.to };
      client(Math.floor(n / a.perConnection)).subscribe(
        { query: a.query, variables },
        {
          next: (result) => {
            if (!first) {
              updates++;
              return;
            }
            first = false;
            if (result.data) {
              open++;
              resolve({ kind: '200', wait: 0 });
            } else {
              const errors = (result.errors ?? []) as readonly GraphqlError[];
              resolve({
                kind: errorKind(errors),
                wait: errors[0]?.extensions?.details?.retryAfterSeconds ?? 0,
              });
            }
          },
          error: (err) => {
            if (!first) {
              open--;
              return;
            }
            first = false;
            const code = (err as { code?: number }).code;
            resolve({ kind: code === undefined ? 'no answer' : `close ${code}`, wait: 0 });
          },
          complete: () => {
            if (first) resolve({ kind: 'completed at once', wait: 0 });
            else open--;
          },
        },
      );
    });
  const limit = a.connections * a.perConnection;
  let refusedInARow = 0;
  await Promise.all(
    Array.from({ length: a.openers }, async () => {
      // Twenty refusals in a row that are not of her rate: she has reached a limit.
      while (running() && next < limit && refusedInARow < 20) {
        const { kind, wait } = await Promise.race([
          subscribe(next++),
          sleep(TIMEOUT_MS).then(() => ({ kind: 'no answer', wait: 0 })),
        ]);
        tally.add(kind);
        refusedInARow = kind === '200' || kind === '429' ? 0 : refusedInARow + 1;
        if (wait > 0) await sleep(wait * 1000);
      }
    }),
  );
  while (running()) await sleep(100);
  const notes = [
    `${open} live queries open at the end (of ${next} asked for; sockets: ${clients.length}), ${updates} updates received`,
  ];
  if (closes.size > 0) {
    notes.push(`sockets closed: ${[...closes].map(([code, n]) => `${code}: ${n}`).join(', ')}`);
  }
  await Promise.all(clients.map((c) => c.dispose()));
  return notes;
}

send({ type: 'ready', receiverPort: (receiver.address() as AddressInfo).port });

let running = false;
process.on('message', (command: LoadCommand) => {
  if (command.type === 'received') {
    send({ type: 'received', count: received });
    return;
  }
  if (command.type === 'stop') {
    running = false;
    return;
  }
  running = true;
  const { base, attack } = command;
  const tally = new Tally();
  const cameraTally = new Tally();
  const isRunning = () => running;
  let done: Promise<string[]>;
  switch (attack.name) {
    case 'aliased-counts':
      done = loops(attack.connections, isRunning, tally, (dispatcher) =>
        post(dispatcher, `${base}/graphql`, attack.token, { query: attack.query }),
      ).then(() => []);
      break;
    case 'rest-counts':
      done = loops(attack.connections, isRunning, tally, (dispatcher) =>
        post(dispatcher, `${base}/api/activities/counts`, attack.token, attack.body),
      ).then(() => []);
      break;
    case 'replay':
      done = loops(attack.connections, isRunning, tally, (dispatcher, n) =>
        post(
          dispatcher,
          `${base}/api/accounts/self/notifications/replay`,
          attack.token,
          attack.bodies[n % attack.bodies.length],
        ),
      ).then(() => []);
      break;
    case 'live-queries':
      done = Promise.all([
        liveQueries(base, attack, isRunning, tally),
        cameras(base, attack.cameras, isRunning, cameraTally),
      ]).then(([notes]) => notes);
      break;
    case 'receiver-retry-after':
      done = cameras(base, attack.cameras, isRunning, tally).then(() => []);
      break;
  }
  send({ type: 'started' });
  void done.then((notes) => {
    if (cameraTally.answers.size > 0) {
      const answers = [...cameraTally.answers].map(([k, n]) => `${k}: ${n}`).join(', ');
      notes.push(`her cameras' ingest requests (activities for the live queries): ${answers}`);
    }
    send({ type: 'stopped', answers: [...tally.answers], notes });
  });
});
process.on('disconnect', () => process.exit(0));
