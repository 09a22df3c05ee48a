/**
 * A consumer of clipgate notifications from a RabbitMQ queue (an `amqp` destination), to copy
 * from.
 *
 * Run:   AMQP_URL=amqp://user:password@host:5672 QUEUE=<a queue bound to the destination's
 *        exchange and routing key> AUTH_KEY=<the registration's authKey, or its publicKey>
 *        npx tsx examples/amqp-consumer.ts
 * With BINDING=<a routing key pattern, e.g. clipgate.#> the queue is declared durable and bound
 * to EXCHANGE (amq.topic if unset) first: it keeps what is published while no consumer is there,
 * and, the service's messages being persistent, across a broker restart.
 *
 * Each message is the notification's JSON body; its AMQP headers carry the Standard Webhooks
 * `webhook-id`, `webhook-timestamp` and `webhook-signature`, verified against the exact body
 * before the message is trusted. A message may wait in the queue: it is taken for as long as
 * TOLERANCE_SECONDS allows after it was signed (a day here), and a failed attempt is published
 * again with the same webhook-id, so the ids seen that long are remembered and a repeat is
 * acknowledged without acting on it again. A message that does not verify is rejected (to the
 * queue's dead-letter exchange, if it has one). Outside this repository import
 * `verifyNotification` from 'clipgate/receiver'.
 */
import { connect, type Channel, type Options } from 'amqplib';
import { pathToFileURL } from 'node:url';
import { verifyNotification } from '../src/notifications/receiver.ts';

/**
 * Declares `queue` durable and binds it to `exchange` with the routing key pattern `binding`
 * (RabbitMQ's topic exchanges take `*` for a word and `#` for any words).
 */
export async function bindQueue(
  channel: Channel,
  queue: string,
  exchange: string,
  binding: string,
  options: Options.AssertQueue = {},
): Promise<void> {
  await channel.assertQueue(queue, { durable: true, ...options });
  await channel.bindQueue(queue, exchange, binding);
}

/** Consumes `queue`: each verified notification, once per webhook-id, goes to `onNotification`. */
export async function consumeNotifications(
  channel: Channel,
  queue: string,
  authKey: string,
  onNotification: (notification: Record<string, unknown>, webhookId: string) => void,
  toleranceSeconds = 86_400,
): Promise<void> {
  /** The webhook-ids acted on, with their timestamps; a real consumer keeps them in its database. */
  const seen = new Map<string, number>();
  await channel.consume(queue, (message) => {
    if (message === null) return; // the queue was deleted
    const verdict = verifyNotification(message.content, message.properties.headers, authKey, {
      toleranceSeconds,
    });
    if (!verdict.ok) {
      console.warn(`rejected message: ${verdict.reason}`);
      channel.reject(message, false);
      return;
    }
    const now = Math.floor(Date.now() / 1000);
    for (const [id, at] of seen) if (at < now - toleranceSeconds) seen.delete(id);
    if (!seen.has(verdict.webhookId)) {
      seen.set(verdict.webhookId, verdict.timestamp);
      onNotification(JSON.parse(message.content.toString('utf8')), verdict.webhookId);
    }
    channel.ack(message);
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { AMQP_URL, QUEUE, AUTH_KEY, TOLERANCE_SECONDS, EXCHANGE, BINDING } = process.env;
  if (!AMQP_URL || !QUEUE || !AUTH_KEY) throw new Error('set AMQP_URL, QUEUE and AUTH_KEY');
  const connection = await connect(AMQP_URL);
  const channel = await connection.createChannel();
  if (BINDING) await bindQueue(channel, QUEUE, EXCHANGE || 'amq.topic', BINDING);
  await channel.prefetch(16);
  await consumeNotifications(
    channel,
    QUEUE,
    AUTH_KEY,
    ({ eventType, eventData, userData }, webhookId) =>
      console.log(`notification ${webhookId}: ${String(eventType)}`, { eventData, userData }),
    TOLERANCE_SECONDS ? Number(TOLERANCE_SECONDS) : undefined,
  );
  console.log(`consuming ${QUEUE}`);
}
