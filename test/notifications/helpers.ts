import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyNotification } from '../../src/notifications/receiver.ts';
import { graphql } from '../generated/index.ts';
import type { TestApp } from '../helpers/app.ts';
import { vi } from 'vitest';
import { checkReceived, notificationProblems } from '../helpers/catalog.ts';
import { rest } from '../helpers/client.ts';

/** One notification as a receiver got it, with both signatures checked as a receiver does. */
export interface Receipt {
  webhookId: string;
  headers: IncomingHttpHeaders;
  raw: Buffer;
  body: any;
  /** The Standard Webhooks signature verified (verifyNotification with the webhook-* headers). */
  standard: boolean;
  /** X-Vendor-Verify verified on its own (only that header, allowLegacyVendorHeader). */
  vendor: boolean;
  at: number;
}

export type Responder = (
  receipt: Receipt,
  res: ServerResponse,
  count: number,
) => void | Promise<void>;

export interface Receiver {
  url: string;
  port: number;
  receipts: Receipt[];
  /** Requests being answered right now, and the most ever at once. */
  open: number;
  maxOpen: number;
  /** TCP connections accepted. */
  connections: number;
  respond: Responder;
  byId(webhookId: string): Receipt[];
  /** Waits until `predicate` holds, polling; fails with `what` after `timeoutMs`. */
  waitFor(predicate: () => boolean, what: string, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export const accept: Responder = (_r, res) => {
  res.writeHead(204).end();
};

/** What a receiver verifies with: the authKey, and an ed25519 registration's publicKey. */
export interface ReceiverKeys {
  authKey: string;
  /** `whpk_...`: webhook-signature is verified with it (v1a), X-Vendor-Verify with authKey. */
  publicKey?: string;
}

/**
 * A loopback receiver on 127.0.0.1 that verifies every notification with `authKey` (a bad
 * signature is answered 401 and still recorded), checks a verified one against the event
 * catalog (test/helpers/catalog.ts), then lets `respond` answer. `authKey` may be a function:
 * the keys it holds at each request (a receiver whose key is rotated, or an ed25519 one).
 */
export async function startReceiver(
  authKey: string | (() => string | ReceiverKeys),
  respond: Responder = accept,
): Promise<Receiver> {
  const keysNow = (): ReceiverKeys => {
    const keys = typeof authKey === 'string' ? authKey : authKey();
    return typeof keys === 'string' ? { authKey: keys } : keys;
  };
  const receiver: Receiver = {
    url: '',
    port: 0,
    receipts: [],
    open: 0,
    maxOpen: 0,
    connections: 0,
    respond,
    byId: (id) => receiver.receipts.filter((r) => r.webhookId === id),
    waitFor: (predicate, what, timeoutMs = 15_000) =>
      vi.waitFor(
        () => {
          if (!predicate()) {
            throw new Error(`timed out waiting for ${what} (${receiver.receipts.length} receipts)`);
          }
        },
        { timeout: timeoutMs, interval: 10 },
      ),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server = createServer((req, res) => {
    receiver.open++;
    receiver.maxOpen = Math.max(receiver.maxOpen, receiver.open);
    res.on('close', () => receiver.open--);
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const keys = keysNow();
      const { 'x-vendor-verify': vendor, ...standardHeaders } = req.headers;
      const receipt: Receipt = {
        webhookId: String(req.headers['webhook-id'] ?? ''),
        headers: req.headers,
        raw,
        body: safeJson(raw),
        standard: verifyNotification(raw, standardHeaders, keys.publicKey ?? keys.authKey).ok,
        vendor: verifyNotification(raw, { 'x-vendor-verify': vendor }, keys.authKey, {
          allowLegacyVendorHeader: true,
        }).ok,
        at: Date.now(),
      };
      receiver.receipts.push(receipt);
      if (!receipt.standard || !receipt.vendor) {
        res.writeHead(401).end('bad signature');
        return;
      }
      checkReceived(`notification ${receipt.webhookId}`, receipt.body, notificationProblems);
      void receiver.respond(receipt, res, receiver.byId(receipt.webhookId).length);
    });
  });
  server.on('connection', () => receiver.connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.port = (server.address() as AddressInfo).port;
  receiver.url = `http://127.0.0.1:${receiver.port}/hooks/clipgate`;
  return receiver;
}

function safeJson(raw: Buffer): any {
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    return undefined;
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** PUT the caller's registration over REST; it must succeed. */
export async function register(
  t: TestApp,
  token: string,
  body: {
    url: string;
    authKey: string;
    eventTypes: string[];
    userData?: unknown;
    filter?: string;
    maxPerSecond?: number;
  },
): Promise<any> {
  const res = await rest(t.url, token, 'PUT', '/api/accounts/self/notifications', body);
  if (res.status !== 200) throw new Error(`register: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Rows of the deliveries table for an account, oldest first (what the outbox queued). */
export async function queuedDeliveries(t: TestApp, accountId: string) {
  const { rows } = await t.app.services.db.pool.query<{
    id: string;
    event_type: string;
    state: string;
    client_id: string;
  }>(
    'SELECT id::text AS id, event_type, state, client_id FROM deliveries WHERE account_id = $1 ORDER BY id',
    [accountId],
  );
  return rows;
}

export const RegisterNotifications = graphql(`
  mutation RegisterNotifications($input: RegisterNotificationsInput!) {
    registerNotifications(input: $input) {
      accountId
      clientId
      url
      eventTypes
      userData
      filter
      createdAt
      updatedAt
    }
  }
`);

export const UnregisterNotifications = graphql(`
  mutation UnregisterNotifications($accountId: ID!) {
    unregisterNotifications(accountId: $accountId)
  }
`);

export const NotificationRegistration = graphql(`
  query NotificationRegistration($accountId: ID!) {
    notificationRegistration(accountId: $accountId) {
      accountId
      clientId
      url
      eventTypes
      userData
      filter
    }
  }
`);

export const NotificationDeliveries = graphql(`
  query NotificationDeliveries($accountId: ID!, $first: Int, $after: String) {
    notificationDeliveries(accountId: $accountId, first: $first, after: $after) {
      edges {
        cursor
        node {
          id
          kind
          eventId
          webhookId
          eventType
          eventData
          status
          url
          attemptCount
          nextAttemptAt
          createdAt
          finishedAt
          attempts {
            attempt
            startedAt
            durationMs
            outcome
            status
            error
            errorMessage
            response
          }
        }
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
`);

export const SendTestNotification = graphql(`
  mutation SendTestNotification($accountId: ID!) {
    sendTestNotification(accountId: $accountId) {
      id
      kind
      webhookId
      eventType
      status
    }
  }
`);

export const RedeliverNotification = graphql(`
  mutation RedeliverNotification($deliveryId: ID!) {
    redeliverNotification(deliveryId: $deliveryId) {
      id
      status
      attemptCount
    }
  }
`);

export const ReportMotion = graphql(`
  mutation ReportMotion(
    $accessoryId: ID!
    $state: MotionState!
    $at: DateTime
    $motionZones: [String!]
  ) {
    reportMotion(accessoryId: $accessoryId, state: $state, at: $at, motionZones: $motionZones) {
      eventId
      eventType
      accessoryId
      motionZones
      timestamp
    }
  }
`);

export const UpdateActivity = graphql(`
  mutation UpdateActivityForNotifications(
    $accessoryId: ID!
    $activityId: String!
    $input: UpdateActivityInput!
  ) {
    updateActivity(accessoryId: $accessoryId, activityId: $activityId, input: $input) {
      activityId
      relevanceLevel
    }
  }
`);

export const DeleteAccount = graphql(`
  mutation DeleteAccountForNotifications($accountId: ID!) {
    deleteAccount(accountId: $accountId)
  }
`);
