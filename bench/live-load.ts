// The load generator of bench/live, forked by it: opens graphql-ws clients (real WebSockets), each
// subscribing to the events of its target's accessories (one subscription each, over the client's
// one socket, as a dashboard watching several cameras does), and records when each event arrives
// (process.hrtime, CLOCK_MONOTONIC: the same clock as the server process's).
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';

/** What one socket watches: accessories of one account, with a token of that account. */
export interface Target {
  accessoryIds: string[];
  token: string;
}

export type LoadCommand =
  | { type: 'connect'; url: string; targets: Target[]; count: number }
  | { type: 'collect' }
  | { type: 'close' };

export type LoadReport =
  | { type: 'progress'; connected: number }
  | { type: 'connected'; connected: number; failed: number }
  | { type: 'receipts'; eventIds: string[]; micros: number[]; errors: number }
  | { type: 'closed' };

const QUERY = `subscription Live($accessoryId: ID!) {
  accessoryEvents(accessoryId: $accessoryId) { eventId accountId accessoryId eventType eventData occurredAt }
}`;

const send = (report: LoadReport) => process.send!(report);
const nowMicros = () => Number(process.hrtime.bigint() / 1000n);

const clients: Client[] = [];
let eventIds: string[] = [];
let micros: number[] = [];
let errors = 0;

function open(url: string, target: Target): Promise<boolean> {
  return new Promise((resolve) => {
    const client = createClient({
      url,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${target.token}` },
      lazy: false,
      retryAttempts: 0,
      onNonLazyError: () => resolve(false),
      on: { connected: () => resolve(true), closed: () => resolve(false) },
    });
    clients.push(client);
    for (const accessoryId of target.accessoryIds) {
      client.subscribe<{ accessoryEvents: { eventId: string } }>(
        { query: QUERY, variables: { accessoryId } },
        {
          next: (result) => {
            if (result.data) {
              micros.push(nowMicros());
              eventIds.push(result.data.accessoryEvents.eventId);
            } else errors++;
          },
          error: () => errors++,
          complete: () => {},
        },
      );
    }
  });
}

process.on('message', (command: LoadCommand) => {
  void (async () => {
    if (command.type === 'connect') {
      const url = `${command.url.replace(/^http/, 'ws')}/graphql`;
      let connected = 0;
      let failed = 0;
      // In waves, so that the listen backlog never overflows.
      for (let i = 0; i < command.count; i += 250) {
        const wave = Array.from({ length: Math.min(250, command.count - i) }, (_, j) =>
          open(url, command.targets[(i + j) % command.targets.length]!),
        );
        for (const ok of await Promise.all(wave)) {
          if (ok) connected++;
          else failed++;
        }
        send({ type: 'progress', connected });
      }
      send({ type: 'connected', connected, failed });
    } else if (command.type === 'collect') {
      send({ type: 'receipts', eventIds, micros, errors });
      eventIds = [];
      micros = [];
      errors = 0;
    } else {
      await Promise.all(clients.map((c) => c.dispose()));
      send({ type: 'closed' });
      process.exit(0);
    }
  })();
});
