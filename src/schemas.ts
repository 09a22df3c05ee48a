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

/** Validates input against a schema; the first problem becomes a 400 naming its field. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
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
