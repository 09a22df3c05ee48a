/**
 * The AMQP 0-9-1 (RabbitMQ) destination's client side, on amqplib: one connection per broker and
 * credentials (pool.ts), each with one confirm channel. A message is published persistent and
 * mandatory to the target's exchange with its routing key; the broker's publisher confirm is the
 * receipt, and a message it returns as unroutable (no queue bound) fails the attempt. See
 * docs/decisions/0150-broker-clients.md.
 */
import { connect, type ChannelModel, type ConfirmChannel, type Message } from 'amqplib';
import { isIP } from 'node:net';
import { resolvePublic } from './address.ts';
import { CONNECT_TIMEOUT_MS, ConnectionPool, untilAborted } from './pool.ts';
import {
  PublishError,
  type BrokerMessage,
  type BrokerTarget,
  type Publisher,
  type PublisherOptions,
} from './types.ts';

/** Heartbeats (seconds): a broker gone silent is noticed, and its connection dropped, in 30 s. */
const HEARTBEAT_S = 15;
/** How long a connection's close may wait for the broker's answer before its socket is dropped. */
const CLOSE_TIMEOUT_MS = 2_000;

/** A returned message's fields: those of a delivery, and why the broker returned it. */
type ReturnedFields = Message['fields'] & { replyCode?: number; replyText?: string };

interface AmqpConnection {
  model: ChannelModel;
  channel: ConfirmChannel;
  /** Messages the broker returned and has not confirmed yet, by message id (webhook-id). */
  returned: Map<string, ReturnedFields>;
  /** Why the broker closed the channel, once it did. */
  channelError?: Error;
}

async function open(
  target: BrokerTarget,
  allowPrivateNetworks: boolean,
  gone: () => void,
): Promise<AmqpConnection> {
  const url = new URL(target.url);
  const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const address = await resolvePublic(hostname, allowPrivateNetworks);
  let model: ChannelModel;
  try {
    model = await connect(
      {
        protocol: url.protocol.slice(0, -1),
        hostname: address,
        ...(url.port !== '' && { port: Number(url.port) }),
        // amqplib unescapes the virtual host; none (or '/') is the default one, '/'.
        vhost: url.pathname.slice(1),
        heartbeat: HEARTBEAT_S,
        username: target.username ?? '',
        password: target.password ?? '',
      },
      {
        timeout: CONNECT_TIMEOUT_MS,
        noDelay: true,
        // The checked address is dialled; TLS verifies the broker's certificate for its name.
        ...(isIP(hostname) === 0 && { servername: hostname }),
        clientProperties: { connection_name: 'clipgate' },
      },
    );
  } catch (err) {
    // amqplib's own handshake timeout has no error code.
    if (err instanceof Error && err.message === 'connect ETIMEDOUT') {
      throw new PublishError(
        'timeout',
        `no AMQP handshake within ${CONNECT_TIMEOUT_MS} ms from ${url.host}`,
      );
    }
    throw err;
  }
  corkEachPass(model);
  // Each 'error' is followed by 'close', which is what counts here.
  model.on('error', () => {});
  model.on('close', gone);
  let channel: ConfirmChannel;
  try {
    channel = await model.createConfirmChannel();
  } catch (err) {
    await closeConnection(model);
    throw err;
  }
  const connection: AmqpConnection = { model, channel, returned: new Map() };
  channel.on('return', (message: Message) => {
    const id: unknown = message.properties.messageId;
    if (typeof id === 'string') connection.returned.set(id, message.fields);
  });
  channel.on('error', (err: Error) => {
    connection.channelError = err;
  });
  // A channel the broker closed (a publish to a missing exchange) takes its connection along:
  // the next publish opens both anew.
  channel.on('close', () => {
    gone();
    void closeConnection(model);
  });
  return connection;
}

/**
 * amqplib's multiplexer (`connection.muxer`, which it does not declare) writes each frame of a
 * pass over the channels' buffers to the socket apart: a write, and a wake-up of the broker, per
 * message. Corked for each pass, the messages published since the last pass (all that confirms
 * arriving together started) go out in one write. See docs/decisions/0160-amqp-writes-batched.md.
 * A version of amqplib without it keeps writing message by message.
 */
function corkEachPass(model: ChannelModel): void {
  const { muxer, stream } = model.connection as {
    muxer?: { _readIncoming?: () => void };
    stream?: { cork(): void; uncork(): void };
  };
  const pass = muxer?._readIncoming;
  if (muxer === undefined || pass === undefined || stream === undefined) return;
  muxer._readIncoming = () => {
    stream.cork();
    try {
      pass.call(muxer);
    } finally {
      stream.uncork();
    }
  };
}

/** Why a publish got no confirm: a nack, the channel's error, or the connection lost. */
function confirmError(c: AmqpConnection, err: unknown): PublishError {
  if (c.channelError) return new PublishError('protocol', c.channelError.message);
  if (err instanceof Error && err.message === 'message nacked') {
    return new PublishError('protocol', 'the broker refused the message (basic.nack)');
  }
  return new PublishError('connect', `the connection to the broker was lost before the confirm`);
}

/** Publishes `message` and resolves on the broker's confirm; rejects if nacked or returned. */
function send(c: AmqpConnection, target: BrokerTarget, message: BrokerMessage): Promise<void> {
  const exchange = target.exchange ?? '';
  return new Promise((resolve, reject) => {
    c.channel.publish(
      exchange,
      target.topic,
      message.body,
      {
        mandatory: true,
        persistent: true,
        contentType: 'application/json',
        messageId: message.id,
        headers: message.headers,
      },
      (err: unknown) => {
        const returned = c.returned.get(message.id);
        c.returned.delete(message.id);
        if (err) reject(confirmError(c, err));
        else if (returned) {
          const why = `${returned.replyCode ?? ''} ${returned.replyText ?? ''}`.trim();
          reject(
            new PublishError(
              'protocol',
              `unroutable: the exchange ${exchange === '' ? '(default)' : `'${exchange}'`} has no queue bound for the routing key '${target.topic}' (${why})`,
            ),
          );
        } else resolve();
      },
    );
  });
}

/**
 * Closes a connection politely; one whose broker does not answer the close within
 * CLOSE_TIMEOUT_MS loses its socket (amqplib's `connection.stream`, which it does not declare).
 */
async function closeConnection(model: ChannelModel): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const closed = model.close().catch(() => {});
  const late = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      const { stream } = model.connection as { stream?: { destroy(err: Error): void } };
      stream?.destroy(new Error(`no answer to the close within ${CLOSE_TIMEOUT_MS} ms`));
      resolve();
    }, CLOSE_TIMEOUT_MS);
  });
  await Promise.race([closed, late]);
  clearTimeout(timer);
}

export function createAmqpPublisher(options: PublisherOptions): Publisher {
  const pool = new ConnectionPool<AmqpConnection>({
    open: (target, gone) => open(target, options.allowPrivateNetworks, gone),
    close: ({ model }) => closeConnection(model),
  });
  return {
    async publish(target, message, signal) {
      const connection = await pool.acquire(target, signal);
      const sending = send(connection, target, message);
      await untilAborted(sending, signal, 'awaiting the publisher confirm');
    },
    close: () => pool.close(),
  };
}
