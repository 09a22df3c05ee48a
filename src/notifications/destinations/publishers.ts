import type { BrokerKind } from './destination.ts';
import { createMqttPublisher } from './mqtt.ts';
import type { Publisher, PublisherOptions } from './types.ts';

/** The client side of each broker kind this service publishes to. */
const factories: Record<BrokerKind, ((options: PublisherOptions) => Publisher) | undefined> = {
  mqtt: createMqttPublisher,
  amqp: undefined,
  nats: undefined,
};

/** A publisher of each kind there is one for; each opens connections only once used. */
export function createPublishers(
  options: PublisherOptions,
): Partial<Record<BrokerKind, Publisher>> {
  const publishers: Partial<Record<BrokerKind, Publisher>> = {};
  for (const [kind, factory] of Object.entries(factories) as [
    BrokerKind,
    typeof factories.mqtt,
  ][]) {
    if (factory) publishers[kind] = factory(options);
  }
  return publishers;
}
