/**
 * The MQTT destination's client side, on MQTT.js: one MQTT 5 connection per broker and
 * credentials (pool.ts), each message QoS 1 (the PUBACK is the receipt), not retained, the
 * Standard Webhooks headers as user properties. A publish not acknowledged when its signal aborts
 * is a 'timeout' and ends its connection: a broker that stalls gets a new one. See
 * docs/decisions/0149-destinations.md.
 */
import { randomUUID } from 'node:crypto';
import { connect, type IClientOptions, type MqttClient } from 'mqtt';
import { resolvePublic } from './address.ts';
import { CONNECT_TIMEOUT_MS, ConnectionPool, publishErrorOf, untilAborted } from './pool.ts';
import {
  PublishError,
  type BrokerMessage,
  type BrokerTarget,
  type Publisher,
  type PublisherOptions,
} from './types.ts';

/** MQTT reason codes a broker refuses with (MQTT 5; 4 and 5 as MQTT 3.1.1 sends them). */
const reasons: Record<number, string> = {
  4: 'bad user name or password',
  5: 'not authorized',
  134: 'bad user name or password',
  135: 'not authorized',
  144: 'topic name invalid',
  151: 'quota exceeded',
};

/**
 * A failure as the delivery log classes it: a refusal by reason code (a CONNACK's or a PUBACK's)
 * is 'protocol', anything else as a webhook's error (pool.ts).
 */
export function mqttError(err: unknown, what: string): PublishError {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'number') return publishErrorOf(err);
  return new PublishError(
    'protocol',
    `the broker refused the ${what}: ${reasons[code] ?? `reason code ${code}`}`,
  );
}

/** Opens a connection to `target`'s broker at its checked address. */
async function open(
  target: BrokerTarget,
  allowPrivateNetworks: boolean,
  gone: () => void,
): Promise<MqttClient> {
  const url = new URL(target.url);
  const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const host = await resolvePublic(hostname, allowPrivateNetworks);
  const secure = url.protocol === 'mqtts:';
  const options: IClientOptions = {
    protocol: secure ? 'mqtts' : 'mqtt',
    host,
    port: url.port === '' ? (secure ? 8883 : 1883) : Number(url.port),
    ...(secure && { servername: hostname }),
    protocolVersion: 5,
    clientId: `clipgate-${randomUUID()}`,
    clean: true,
    reconnectPeriod: 0, // the pool opens a new one, after its back-off
    connectTimeout: CONNECT_TIMEOUT_MS,
    ...(target.username !== undefined && { username: target.username }),
    ...(target.password !== undefined && { password: target.password }),
  };
  const client = connect(options);
  return new Promise((resolve, reject) => {
    const fail = (err: unknown) => {
      client.removeAllListeners();
      client.on('error', () => undefined);
      client.end(true);
      reject(mqttError(err, 'connection'));
    };
    const closedEarly = () => fail(new PublishError('connect', 'the broker closed the connection'));
    client.once('error', fail);
    client.once('close', closedEarly);
    client.once('connect', () => {
      client.removeListener('error', fail);
      client.removeListener('close', closedEarly);
      client.on('error', () => undefined); // a close follows
      client.once('close', () => {
        gone();
        client.end(true); // fails the publishes it still holds ("Connection closed")
      });
      resolve(client);
    });
  });
}

/** The clients whose socket holds this turn's writes back (see `corkThisTurn`). */
const corked = new WeakSet<MqttClient>();

/**
 * Holds the client's socket writes back until the end of this turn of the event loop, so that
 * the publishes made in it go out in one `writev`: MQTT.js writes each packet on its own, and a
 * drain makes most of its publishes in turns of 15. See docs/decisions/0162-mqtt-writes-batched.md.
 */
function corkThisTurn(client: MqttClient): void {
  if (corked.has(client)) return;
  const { stream } = client;
  stream.cork();
  corked.add(client);
  setImmediate(() => {
    corked.delete(client);
    stream.uncork();
  });
}

/** Publishes `message` and resolves on its PUBACK. */
function send(client: MqttClient, target: BrokerTarget, message: BrokerMessage): Promise<void> {
  const { 'content-type': contentType, ...userProperties } = message.headers;
  corkThisTurn(client);
  return new Promise((resolve, reject) => {
    client.publish(
      target.topic,
      message.body,
      {
        qos: 1,
        retain: false,
        properties: {
          userProperties,
          payloadFormatIndicator: true,
          ...(contentType !== undefined && { contentType }),
        },
      },
      (err) => {
        if (!err) return resolve();
        // Without a reason code, MQTT.js failed it for the connection it was on ("Connection closed").
        const coded = typeof (err as { code?: unknown }).code === 'number';
        reject(coded ? mqttError(err, 'message') : new PublishError('connect', err.message));
      },
    );
  });
}

export function createMqttPublisher(options: PublisherOptions): Publisher {
  const pool = new ConnectionPool<MqttClient>({
    open: (target, gone) => open(target, options.allowPrivateNetworks, gone),
    close: (client) => client.endAsync(true),
  });
  return {
    async publish(target, message, signal) {
      const client = await pool.acquire(target, signal);
      try {
        await untilAborted(send(client, target, message), signal, 'awaiting the PUBACK');
      } catch (err) {
        // A broker that does not acknowledge in time is taken for stalled: a new connection next.
        if (err instanceof PublishError && err.errorClass === 'timeout') client.end(true);
        throw err;
      }
    },
    close: () => pool.close(),
  };
}
