/**
 * The client side of the broker destinations (MQTT, AMQP, NATS): what one message is, where it
 * goes, and how a publish fails. See docs/decisions/ for the destinations record.
 */

/** Where one message goes: the broker, its opened credentials and the rendered topic. */
export interface BrokerTarget {
  /** mqtt://host:1883, mqtts://..., amqp://host:5672/vhost, amqps://..., nats://host:4222 (no credentials in it) */
  url: string;
  username?: string;
  password?: string;
  /** the rendered MQTT topic, AMQP routing key or NATS subject */
  topic: string;
  /** AMQP only: the exchange ('' is the default exchange) */
  exchange?: string;
}

/** One notification as a broker message: the body as signed, and the Standard Webhooks headers. */
export interface BrokerMessage {
  /** webhook-id */
  id: string;
  /** webhook-id, webhook-timestamp, webhook-signature, content-type: what a webhook POST carries */
  headers: Record<string, string>;
  /** the body's bytes, as signed */
  body: Buffer;
}

/** How an attempt failed, as the delivery log classes it (a subset of AttemptError in delivery/policy.ts). */
export class PublishError extends Error {
  constructor(
    readonly errorClass: 'timeout' | 'dns' | 'connect' | 'tls' | 'blocked_address' | 'protocol',
    message: string,
  ) {
    super(message);
  }
}

export interface PublisherOptions {
  /** allow loopback/private broker addresses (WEBHOOK_ALLOW_PRIVATE_NETWORKS) */
  allowPrivateNetworks: boolean;
}

/** One kind's client side: pooled connections per (url, username, password), reconnecting with back-off. */
export interface Publisher {
  /** Resolves once the broker acknowledged (PUBACK / publisher confirm / JetStream ack); rejects with PublishError. Gives up when signal aborts (then 'timeout'). */
  publish(target: BrokerTarget, message: BrokerMessage, signal: AbortSignal): Promise<void>;
  /** Closes every pooled connection. */
  close(): Promise<void>;
}
