/**
 * A consumer of clipgate notifications from a NATS JetStream stream (a `nats` destination), to
 * copy from.
 *
 * Run:   NATS_URL=nats://host:4222 STREAM=<the stream that takes the destination's subjects>
 *        CONSUMER=<a durable consumer of it> AUTH_KEY=<the registration's authKey, or its
 *        publicKey> npx tsx examples/nats-consumer.ts
 * With SUBJECTS=<the subjects to keep, e.g. clipgate.>> the stream (on file) and its durable
 * consumer are created first, unless they are there: the stream keeps what is published while no
 * consumer is there, and across a server restart.
 *
 * Each message is the notification's JSON body; its NATS headers carry the Standard Webhooks
 * `webhook-id`, `webhook-timestamp` and `webhook-signature`, verified against the exact body
 * before the message is trusted. `Nats-Msg-Id` is the webhook-id, so the stream itself drops a
 * repeat within its duplicate window; past it, a repeat is dropped here by its webhook-id. A
 * message may wait in the stream: it is taken for as long as TOLERANCE_SECONDS allows after it
 * was signed (a day here). A message that does not verify is terminated (never redelivered).
 * Outside this repository import `verifyNotification` from 'clipgate/receiver'.
 */
import {
  jetstream,
  jetstreamManager,
  type Consumer,
  type JetStreamManager,
} from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { pathToFileURL } from 'node:url';
import { verifyNotification } from '../src/notifications/receiver.ts';

/**
 * Creates `stream`, stored on file, taking `subjects` (NATS's wildcards: `*` for a token, `>` for
 * the rest), and its durable consumer `consumer`, acknowledging each message; an existing one of
 * the same configuration is left as it is.
 */
export async function createStream(
  jsm: JetStreamManager,
  stream: string,
  subjects: string,
  consumer: string,
): Promise<void> {
  await jsm.streams.add({ name: stream, subjects: [subjects] });
  await jsm.consumers.add(stream, { durable_name: consumer, ack_policy: 'explicit' });
}

/**
 * Consumes `consumer`'s messages until it is stopped: each verified notification, once per
 * webhook-id, goes to `onNotification`.
 */
export async function consumeNotifications(
  consumer: Consumer,
  authKey: string,
  onNotification: (notification: Record<string, unknown>, webhookId: string) => void,
  toleranceSeconds = 86_400,
): Promise<void> {
  /** The webhook-ids acted on, with their timestamps; a real consumer keeps them in its database. */
  const seen = new Map<string, number>();
  for await (const message of await consumer.consume()) {
    const verdict = verifyNotification(message.data, message.headers, authKey, {
      toleranceSeconds,
    });
    if (!verdict.ok) {
      console.warn(`terminated message: ${verdict.reason}`);
      message.term();
      continue;
    }
    const now = Math.floor(Date.now() / 1000);
    for (const [id, at] of seen) if (at < now - toleranceSeconds) seen.delete(id);
    if (!seen.has(verdict.webhookId)) {
      seen.set(verdict.webhookId, verdict.timestamp);
      onNotification(message.json(), verdict.webhookId);
    }
    message.ack();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { NATS_URL, STREAM, CONSUMER, AUTH_KEY, TOLERANCE_SECONDS, SUBJECTS } = process.env;
  if (!NATS_URL || !STREAM || !CONSUMER || !AUTH_KEY) {
    throw new Error('set NATS_URL, STREAM, CONSUMER and AUTH_KEY');
  }
  const connection = await connect({ servers: NATS_URL });
  if (SUBJECTS) await createStream(await jetstreamManager(connection), STREAM, SUBJECTS, CONSUMER);
  const consumer = await jetstream(connection).consumers.get(STREAM, CONSUMER);
  console.log(`consuming ${STREAM}/${CONSUMER}`);
  await consumeNotifications(
    consumer,
    AUTH_KEY,
    ({ eventType, eventData, userData }, webhookId) =>
      console.log(`notification ${webhookId}: ${String(eventType)}`, { eventData, userData }),
    TOLERANCE_SECONDS ? Number(TOLERANCE_SECONDS) : undefined,
  );
}
