import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { invalidArgument } from './errors.ts';

// The zod schemas every layer shares, and their JSON Schemas (OpenAPI, AsyncAPI, the catalog).

/** An instant as every JSON answer writes it. */
export const timestamp = z.iso.datetime().meta({
  id: 'Timestamp',
  description: 'ISO 8601 in UTC with `Z`, e.g. 2026-11-21T20:41:17.000Z',
});

/** Account and accessory ids. */
export const uuid = z.uuid().meta({ id: 'Uuid', description: 'A lower-case UUID v4' });

/** A UTF-16 surrogate without its pair: no UTF-8 text can hold one. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** What a string has that PostgreSQL's text and jsonb cannot store, if anything. */
function unstorable(text: string): string | undefined {
  if (text.includes('\0')) return 'a NUL character (\\u0000)';
  if (LONE_SURROGATE.test(text)) return 'an unpaired surrogate (\\ud800-\\udfff)';
  return undefined;
}

/** A string PostgreSQL cannot store, found in a value: where, and the 400's message. */
export interface UnstorableString {
  field: string;
  message: string;
}

interface Visit {
  value: unknown;
  key: string;
  parent: Visit | undefined;
}

function pathOf(visit: Visit | undefined): string {
  const keys: string[] = [];
  for (let v = visit; v; v = v.parent) if (v.key) keys.unshift(v.key);
  return keys.join('.') || 'body';
}

/**
 * The first string (or object key) in a JSON value that PostgreSQL's text and jsonb cannot
 * store, NUL or an unpaired surrogate, named by its path from `root` (e.g. `userData.a`); every
 * input that may reach the database is refused on it (a 400), never stored (a 500).
 */
export function findUnstorableString(value: unknown, root = ''): UnstorableString | undefined {
  // A loop, not recursion: a body may nest thousands deep.
  const pending: Visit[] = [{ value, key: root, parent: undefined }];
  for (let visit = pending.pop(); visit; visit = pending.pop()) {
    const { value: v } = visit;
    if (typeof v === 'string') {
      const what = unstorable(v);
      if (what) {
        const field = pathOf(visit);
        return { field, message: `${field} must not contain ${what}` };
      }
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--)
        pending.push({ value: v[i], key: String(i), parent: visit });
    } else if (v !== null && typeof v === 'object') {
      for (const [key, item] of Object.entries(v).reverse()) {
        const what = unstorable(key);
        if (what) {
          const field = pathOf(visit);
          return { field, message: `${field} must not have a key that contains ${what}` };
        }
        pending.push({ value: item, key, parent: visit });
      }
    }
  }
  return undefined;
}

/**
 * Validates input against a schema; the first problem becomes a 400 naming its field. A string
 * PostgreSQL cannot store is one, wherever it is (findUnstorableString).
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  const unstorableString = findUnstorableString(input);
  if (unstorableString) throw invalidArgument(unstorableString.field, unstorableString.message);
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const keys = issue.code === 'unrecognized_keys' ? issue.keys : [];
  const field = [...issue.path, ...keys.slice(0, 1)].join('.') || 'body';
  const message =
    issue.code === 'unrecognized_keys' ? `unknown field ${field}` : `${field}: ${issue.message}`;
  throw invalidArgument(field, message);
}

/** A JSON content map. */
export const json = (schema: unknown) => ({ 'application/json': { schema } });

type JsonSchema = Record<string, unknown>;

/**
 * JSON Schemas from zod schemas, collecting every schema with an `id` (`.meta({ id })`) as a
 * component that the others refer to: JSON Schema 2020-12 (OpenAPI 3.1's), or draft 7 (what an
 * AsyncAPI 3 Schema Object extends).
 */
export class Schemas {
  readonly components: Record<string, JsonSchema> = {};

  constructor(readonly target: 'draft-2020-12' | 'draft-7' = 'draft-2020-12') {}

  of(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
    const generated = z.toJSONSchema(schema, { io, target: this.target }) as JsonSchema;
    const { $defs = {}, definitions = {}, ...root } = generated;
    delete root.$schema;
    const defs = { ...($defs as JsonSchema), ...(definitions as JsonSchema) };
    for (const [id, def] of Object.entries(defs as Record<string, JsonSchema>)) {
      const component = this.#refs(def);
      if (this.components[id] && !isDeepStrictEqual(this.components[id], component)) {
        throw new Error(`two different schemas are named ${id}`);
      }
      this.components[id] = component;
    }
    return this.#refs(root);
  }

  /** Replaces the zod schemas anywhere in an OpenAPI fragment by their JSON Schemas. */
  resolve(value: unknown): unknown {
    if (value instanceof z.ZodType) return this.of(value, 'output');
    if (Array.isArray(value)) return value.map((v) => this.resolve(v));
    if (value && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.resolve(v)]));
    }
    return value;
  }

  #refs(schema: JsonSchema): JsonSchema {
    return JSON.parse(
      JSON.stringify(schema)
        .replaceAll('"#/$defs/', '"#/components/schemas/')
        .replaceAll('"#/definitions/', '"#/components/schemas/'),
    ) as JsonSchema;
  }
}
