import { invalidArgument } from '../../errors.ts';
import type { BrokerTarget } from './types.ts';

/**
 * Where a registration's notifications go (docs/api.md, Destinations): a webhook, or a broker of
 * one of three kinds. What a registration and its deliveries store of a broker destination, how
 * its topic template is checked and rendered. See docs/decisions/0149-destinations.md.
 */

export const destinationKinds = ['webhook', 'mqtt', 'amqp', 'nats'] as const;
export type DestinationKind = (typeof destinationKinds)[number];
export type BrokerKind = Exclude<DestinationKind, 'webhook'>;

/** The URL schemes of each kind: the encrypted one, and the plain one (WEBHOOK_ALLOW_HTTP). */
export const kindSchemes: Record<DestinationKind, { secure: string; plain: string }> = {
  webhook: { secure: 'https:', plain: 'http:' },
  mqtt: { secure: 'mqtts:', plain: 'mqtt:' },
  amqp: { secure: 'amqps:', plain: 'amqp:' },
  nats: { secure: 'tls:', plain: 'nats:' },
};

/** The port of a broker URL that names none. */
const defaultPorts: Record<string, number> = {
  'mqtt:': 1883,
  'mqtts:': 8883,
  'amqp:': 5672,
  'amqps:': 5671,
  'nats:': 4222,
  'tls:': 4222,
};

/**
 * The unit of the per-receiver concurrency limit (delivery/slots.ts): scheme://host:port, for a
 * broker with its default port, so that each broker has slots of its own.
 */
export function originOf(url: URL): string {
  const port = url.port === '' ? defaultPorts[url.protocol] : Number(url.port);
  return port === undefined ? url.origin : `${url.protocol}//${url.hostname}:${port}`;
}

/**
 * A broker destination as the `destination` column of a registration and of its deliveries
 * holds it (null there: a webhook).
 */
export interface StoredDestination {
  kind: BrokerKind;
  /** The topic (MQTT), routing key (AMQP) or subject (NATS) template. */
  topic: string;
  /** AMQP: the exchange ('' the default one); null for the other kinds. */
  exchange: string | null;
  /** `{"username", "password"}` as JSON, sealed like the authKey (secrets.ts); null: none. */
  credentials: string | null;
}

/** The placeholders of a topic template. */
export const TOPIC_PLACEHOLDERS = ['accountId', 'accessoryId', 'eventType'] as const;
export const TOPIC_MAX = 255;
/** What `{accessoryId}` renders as for an event of no accessory (account_deleted, ...). */
export const NO_ACCESSORY = '-';

/** Characters a kind's template may not hold: wildcards, separators it reserves. */
const forbidden: Record<BrokerKind, { test: RegExp; what: string }> = {
  mqtt: { test: /[+#\0]/, what: 'the wildcards + and #' },
  amqp: { test: /\0/, what: 'NUL' },
  nats: { test: /[\s*>]|^\.|\.$|\.\./, what: 'spaces, the wildcards * and >, or empty tokens' },
};

/** A topic template as registrations take it, else a 400 naming `topic`. */
export function checkTopic(kind: BrokerKind, topic: unknown): string {
  if (typeof topic !== 'string' || topic.length === 0 || topic.length > TOPIC_MAX) {
    throw invalidArgument('topic', `topic must be a string of 1..${TOPIC_MAX} characters`);
  }
  for (const [, name] of topic.matchAll(/\{([^}]*)\}/g)) {
    if (!(TOPIC_PLACEHOLDERS as readonly string[]).includes(name!)) {
      throw invalidArgument(
        'topic',
        `topic: unknown placeholder {${name}}; there are ${TOPIC_PLACEHOLDERS.map((p) => `{${p}}`).join(', ')}`,
      );
    }
  }
  const rule = forbidden[kind];
  if (rule.test.test(topic.replace(/\{\w+\}/g, 'x'))) {
    throw invalidArgument('topic', `topic must not hold ${rule.what}`);
  }
  return topic;
}

/** What a topic template is rendered with: a notification's account, accessory and type. */
export interface TopicValues {
  accountId: string;
  /** The event's eventData.accessoryId; none for events of the account. */
  accessoryId: string | undefined;
  eventType: string;
}

/** The topic of one notification: each placeholder replaced by its value. */
export const renderTopic = (template: string, values: TopicValues): string =>
  template.replace(/\{(accountId|accessoryId|eventType)\}/g, (_, name: keyof TopicValues) =>
    name === 'accessoryId' ? (values.accessoryId ?? NO_ACCESSORY) : values[name],
  );

/** The accessory of a notification's eventData, if it names one. */
export function accessoryOf(eventData: unknown): string | undefined {
  const id = (eventData as { accessoryId?: unknown } | null)?.accessoryId;
  return typeof id === 'string' ? id : undefined;
}

/** The broker credentials of a destination, as sealed in its `credentials`. */
export interface BrokerCredentials {
  username: string;
  password: string;
}

/**
 * Where one delivery's message goes: the broker at `url`, its opened `credentials`, the topic
 * rendered for the notification.
 */
export function brokerTarget(
  d: { url: string; account_id: string; event_type: string; event_data: unknown },
  destination: StoredDestination,
  credentials: BrokerCredentials | null,
): BrokerTarget {
  const topic = renderTopic(destination.topic, {
    accountId: d.account_id,
    accessoryId: accessoryOf(d.event_data),
    eventType: d.event_type,
  });
  return {
    url: d.url,
    topic,
    ...(destination.exchange !== null && { exchange: destination.exchange }),
    ...(credentials && { username: credentials.username, password: credentials.password }),
  };
}
