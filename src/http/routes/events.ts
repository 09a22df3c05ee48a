import { z } from 'zod';
import { invalidArgument } from '../../errors.ts';
import { isBigintId } from '../../ids.ts';
import { route } from '../rest.ts';
import { anyEventSchema, catalogJson, eventChannels } from '../events/catalog.ts';
import { PULL_DEFAULT_LIMIT, PULL_MAX_LIMIT, PULL_MAX_WAIT_S } from '../../events/pull.ts';

const jsonSchemaObject = z.record(z.string(), z.unknown());

const eventTypeJson = z
  .strictObject({
    eventType: z.string(),
    description: z.string(),
    registrable: z.boolean().meta({ description: 'Registrations may list it' }),
    channels: z.array(z.enum(eventChannels)).meta({
      description:
        'What carries it: notifications to each destination kind (webhook, mqtt, amqp, nats), live subscriptions (accountEvents, accessoryEvents), pull',
    }),
    deprecated: z.string().nullable().meta({ description: 'Why not to use it; null: current' }),
    schema: jsonSchemaObject.meta({ description: 'The JSON Schema (2020-12) of its eventData' }),
    webhookSchema: jsonSchemaObject.nullable().meta({
      description: 'The JSON Schema of its whole webhook body; null: not sent to receivers',
    }),
    eventSchema: jsonSchemaObject.nullable().meta({
      description:
        'The JSON Schema of the event as live subscriptions stream it and pull answers it; null: not an event of the log',
    }),
  })
  .meta({ id: 'EventTypeDescription' });

/** The catalog answer, built once. */
const eventTypes = catalogJson();

/** A whole number of `field` within [min, max], from a query parameter; else a 400 naming it. */
function wholeNumber(
  field: string,
  value: string | undefined,
  min: number,
  max: number,
  fallback: number,
) {
  if (value === undefined) return fallback;
  const n = /^[0-9]{1,7}$/.test(value) ? Number(value) : NaN;
  if (!(n >= min && n <= max))
    throw invalidArgument(field, `${field} must be a whole number ${min}..${max}`, { min, max });
  return n;
}

export const eventRoutes = [
  route({
    method: 'GET',
    path: '/api/event-types',
    operationId: 'listEventTypes',
    summary:
      'The event catalog: every event type, what carries it and the JSON Schemas of its eventData, webhook body and event',
    scopes: [],
    response: z.array(eventTypeJson).meta({ id: 'EventTypes' }),
    async handle() {
      return { body: eventTypes };
    },
  }),
  route({
    method: 'GET',
    path: '/api/accounts/{accountId}/events',
    operationId: 'pullEvents',
    summary:
      "The account's events after a cursor, in order (the ids of live events and webhook-ids); waits up to `wait` seconds for one when there is none yet",
    scopes: ['activities_basic'],
    query: z.strictObject({
      after: z.unknown().optional().meta({
        type: 'string',
        pattern: '^[1-9][0-9]*$',
        description:
          "The last eventId you have (a pull's `next`); left out: from the oldest event the log holds",
      }),
      limit: z.unknown().optional().meta({
        type: 'integer',
        minimum: 1,
        maximum: PULL_MAX_LIMIT,
        default: PULL_DEFAULT_LIMIT,
        description: 'Events per page at most',
      }),
      wait: z.unknown().optional().meta({
        type: 'integer',
        minimum: 0,
        maximum: PULL_MAX_WAIT_S,
        default: 0,
        description: 'Seconds to wait for an event when none follows `after` yet (a long poll)',
      }),
    }),
    response: z
      .strictObject({
        events: z.array(anyEventSchema),
        next: z.string().nullable().meta({
          description:
            "Pass it as `after` to continue: the last event's id, else the `after` given; null: no event yet (pull again without after)",
        }),
        hasMore: z
          .boolean()
          .meta({ description: 'More events follow already: pull again at once' }),
      })
      .meta({ id: 'PulledEvents' }),
    async handle(ctx, { params, query, idle, signal }) {
      const { after } = query;
      if (after !== undefined && !isBigintId(after)) {
        throw invalidArgument('after', 'after must be an eventId: a decimal integer');
      }
      const limit = wholeNumber('limit', query.limit, 1, PULL_MAX_LIMIT, PULL_DEFAULT_LIMIT);
      const wait = wholeNumber('wait', query.wait, 0, PULL_MAX_WAIT_S, 0);
      const account = await ctx.ownAccount(params.accountId);
      const page = await ctx.services.pull.page(
        account.accountId,
        { after, limit, waitMs: wait * 1000, owner: ctx.principal, signal },
        idle,
      );
      return {
        body: {
          events: page.events.map((e) => ({ ...e, occurredAt: e.occurredAt.toISOString() })),
          next: page.next,
          hasMore: page.more,
        },
      };
    },
  }),
];
