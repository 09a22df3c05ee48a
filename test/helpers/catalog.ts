import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, afterEach, expect } from 'vitest';
import type { z } from 'zod';
import {
  catalogEntry,
  eventSchemas,
  jsonSchema,
  notificationSchemas,
} from '../../src/http/events/catalog.ts';

/**
 * Checks what the suite receives against the event catalog, with the JSON Schemas the service
 * serves (GET /api/event-types), compiled by ajv: every notification a test receiver verifies
 * (test/notifications/helpers.ts) and every live event the live clients read
 * (test/events/live-helpers.ts). A mismatch fails the test it arrived in (or, arriving after
 * the file's last test, the file): the catalog cannot drift from what is sent.
 */

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const ajv = addFormats(new Ajv2020({ strict: true, allErrors: true }));
const compiled = new Map<string, ValidateFunction>();

function validator(key: string, schema: () => z.ZodType): ValidateFunction {
  let validate = compiled.get(key);
  if (!validate) {
    validate = ajv.compile(jsonSchema(schema()));
    compiled.set(key, validate);
  }
  return validate;
}

/** What the catalog says is wrong with a value (empty: nothing). */
function problems(validate: ValidateFunction, value: unknown): string[] {
  if (validate(value)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`);
}

/** Where a notification body departs from its event type's webhook schema. */
export function notificationProblems(body: unknown): string[] {
  const eventType = (body as { eventType?: unknown } | undefined)?.eventType;
  const schema = typeof eventType === 'string' ? notificationSchemas.get(eventType) : undefined;
  if (!schema) return [`no webhook schema for eventType ${JSON.stringify(eventType)}`];
  return problems(
    validator(`notification ${String(eventType)}`, () => schema),
    body,
  );
}

/**
 * Where a live event (the members a subscription selected) departs from its type's event
 * schema; one selected without `eventType` cannot be told apart, and is not checked.
 */
export function liveEventProblems(event: unknown): string[] {
  const eventType = (event as { eventType?: unknown } | null)?.eventType;
  if (eventType === undefined) return [];
  const schema = typeof eventType === 'string' ? eventSchemas.get(eventType) : undefined;
  if (!schema || !catalogEntry(String(eventType))?.channels.includes('live')) {
    return [`no live event schema for eventType ${JSON.stringify(eventType)}`];
  }
  return problems(
    validator(`event ${String(eventType)}`, () => schema.partial()),
    event,
  );
}

const found: string[] = [];

/** Records what `check` finds wrong with `value`, received as `what`, for the test to fail on. */
export function checkReceived(what: string, value: unknown, check: (value: unknown) => string[]) {
  const wrong = check(value);
  if (wrong.length > 0) found.push(`${what} ${JSON.stringify(value)}: ${wrong.join('; ')}`);
}

const expectNoneFound = () => {
  const seen = found.splice(0);
  expect(seen, 'received bodies the event catalog does not describe').toEqual([]);
};

afterEach(expectNoneFound);
afterAll(expectNoneFound);
