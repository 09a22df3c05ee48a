import { fullScopeName } from '../../accounts/scopes.ts';
import { Schemas, json } from '../../schemas.ts';
import {
  catalog,
  eventSchemas,
  notificationSchemas,
  pascal,
  type CatalogEntry,
} from './catalog.ts';

/**
 * The event catalog (./catalog.ts) as the machine-readable documents describe it: the OpenAPI
 * document's `webhooks`, and the AsyncAPI 3 document of the live channels and the webhooks
 * (`/asyncapi.json`). Both are generated from the catalog's zod schemas, as `/api/event-types`.
 */

/** The headers every notification carries (docs/api.md, What a receiver gets). */
const notificationHeaders = {
  'webhook-id': "The event's id (its eventId), or test_<deliveryId>; the same on every attempt",
  'webhook-timestamp': 'Unix seconds of this attempt',
  'webhook-signature':
    "`v1,` + base64 of the HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}`, keyed with the UTF-8 bytes of the authKey; for a registration with signing ed25519, `v1a,` + base64 of the ed25519 signature of the same, verified with its publicKey. During a key rotation's overlap, two space-separated signatures, the new key's first",
  'X-Vendor-Verify':
    'Legacy: base64 of the HMAC-SHA256 of the body alone, keyed with the authKey (the new one from a rotation on); it signs no time and no id, prefer webhook-signature',
};

/** The broker kinds' servers (docs/api.md, Destinations). */
const brokers = [
  { kind: 'mqtt', protocol: 'mqtt', title: 'An MQTT 5 broker' },
  { kind: 'amqp', protocol: 'amqp', title: 'An AMQP 0-9-1 broker (RabbitMQ)' },
  { kind: 'nats', protocol: 'nats', title: 'A NATS server with JetStream' },
] as const;

const webhookEntries = () => catalog.filter((entry) => notificationSchemas.has(entry.eventType));

/** The OpenAPI 3.1 `webhooks`: one POST per event type sent to receivers. */
export function openApiWebhooks(): Record<string, object> {
  return Object.fromEntries(
    webhookEntries().map((entry) => [
      entry.eventType,
      {
        post: {
          operationId: `notify${pascal(entry.eventType)}`,
          summary: entry.description,
          description:
            'Sent to each registration of the account that lists the type, signed (Standard Webhooks). Answer 2xx to accept it; any other answer or none is retried, then discarded.',
          parameters: Object.entries(notificationHeaders).map(([name, description]) => ({
            name,
            in: 'header',
            required: true,
            description,
            schema: { type: 'string' },
          })),
          requestBody: {
            required: true,
            content: json(notificationSchemas.get(entry.eventType)),
          },
          responses: {
            '2XX': { description: 'Accepted' },
            '410': { description: 'Gone: the registration is removed; nothing more is sent' },
            default: { description: 'Anything else: retried after each delay, then discarded' },
          },
        },
      },
    ]),
  );
}

const messageRefs = (channel: string, entries: readonly CatalogEntry[], suffix: string) =>
  Object.fromEntries(
    entries.map((e) => [
      `${pascal(e.eventType)}${suffix}`,
      { $ref: `#/channels/${channel}/messages/${pascal(e.eventType)}${suffix}` },
    ]),
  );

const channelMessages = (entries: readonly CatalogEntry[], suffix: string) =>
  Object.fromEntries(
    entries.map((e) => [
      `${pascal(e.eventType)}${suffix}`,
      { $ref: `#/components/messages/${pascal(e.eventType)}${suffix}` },
    ]),
  );

/**
 * The AsyncAPI 3.0 document: clipgate sends live events over WebSocket (graphql-transport-ws)
 * and SSE on `/graphql`, and notifications to each registration's URL. Schemas are draft 7,
 * which the AsyncAPI Schema Object extends.
 */
