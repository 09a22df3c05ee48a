import fs from 'node:fs/promises';
import { generate } from '@graphql-codegen/cli';
import { printSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import codegenConfig from '../../codegen.ts';
import { schema } from '../../src/graphql/schema.ts';

const root = new URL('../../', import.meta.url);

describe('committed GraphQL artifacts', () => {
  it('schema.graphql is the printed Pothos schema (run `npm run schema:print`)', async () => {
    const committed = await fs.readFile(new URL('schema.graphql', root), 'utf8');
    expect(committed).toBe(printSchema(schema) + '\n');
  });

  it('test/generated matches the schema and documents (run `npm run codegen`)', async () => {
    const outputs = await generate({ ...codegenConfig, cwd: root.pathname, silent: true }, false);
    expect(outputs.length).toBeGreaterThan(0);
    for (const output of outputs) {
      const committed = await fs.readFile(new URL(output.filename, root), 'utf8');
      expect(committed, output.filename).toBe(output.content);
    }
  });

  it('names the contract fields', () => {
    const printed = printSchema(schema);
    for (const fragment of [
      'viewer: Viewer!',
      'accessories(after: String',
      'accessory(id: ID!): Accessory',
      'nextStartActivityId: String',
      'hasPreviousPage: Boolean!',
      'createActivity(accessoryId: ID!, input: CreateActivityInput!): Activity!',
      'upsertAccount(retentionDays: Int, subject: String!): Account!',
      'setRetention(accountId: ID!, retentionDays: Int!): Account!',
      'deleteAccount(accountId: ID!): Boolean!',
      'registerNotifications(input: RegisterNotificationsInput!): NotificationRegistration!',
      'unregisterNotifications(accountId: ID!): Boolean!',
      'sendTestNotification(accountId: ID!): NotificationDelivery!',
      'redeliverNotification(deliveryId: ID!): NotificationDelivery!',
      'notificationRegistration(accountId: ID!): NotificationRegistration',
      'notificationDeliveries(accountId: ID!, after: String',
      'saveZones(accessoryId: ID!, zones: [ZoneInput!]!): AccessoryZones!',
      // The fixed arguments, and the filter.
      'accessoryEvents(accessoryId: ID!, after: String, filter: String): LiveEvent!',
      'accountEvents(accountId: ID!, after: String, eventTypes: [EventType!], filter: String): LiveEvent!',
      'media: ActivityMedia',
    ]) {
      expect(printed).toContain(fragment);
    }
  });
});
