import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { Principal } from '../accounts/auth.ts';
import { AppError, invalidArgument, type ErrorCode, type ErrorDetails } from '../errors.ts';
import { parseInput, timestamp, uuid } from '../schemas.ts';
import { deleteInBatches } from '../jobs/batches.ts';
import type { Database } from '../storage/database.ts';
import { isActivityId } from '../activity-ids.ts';
import { checkMotionReport } from './motion.ts';
import { checkInput, type ActivityService } from './service.ts';
import { IdempotencyRace, type IngestChange, type IngestOutcome } from './writes.ts';

/** The most changes one batch takes. */
export const MAX_BATCH_ITEMS = 1000;
/** How long the answer of a batch sent with an Idempotency-Key is kept. */
export const IDEMPOTENCY_TTL_HOURS = 24;

const when = timestamp;
const date = (s: string | undefined) => (s === undefined ? undefined : new Date(s));
const activityId = z.string().refine(isActivityId, 'must be an activityId (YYYYMMDDTHHMMSSZ)');
const metadata = {
  startTime: when.optional(),
  relevanceLevel: z.number().optional(),
  motionZones: z.array(z.string()).optional(),
  objectLocations: z.array(z.number()).optional(),
};

/** One item of a batch: the fields of the single operation it names by `op`. */
export const ingestItemSchema = z
  .discriminatedUnion('op', [
    z.strictObject({
      op: z.literal('createActivity'),
      accessoryId: uuid,
      input: z.strictObject({ ...metadata, createdAt: when.optional() }).optional(),
    }),
    z.strictObject({
      op: z.literal('updateActivity'),
      accessoryId: uuid,
      activityId,
      input: z.strictObject(metadata),
    }),
    z.strictObject({
      op: z.literal('finishActivity'),
      accessoryId: uuid,
      activityId,
      endTime: when,
    }),
    z.strictObject({
      op: z.literal('reportMotion'),
      accessoryId: uuid,
      state: z.enum(['started', 'ended']),
      at: when.optional(),
      motionZones: z.array(z.string()).optional(),
    }),
  ])
  .meta({ id: 'IngestItem' });

/** What became of one item, as both APIs answer it and an Idempotency-Key replays it. */
export type IngestResult =
  | { ok: true; accessoryId: string; activityId?: string }
  | { ok: false; error: { code: ErrorCode; message: string; details: ErrorDetails } };

export const ingestResultSchema = z
  .union([
    z.strictObject({
      ok: z.literal(true),
      accessoryId: uuid,
      activityId: z.string().optional().meta({
        description: 'The activity created or changed; absent for reportMotion',
      }),
    }),
    z.strictObject({
      ok: z.literal(false),
      error: z.strictObject({
        code: z.string(),
        message: z.string(),
        details: z.record(z.string(), z.unknown()),
      }),
    }),
  ])
  .meta({ id: 'IngestResult' });

/** One item as the write path takes it, or its refusal (a 400 naming the item's field). */
function ingestChange(raw: unknown): IngestChange | AppError {
  try {
    const item = parseInput(ingestItemSchema, raw);
    switch (item.op) {
      case 'createActivity': {
        const { createdAt, ...input } = item.input ?? {};
        const metadata = { ...input, startTime: date(input.startTime) };
        checkInput(metadata);
        return {
          kind: 'create',
          accessoryId: item.accessoryId,
          input: { ...metadata, createdAt: date(createdAt) ?? new Date() },
        };
      }
      case 'updateActivity': {
        const input = { ...item.input, startTime: date(item.input.startTime) };
        checkInput(input);
        return {
          kind: 'update',
          accessoryId: item.accessoryId,
          activityId: item.activityId,
          input,
        };
      }
      case 'finishActivity':
        return { kind: 'finish', ...item, endTime: new Date(item.endTime) };
      case 'reportMotion': {
        const report = {
          accessoryId: item.accessoryId,
          state: item.state,
          at: date(item.at) ?? new Date(),
          motionZones: item.motionZones ?? [],
        };
        checkMotionReport(report);
        return { kind: 'motion', ...report };
      }
    }
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
}

const resultOf = (outcome: IngestOutcome): IngestResult =>
  outcome.ok
    ? {
        ok: true,
        accessoryId: outcome.accessoryId,
        ...(outcome.activity && { activityId: outcome.activity.activityId }),
      }
    : {
        ok: false,
        error: {
          code: outcome.error.code,
          message: outcome.error.message,
          details: outcome.error.details,
        },
      };

/**
 * The bulk operation behind GraphQL `ingestBatch` and REST `POST /api/ingest`: many changes,
 * across accessories, applied in order, with one result per item; a refused item changes
 * nothing and never stops the others. With an Idempotency-Key, the answer is stored with the
 * changes in their transaction, and the same key again (same caller, same items) answers it
 * again without applying anything.
 */
export async function ingestBatch(
  deps: { activities: ActivityService; db: Database },
  principal: Principal,
  items: readonly unknown[],
  idempotencyKey?: string,
): Promise<{ results: IngestResult[]; replayed: boolean }> {
  if (items.length === 0 || items.length > MAX_BATCH_ITEMS) {
    throw invalidArgument('items', `a batch holds 1..${MAX_BATCH_ITEMS} items`);
  }
  const changes = items.map((item) => ingestChange(item));
  if (idempotencyKey === undefined) {
    const outcomes = await deps.activities.writer.apply(changes);
    return { results: outcomes.map(resultOf), replayed: false };
  }
  if (idempotencyKey.length === 0 || idempotencyKey.length > 255) {
    throw invalidArgument('Idempotency-Key', 'the Idempotency-Key is 1..255 characters');
  }
  const record = {
    clientId: principal.clientId,
    subject: principal.subject,
    key: idempotencyKey,
    fingerprint: createHash('sha256').update(JSON.stringify(items)).digest('base64url'),
  };
  const replay = async () => {
    const { rows } = await deps.db.pool.query<{ fingerprint: string; response: IngestResult[] }>(
      `SELECT fingerprint, response FROM idempotency_keys
        WHERE client_id = $1 AND subject = $2 AND key = $3
          AND created_at > now() - make_interval(hours => $4)`,
      [record.clientId, record.subject, record.key, IDEMPOTENCY_TTL_HOURS],
    );
    const [stored] = rows;
    if (!stored) return undefined;
    if (stored.fingerprint !== record.fingerprint) {
      throw invalidArgument(
        'Idempotency-Key',
        'this Idempotency-Key was used for another batch; use a new key for new items',
      );
    }
    return { results: stored.response, replayed: true };
  };
  const earlier = await replay();
  if (earlier) return earlier;
  try {
    const outcomes = await deps.activities.writer.apply(changes, {
      ...record,
      response: (planned) => planned.map(resultOf),
    });
    return { results: outcomes.map(resultOf), replayed: false };
  } catch (err) {
    if (!(err instanceof IdempotencyRace)) throw err;
    const stored = await replay();
    if (!stored) throw new AppError('CONFLICT', 'a request with this Idempotency-Key is running');
    return stored;
  }
}

/** Deletes the stored answers of Idempotency-Keys older than their TTL. */
export function purgeIdempotencyKeys(db: Database, now = new Date()): Promise<number> {
  return deleteInBatches(db.pool, {
    table: 'idempotency_keys',
    key: 'ctid',
    where: 'created_at < $1',
    params: [new Date(now.getTime() - IDEMPOTENCY_TTL_HOURS * 3_600_000)],
  });
}
