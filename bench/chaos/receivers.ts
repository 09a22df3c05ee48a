import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyNotification } from '../../src/notifications/receiver.ts';

/** How a chaos receiver answers: always, slowly, half of the time, or now and then with a 410. */
export type Behaviour = 'healthy' | 'slow' | 'failing' | 'gone';

/** One request a receiver got: when it arrived and when it was answered (or its socket closed). */
export interface Arrival {
  webhookId: string;
  /** Verified with both signatures (Standard Webhooks and X-Vendor-Verify). */
  verified: boolean;
  status: number;
  /** The answer was written before the connection closed. */
  answered: boolean;
  arrivedAt: number;
  /** When the answer was written or the connection closed, whichever came first. */
  endedAt: number;
}

export interface ChaosReceiver {
  name: string;
  behaviour: Behaviour;
  url: string;
  authKey: string;
  arrivals: Arrival[];
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The status and delay of one answer of a receiver with `behaviour`. */
function answerOf(behaviour: Behaviour): { status: number; delayMs: number } {
  switch (behaviour) {
    case 'healthy':
      return { status: 204, delayMs: Math.random() * 20 };
    case 'slow':
      return { status: 200, delayMs: 3000 + Math.random() * 3000 };
    case 'failing':
      return { status: Math.random() < 0.5 ? 500 : 204, delayMs: Math.random() * 20 };
    case 'gone':
      return { status: Math.random() < 0.03 ? 410 : 204, delayMs: Math.random() * 20 };
  }
}

/**
 * A loopback receiver that verifies every notification with `authKey` (401 when it does not
 * verify) and records the arrival and the end of each request per `webhook-id`.
 */
export async function startChaosReceiver(
  name: string,
  behaviour: Behaviour,
  authKey: string,
): Promise<ChaosReceiver> {
  const arrivals: Arrival[] = [];
  const server: Server = createServer((req, res) => {
    const arrivedAt = Date.now();
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const { 'x-vendor-verify': vendor, ...standard } = req.headers;
      const verified =
        verifyNotification(raw, standard, authKey).ok &&
        verifyNotification(raw, { 'x-vendor-verify': vendor }, authKey, {
          allowLegacyVendorHeader: true,
        }).ok;
      const { status, delayMs } = verified ? answerOf(behaviour) : { status: 401, delayMs: 0 };
      const arrival: Arrival = {
        webhookId: String(req.headers['webhook-id'] ?? ''),
        verified,
        status,
        answered: false,
        arrivedAt,
        endedAt: Number.POSITIVE_INFINITY,
      };
      arrivals.push(arrival);
      res.on('close', () => (arrival.endedAt = Math.min(arrival.endedAt, Date.now())));
      void sleep(delayMs).then(() => {
        if (!res.destroyed) {
          res.writeHead(status).end();
          arrival.answered = true;
        }
        arrival.endedAt = Math.min(arrival.endedAt, Date.now());
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    name,
    behaviour,
    url: `http://127.0.0.1:${port}/hooks/${name}`,
    authKey,
    arrivals,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
