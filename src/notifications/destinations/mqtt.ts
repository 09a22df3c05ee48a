import { randomUUID } from 'node:crypto';
import { connect, type IClientOptions, type MqttClient } from 'mqtt';
import { resolvePublic } from './address.ts';
import { PublishError, type BrokerTarget, type Publisher, type PublisherOptions } from './types.ts';

/**
 * The MQTT destinations' client side, with MQTT.js: one MQTT 5 connection per broker and
 * credentials, each message QoS 1 (the PUBACK is the receipt), not retained, the Standard
 * Webhooks headers as user properties. A connection that fails or drops is opened again on the
 * next publish, after a back-off that grows with each failure in a row; meanwhile publishes to
 * that broker fail at once ('connect'), so a dead broker costs its attempts nothing but their
 * failure. A publish not acknowledged when its signal aborts is a 'timeout', and ends the
 * connection: a broker that stalls gets a new one.
 */

/** How long opening a connection may take (TCP, TLS, CONNECT/CONNACK) beyond the attempt's own budget. */
const CONNECT_TIMEOUT_MS = 10_000;
/** The back-off after a connection failed: doubling from the first, at most the last. */
export const BACKOFF_FIRST_MS = 250;
export const BACKOFF_MAX_MS = 30_000;

/** The wait before the next connection after `failures` failed in a row (0: none). */
export const backoffMs = (failures: number): number =>
  failures === 0 ? 0 : Math.min(BACKOFF_FIRST_MS * 2 ** (failures - 1), BACKOFF_MAX_MS);

/** CONNACK refusals (MQTT 5 reason codes; 4 and 5 as MQTT 3.1.1 sends them). */
const refused: Record<number, string> = {
  4: 'bad user name or password',
  5: 'not authorized',
  134: 'bad user name or password',
  135: 'not authorized',
};

const errorClasses: [test: RegExp, errorClass: PublishError['errorClass']][] = [
  [/^(ENOTFOUND|EAI_\w+)$/, 'dns'],
  [
    /^(ECONNREFUSED|ECONNRESET|EHOSTUNREACH|ENETUNREACH|EHOSTDOWN|ENETDOWN|EPIPE|ETIMEDOUT)$/,
    'connect',
  ],
  [/^(ERR_TLS_|ERR_SSL_|EPROTO$)|CERT|SIGNATURE/, 'tls'],
];

/** A connection's failure as the delivery log classes it. */
export function classifyMqttError(err: unknown): PublishError {
  if (err instanceof PublishError) return err;
  const message = err instanceof Error ? err.message : String(err);
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'number') {
    return new PublishError(
      'protocol',
      `broker refused the connection: ${refused[code] ?? `reason ${code}`}`,
    );
  }
  if (typeof code !== 'string') return new PublishError('protocol', message);
  return new PublishError(
    errorClasses.find(([test]) => test.test(code))?.[1] ?? 'protocol',
    message,
  );
}

/** One pooled connection, its state and the failures in a row before it. */
interface Connection {
  /** Settles once connected (or not); undefined: none open nor opening. */
  client: Promise<MqttClient> | undefined;
  /** The client once connected. */
  connected: MqttClient | undefined;
  failures: number;
  /** performance.now() before which no new connection is opened, and why. */
  retryAt: number;
  lastError: PublishError | undefined;
}

