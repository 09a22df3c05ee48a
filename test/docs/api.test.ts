import fs from 'node:fs/promises';
import type { GraphQLEnumType, GraphQLObjectType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { accessoryRoutes } from '../../src/http/routes/accessories.ts';
import { accountRoutes } from '../../src/http/routes/accounts.ts';
import { activityRoutes, listBody } from '../../src/http/routes/activities.ts';
import { errorStatus } from '../../src/errors.ts';
import { schema } from '../../src/graphql/schema.ts';
import { eventRoutes } from '../../src/http/routes/events.ts';
import { notificationRoutes } from '../../src/http/routes/notifications.ts';
import { zoneRoutes } from '../../src/http/routes/zones.ts';

const doc = await fs.readFile(new URL('../../docs/api.md', import.meta.url), 'utf8');

const mentions = (name: string) =>
  new RegExp(`(^|[^A-Za-z0-9_])${name.replace(/[{}.$]/g, '\\$&')}($|[^A-Za-z0-9_])`).test(doc);

const missing = (names: Iterable<string>) => [...new Set(names)].filter((n) => !mentions(n));

describe('docs/api.md', () => {
  it('names every REST path and request member', () => {
    const routes = [
      ...accountRoutes,
      ...accessoryRoutes,
      ...activityRoutes,
      ...zoneRoutes,
      ...notificationRoutes,
      ...eventRoutes,
    ];
    expect(missing(routes.map((r) => r.path))).toEqual([]);
    expect(missing(Object.keys(listBody.shape))).toEqual([]);
    const media = ['/image', '/mp4', '/mpd', '/dash/{file}', '/hls/activity.m3u8', '/hls/{file}'];
    expect(missing([...media, 'signed/{signature}', '/openapi.json', '/asyncapi.json'])).toEqual(
      [],
    );
    expect(missing(['url', 'authKey', 'eventTypes', 'userData', 'zones', 'lastModified'])).toEqual(
      [],
    );
  });

  it('names every GraphQL operation with its arguments, the contract types and event types', () => {
    const names: string[] = [];
    for (const root of [
      schema.getQueryType(),
      schema.getMutationType(),
      schema.getSubscriptionType(),
    ]) {
      for (const field of Object.values(root!.getFields())) {
        names.push(field.name, ...field.args.map((a) => a.name));
      }
    }
    for (const type of [
      'Accessory',
      'Activity',
      'ActivityMedia',
      'LiveEvent',
      'Viewer',
      'PageInfo',
    ]) {
      names.push(...Object.keys((schema.getType(type) as GraphQLObjectType).getFields()));
    }
    for (const type of ['EventType', 'DeliveryState']) {
      names.push(...(schema.getType(type) as GraphQLEnumType).getValues().map((v) => v.name));
    }
    names.push('Node', 'edges', 'cursor', 'node', 'nextStartActivityId');
    expect(missing(names)).toEqual([]);
  });

  it('names the webhook body and headers, the error codes and the live close codes', () => {
    expect(
      missing([
        'accountId',
        'eventType',
        'eventData',
        'userData',
        'webhook-id',
        'webhook-timestamp',
        'webhook-signature',
        'X-Vendor-Verify',
        'test_notification',
      ]),
    ).toEqual([]);
    expect(missing(Object.keys(errorStatus))).toEqual([]);
    expect(missing(['4403', '4008', '4429', '1013', '1001', 'graphql-transport-ws'])).toEqual([]);
  });

  it('links only inside the repository', () => {
    const links = [...doc.matchAll(/\]\(([^)]+)\)/g)].map(([, target]) => target!);
    expect(links.length).toBeGreaterThan(0);
    for (const target of links) {
      expect(target, target).not.toMatch(/^[a-z]+:/i);
      if (!target.startsWith('#')) expect(target, target).not.toMatch(/^\.\.\/\.\./);
    }
  });
});
