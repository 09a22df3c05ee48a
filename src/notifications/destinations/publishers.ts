import { createAmqpPublisher } from './amqp.ts';
import type { BrokerKind } from './destination.ts';
import { createMqttPublisher } from './mqtt.ts';
import { createNatsPublisher } from './nats.ts';
import type { Publisher, PublisherOptions } from './types.ts';

/** A publisher of each broker kind; each opens connections only once used. */
export const createPublishers = (options: PublisherOptions): Record<BrokerKind, Publisher> => ({
  mqtt: createMqttPublisher(options),
  amqp: createAmqpPublisher(options),
  nats: createNatsPublisher(options),
});