/** Rejects with a 'timeout' PublishError once `signal` aborts. */
function aborted(signal: AbortSignal, what: string): { promise: Promise<never>; done(): void } {
  let onAbort = () => undefined as void;
  const promise = new Promise<never>((_, reject) => {
    onAbort = () =>
      reject(new PublishError('timeout', `no ${what} before the attempt's time ran out`));
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  promise.catch(() => undefined);
  return { promise, done: () => signal.removeEventListener('abort', onAbort) };
}

export function createMqttPublisher(options: PublisherOptions): Publisher {
  const connections = new Map<string, Connection>();
  let closed = false;

  /** Opens a connection to `target`'s broker at its checked address. */
  async function open(target: BrokerTarget): Promise<MqttClient> {
    const url = new URL(target.url);
    const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
    const host = await resolvePublic(hostname, options.allowPrivateNetworks);
    const secure = url.protocol === 'mqtts:';
    const clientOptions: IClientOptions = {
      protocol: secure ? 'mqtts' : 'mqtt',
      host,
      port: url.port === '' ? (secure ? 8883 : 1883) : Number(url.port),
      ...(secure && { servername: hostname }),
      protocolVersion: 5,
      clientId: `clipgate-${randomUUID()}`,
      clean: true,
      reconnectPeriod: 0, // reconnected here, with back-off
      connectTimeout: CONNECT_TIMEOUT_MS,
      ...(target.username !== undefined && { username: target.username }),
      ...(target.password !== undefined && { password: target.password }),
    };
    const client = connect(clientOptions);
    return new Promise((resolve, reject) => {
      const fail = (err: unknown) => {
        client.removeAllListeners('connect');
        client.end(true);
        reject(classifyMqttError(err));
      };
      client.once('connect', () => {
        client.removeListener('error', fail);
        client.removeListener('close', closedEarly);
        resolve(client);
      });
      const closedEarly = () =>
        fail(new PublishError('connect', 'the broker closed the connection'));
      client.once('error', fail);
      client.once('close', closedEarly);
    });
  }

  /** The connection of `key`, opened if need be; fails at once while its back-off lasts. */
  function connection(key: string, target: BrokerTarget): Promise<MqttClient> {
    let entry = connections.get(key);
    if (entry === undefined) {
      entry = {
        client: undefined,
        connected: undefined,
        failures: 0,
        retryAt: 0,
        lastError: undefined,
      };
      connections.set(key, entry);
    }
    if (entry.client !== undefined) return entry.client;
    const wait = entry.retryAt - performance.now();
    if (wait > 0) {
      const reason = entry.lastError?.message ?? 'the connection failed';
      return Promise.reject(
        new PublishError(
          entry.lastError?.errorClass ?? 'connect',
          `${reason} (connecting again in ${Math.ceil(wait)} ms)`,
        ),
      );
    }
    const current = entry;
    const client = open(target).then(
      (client) => {
        current.failures = 0;
        current.lastError = undefined;
        current.connected = client;
        client.on('error', () => undefined); // a close follows
        client.once('close', () => drop(current, client));
        return client;
      },
      (err: PublishError) => {
        current.failures++;
        current.lastError = err;
        current.retryAt = performance.now() + backoffMs(current.failures);
        current.client = undefined;
        throw err;
      },
    );
    current.client = client;
    return client;
  }

  /** Forgets a connection that closed or stalled; its unacknowledged publishes fail. */
  function drop(entry: Connection, client: MqttClient): void {
    if (entry.connected === client) entry.connected = entry.client = undefined;
    client.end(true); // fails the publishes it still holds ("Connection closed")
  }

  async function publish(
    target: BrokerTarget,
    message: { id: string; headers: Record<string, string>; body: string },
    signal: AbortSignal,
  ): Promise<void> {
    if (closed) throw new PublishError('connect', 'the publisher is closed');
    const key = JSON.stringify([target.url, target.username ?? null, target.password ?? null]);
    const timeout = aborted(signal, 'connection to the broker');
    let client: MqttClient;
    try {
      client = await Promise.race([connection(key, target), timeout.promise]);
    } finally {
      timeout.done();
    }
    const { 'content-type': contentType, ...userProperties } = message.headers;
    const acknowledged = new Promise<void>((resolve, reject) => {
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
          if (err) reject(new PublishError('connect', err.message));
          else resolve();
        },
      );
    });
    const ack = aborted(signal, 'PUBACK from the broker');
    try {
      await Promise.race([acknowledged, ack.promise]);
    } catch (err) {
      // A broker that does not acknowledge in time is treated as stalled: a new connection next.
      if (err instanceof PublishError && err.errorClass === 'timeout') {
        const entry = connections.get(key);
        if (entry) drop(entry, client);
      }
      throw err;
    } finally {
      ack.done();
    }
  }

  return {
    publish,
    async close() {
      closed = true;
      const open = [...connections.values()].map((entry) => entry.client);
      connections.clear();
      await Promise.all(
        open.map((client) =>
          client?.then(
            (c) => c.endAsync(true),
            () => undefined,
          ),
        ),
      );
    },
  };
}
