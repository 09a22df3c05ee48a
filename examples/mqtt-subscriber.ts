/**
 * A clipgate MQTT subscriber: every notification of a registration of kind `mqtt` is verified
 * with `clipgate/receiver` and turned into a Home Assistant-style automation event.
 *
 * Run:   MQTT_URL=mqtt://broker:1883 TOPIC='clipgate/#' AUTH_KEY=<the registration's authKey> \
 *          npx tsx examples/mqtt-subscriber.ts
 * (MQTT_USERNAME and MQTT_PASSWORD when the broker asks for them.) The Standard Webhooks headers
 * travel as MQTT 5 user properties; the signature covers the exact payload bytes. A message is
 * published again (same webhook-id) when its PUBACK did not reach the service: the ids seen are
 * remembered, and a repeat is dropped. Outside this repository import `verifyNotification` from
 * 'clipgate/receiver'.
 */
import { pathToFileURL } from 'node:url';
import { connect, type IClientOptions, type MqttClient } from 'mqtt';
import { verifyNotification } from '../src/notifications/receiver.ts';

/** An event as a Home Assistant automation triggers on it (`platform: event`). */
export interface Automation {
  event_type: string;
  event_data: {
    webhook_id: string;
    account_id: string;
    accessory_id: string | null;
    activity_id: string | null;
    /** The activity's change number: a subscriber acts on the highest seen (docs/api.md, Ordering). */
    sequence: number | null;
    user_data: Record<string, unknown> | null;
  };
}

interface Notification {
  accountId: string;
  eventType: string;
  eventData: { accessoryId?: string; activityId?: string; sequence?: number };
  userData?: Record<string, unknown>;
}

/** The automation event of a verified notification: `clipgate_<eventType>` with its ids. */
export const automationOf = (n: Notification, webhookId: string): Automation => ({
  event_type: `clipgate_${n.eventType}`,
  event_data: {
    webhook_id: webhookId,
    account_id: n.accountId,
    accessory_id: n.eventData.accessoryId ?? null,
    activity_id: n.eventData.activityId ?? null,
    sequence: n.eventData.sequence ?? null,
    user_data: n.userData ?? null,
  },
});

/**
 * Subscribes to `topic` and calls `onAutomation` once per webhook-id for each notification
 * that verifies; `onRejected` hears of those that do not.
 */
export async function mqttSubscriber(
  options: { url: string; topic: string; authKey: string } & IClientOptions,
  onAutomation: (automation: Automation) => void,
  onRejected: (reason: string) => void = (reason) => console.warn(`rejected: ${reason}`),
): Promise<MqttClient> {
  const { url, topic, authKey, ...clientOptions } = options;
  // Listening before the connection is up: on a persistent session (clean: false) the broker
  // sends what waited for it at once.
  const client = connect(url, { ...clientOptions, protocolVersion: 5 });
  // A real subscriber keeps the ids in its database for as long as a repeat can come.
  const seen = new Set<string>();
  client.on('message', (_topic, payload, packet) => {
    // The exact payload bytes, before any parsing; the headers are the user properties.
    const verdict = verifyNotification(payload, packet.properties?.userProperties ?? {}, authKey);
    if (!verdict.ok) return onRejected(verdict.reason);
    if (seen.has(verdict.webhookId)) return;
    seen.add(verdict.webhookId);
    const notification = JSON.parse(payload.toString('utf8')) as Notification;
    onAutomation(automationOf(notification, verdict.webhookId));
  });
  await client.subscribeAsync(topic, { qos: 1 });
  return client;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { MQTT_URL, TOPIC = 'clipgate/#', AUTH_KEY, MQTT_USERNAME, MQTT_PASSWORD } = process.env;
  if (!MQTT_URL || !AUTH_KEY) throw new Error('set MQTT_URL and AUTH_KEY');
  await mqttSubscriber(
    {
      url: MQTT_URL,
      topic: TOPIC,
      authKey: AUTH_KEY,
      ...(MQTT_USERNAME && { username: MQTT_USERNAME, password: MQTT_PASSWORD }),
    },
    (automation) => console.log(JSON.stringify(automation)),
  );
  console.log(`subscribed to ${TOPIC} at ${MQTT_URL}`);
}
