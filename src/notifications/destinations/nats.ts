/**
 * The NATS JetStream destination's client side, on nats.js (@nats-io/transport-node and
 * @nats-io/jetstream): one connection per broker and credentials (pool.ts), which the client
 * reconnects itself for a while. A message is a JetStream publish to the target's subject with
 * `Nats-Msg-Id` = the webhook-id, so that the stream drops a repeat within its duplicate window;
 * the stream's PubAck is the receipt. See docs/decisions/0150-broker-clients.md.
 */
import { jetstream, type JetStreamClient } from '@nats-io/jetstream';
import {
  ClosedConnectionError,
  connect,
  ConnectionError,
  headers,
  RequestError,
  TimeoutError,
  type NatsConnection,
  type TlsOptions,
} from '@nats-io/transport-node';
import { isIP } from 'node:net';
import { resolvePublic } from './address.ts';
import { CONNECT_TIMEOUT_MS, ConnectionPool, publishErrorOf, untilAborted } from './pool.ts';
import {
  PublishError,
  type BrokerMessage,
  type BrokerTarget,
  type Publisher,
  type PublisherOptions,
} from './types.ts';

/** The client's own bound on a PubAck; an attempt's signal ends its wait sooner. */
const ACK_TIMEOUT_MS = 60_000;
/**
 * A lost connection is dialled again every 2 s (nats.js's default wait), ten times; then it
 * closes, and the pool's back-off governs the next opening.
 */
const RECONNECT_ATTEMPTS = 10;

interface NatsBroker {
  connection: NatsConnection;
  js: JetStreamClient;
}

function connectError(err: unknown, host: string): PublishError {
  if (err instanceof TimeoutError) {
    return new PublishError(
      'timeout',
      `no NATS handshake within ${CONNECT_TIMEOUT_MS} ms from ${host}`,
    );
  }
  // The socket's error (ECONNREFUSED, a TLS failure) says more than the client's wrapper.
  return publishErrorOf(err instanceof ConnectionError && err.cause ? err.cause : err);
}

async function open(
  target: BrokerTarget,
  allowPrivateNetworks: boolean,
  gone: () => void,
): Promise<NatsBroker> {
  const url = new URL(target.url);
  const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const address = await resolvePublic(hostname, allowPrivateNetworks);
  const port = url.port === '' ? 4222 : Number(url.port);
  let connection: NatsConnection;
  try {
    connection = await connect({
      servers: `${isIP(address) === 6 ? `[${address}]` : address}:${port}`,
      ...(target.username !== undefined && { user: target.username, pass: target.password }),
      name: 'clipgate',
      timeout: CONNECT_TIMEOUT_MS,
      // The checked address only: no names resolved by the client, no servers a cluster gossips.
      resolve: false,
      ignoreClusterUpdates: true,
      maxReconnectAttempts: RECONNECT_ATTEMPTS,
      // No error made up front for each publish to hold its caller's stack, should it time out:
      // a publish's failure is told by its own message (`send`), and the stacks cost about a
      // tenth of a drain's CPU.
      noAsyncTraces: true,
      // tls://: TLS, verifying the broker's certificate for its name (nats.js passes these
      // options on to Node's tls.connect); nats://: never TLS.
      tls:
        url.protocol === 'tls:'
          ? ((isIP(hostname) === 0 ? { servername: hostname } : {}) as TlsOptions)
          : null,
    });
  } catch (err) {
    throw connectError(err, url.host);
  }
  void connection.closed().then(gone);
  return { connection, js: jetstream(connection) };
}

/** Publishes `message` to JetStream and resolves on the stream's PubAck (a repeat's too). */
async function send(broker: NatsBroker, target: BrokerTarget, message: BrokerMessage) {
  const h = headers();
  for (const [name, value] of Object.entries(message.headers)) h.set(name, value);
  try {
    await broker.js.publish(target.topic, message.body, {
      msgID: message.id,
      headers: h,
      timeout: ACK_TIMEOUT_MS,
    });
  } catch (err) {
    // jetstream.js says 'jetstream is not enabled' when nothing answers the subject.
    const cause = err instanceof Error ? err.cause : undefined;
    if (cause instanceof RequestError && cause.isNoResponders()) {
      throw new PublishError('protocol', `no JetStream stream takes the subject '${target.topic}'`);
    }
    if (err instanceof TimeoutError) {
      throw new PublishError('timeout', `no PubAck within ${ACK_TIMEOUT_MS} ms`);
    }
    // Pending requests fail with a RequestError once their connection closes.
    if (err instanceof ClosedConnectionError || broker.connection.isClosed()) {
      throw new PublishError('connect', 'the connection to the broker closed before the PubAck');
    }
    throw new PublishError('protocol', publishErrorOf(err).message);
  }
}

export function createNatsPublisher(options: PublisherOptions): Publisher {
  const pool = new ConnectionPool<NatsBroker>({
    open: (target, gone) => open(target, options.allowPrivateNetworks, gone),
    close: ({ connection }) => connection.close(),
  });
  return {
    async publish(target, message, signal) {
      const broker = await pool.acquire(target, signal);
      await untilAborted(send(broker, target, message), signal, 'awaiting the PubAck');
    },
    close: () => pool.close(),
  };
}