export function asyncApiDocument(scopePrefix: string): object {
  const schemas = new Schemas('draft-7');
  const logged = catalog.filter((e) => eventSchemas.has(e.eventType));
  const ofAccessory = logged.filter((e) => e.ofAccessory);
  const webhooks = webhookEntries();
  const messages: Record<string, object> = {};
  for (const entry of logged) {
    messages[`${pascal(entry.eventType)}Event`] = {
      name: entry.eventType,
      title: `${entry.eventType} event`,
      summary: entry.description,
      contentType: 'application/json',
      payload: schemas.of(eventSchemas.get(entry.eventType)!, 'output'),
    };
  }
  for (const entry of webhooks) {
    messages[`${pascal(entry.eventType)}Notification`] = {
      name: entry.eventType,
      title: `${entry.eventType} notification`,
      summary: entry.description,
      contentType: 'application/json',
      headers: {
        type: 'object',
        required: Object.keys(notificationHeaders),
        properties: Object.fromEntries(
          Object.entries(notificationHeaders).map(([name, description]) => [
            name,
            { type: 'string', description },
          ]),
        ),
      },
      payload: schemas.of(notificationSchemas.get(entry.eventType)!, 'output'),
    };
  }
  const live = [{ $ref: '#/servers/websocket' }, { $ref: '#/servers/sse' }];
  const liveDescription = (field: string, args: string) =>
    `The GraphQL subscription \`${field}(${args})\` (scope ${fullScopeName(scopePrefix, 'activities_basic')}). Each \`next\` message of the subscription carries \`{"data": {"${field}": <event>}}\` with the fields the subscription selects: over WebSocket in a graphql-transport-ws \`next\` frame, over SSE as a \`next\` event. Pass the last eventId as \`after\` to resume without gap or repeat.`;
  return {
    asyncapi: '3.0.0',
    info: {
      title: 'clipgate events',
      version: '1',
      description:
        'The events clipgate sends: live subscriptions over WebSocket and SSE, webhook notifications, and notifications published to MQTT, AMQP and NATS brokers. GET /api/event-types answers the same schemas as JSON Schema 2020-12; GET /api/accounts/{accountId}/events pulls the same events. docs/api.md describes them.',
    },
    defaultContentType: 'application/json',
    servers: {
      websocket: {
        host: '{host}',
        protocol: 'ws',
        pathname: '/graphql',
        title: 'GraphQL over WebSocket',
        description:
          'The graphql-transport-ws subprotocol (the graphql-ws client). The token goes in connection_init: `{"authorization": "Bearer <token>"}`. Use wss behind TLS.',
        variables: { host: { default: '127.0.0.1:4000', description: 'The service' } },
        security: [{ $ref: '#/components/securitySchemes/bearer' }],
      },
      sse: {
        host: '{host}',
        protocol: 'http',
        pathname: '/graphql',
        title: 'GraphQL over SSE',
        description:
          'A POST of the subscription with `Accept: text/event-stream` (the distinct connections mode of GraphQL over SSE). Use https behind TLS.',
        variables: { host: { default: '127.0.0.1:4000', description: 'The service' } },
        security: [{ $ref: '#/components/securitySchemes/bearer' }],
      },
      receiver: {
        host: '{receiver}',
        protocol: 'https',
        title: 'A webhook receiver',
        description: "A registration's url (http only where the operator allows it).",
        variables: { receiver: { description: "The receiver's host" } },
      },
      ...Object.fromEntries(
        brokers.map(({ kind, protocol, title }) => [
          kind,
          {
            host: '{broker}',
            protocol,
            title,
            description: `The url of a registration of kind ${kind} (docs/api.md, Destinations).`,
            variables: { broker: { description: "The broker's host and port" } },
          },
        ]),
      ),
    },
    channels: {
      accountEvents: {
        address: 'accountEvents',
        title: "An account's events",
        description: liveDescription('accountEvents', 'accountId, eventTypes, after, filter'),
        servers: live,
        messages: channelMessages(logged, 'Event'),
      },
      accessoryEvents: {
        address: 'accessoryEvents',
        title: "An accessory's events",
        description: liveDescription('accessoryEvents', 'accessoryId, after, filter'),
        servers: live,
        messages: channelMessages(ofAccessory, 'Event'),
      },
      notifications: {
        address: null,
        title: 'Webhook notifications',
        description:
          "POSTed to each registration's url for the event types it lists (account_deleted always), signed with its authKey.",
        servers: [{ $ref: '#/servers/receiver' }],
        messages: channelMessages(webhooks, 'Notification'),
      },
      brokerNotifications: {
        address: '{topic}',
        title: 'Broker notifications',
        description:
          "Published to the broker of each registration of kind mqtt, amqp or nats, to its topic (MQTT), routing key (AMQP, on its exchange) or subject (NATS), for the event types it lists. The body is the webhook's; webhook-id, webhook-timestamp and webhook-signature travel as MQTT 5 user properties or message headers (no X-Vendor-Verify), and NATS's Nats-Msg-Id is the webhook-id.",
        parameters: {
          topic: {
            description:
              "The registration's template with {accountId}, {accessoryId} (- for none) and {eventType} filled in",
          },
        },
        servers: brokers.map(({ kind }) => ({ $ref: `#/servers/${kind}` })),
        messages: channelMessages(webhooks, 'Notification'),
      },
    },
    operations: {
      sendAccountEvents: {
        action: 'send',
        channel: { $ref: '#/channels/accountEvents' },
        summary: "Streams the account's events as they commit",
        messages: Object.values(messageRefs('accountEvents', logged, 'Event')),
      },
      sendAccessoryEvents: {
        action: 'send',
        channel: { $ref: '#/channels/accessoryEvents' },
        summary: "Streams the accessory's events as they commit",
        messages: Object.values(messageRefs('accessoryEvents', ofAccessory, 'Event')),
      },
      sendNotifications: {
        action: 'send',
        channel: { $ref: '#/channels/notifications' },
        summary:
          'POSTs each notification to the receiver; 2xx accepts it, 410 removes the registration',
        bindings: { http: { method: 'POST' } },
        messages: Object.values(messageRefs('notifications', webhooks, 'Notification')),
      },
      publishNotifications: {
        action: 'send',
        channel: { $ref: '#/channels/brokerNotifications' },
        summary:
          'Publishes each notification to the broker; its acknowledgement (PUBACK, publisher confirm, JetStream ack) accepts it',
        bindings: {
          mqtt: { qos: 1, retain: false },
          amqp: { deliveryMode: 2, mandatory: true },
        },
        messages: Object.values(messageRefs('brokerNotifications', webhooks, 'Notification')),
      },
    },
    components: {
      messages,
      schemas: schemas.components,
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description: `An OAuth 2.0 access token with ${fullScopeName(scopePrefix, 'activities_basic')}`,
        },
      },
    },
  };
}
