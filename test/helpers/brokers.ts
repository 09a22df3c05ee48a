import { serversRequired } from './app.ts';

/**
 * The brokers of the destination tests: TEST_MQTT_URL, TEST_AMQP_URL, TEST_NATS_URL (.ci/run
 * starts Mosquitto, RabbitMQ and NATS and sets them). A kind's tests run when its variable is set
 * and skip when not (a newcomer's `npm test`); on CI's lines with the servers, a missing one fails.
 */
const variables = { mqtt: 'TEST_MQTT_URL', amqp: 'TEST_AMQP_URL', nats: 'TEST_NATS_URL' } as const;

export function brokerUrl(kind: keyof typeof variables): string | undefined {
  const url = process.env[variables[kind]];
  if (!url && serversRequired) throw new Error(`CI must set ${variables[kind]}`);
  if (!url) console.warn(`${variables[kind]} is not set: the ${kind} destination tests skip`);
  return url || undefined;
}
