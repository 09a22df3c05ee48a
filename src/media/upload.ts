import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { MediaConfig } from '../config.ts';
import { AppError, conflict, invalidArgument, notFound } from '../errors.ts';
import type { Database } from '../storage/database.ts';
import type { MediaCleanup } from './cleanup.ts';
import type { MediaLookup } from './lookup.ts';
import { NO_FFMPEG } from './ffmpeg.ts';
import type { MediaReadiness } from './ready.ts';
import {
  isActivityRef,
  kindInfo,
  uploadPrefix,
  view,
  type MediaKind,
  type MediaObjectView,
  type MediaRow,
  type UploadRef,
} from './model.ts';
import type { MediaStore } from './store.ts';

/** An upload as the routes hand it over: plain values from the headers, and the body. */
export interface UploadRequest {
  kind: MediaKind;
  accessoryId: string;
  activityId: string;
  /** The media type of `Content-Type`, lowercased, without parameters. */
  contentType: string | undefined;
  /** `Content-Length`, when the client declared one. */
  declaredBytes: number | undefined;
  /** The SHA-256 (hex) the client sent in a digest header, if any. */
  sha256: string | undefined;
  body: Readable;
}

export interface UploadResult {
  created: boolean;
  body: {
    accessoryId: string;
    activityId: string;
    kind: MediaKind;
    contentType: string;
    size: number;
    sha256: string;
    uploadedAt: string;
    packaging: MediaObjectView['packageStatus'];
  };
}

interface Received {
  size: number;
  sha256: string;
}

const uploadJson = (
  accessoryId: string,
  activityId: string,
  o: MediaObjectView,
): UploadResult['body'] => ({
  accessoryId,
  activityId,
  kind: o.kind,
  contentType: o.contentType,
  size: o.size,
  sha256: o.sha256,
  uploadedAt: o.uploadedAt.toISOString(),
  packaging: o.packageStatus,
});

const tooLarge = (kind: MediaKind, limit: number) =>
  new AppError('PAYLOAD_TOO_LARGE', `the ${kind} exceeds ${limit} bytes`, { limit });

const finishedConflict = (kind: MediaKind) =>
  conflict(`the activity is finished: its ${kind} can no longer change`);

/** What uploads work with. */
export interface MediaUploadsOptions {
  db: Database;
  store: MediaStore;
  lookup: MediaLookup;
  cleanup: MediaCleanup;
  limits: Pick<MediaConfig, 'maxMp4Bytes' | 'maxImageBytes'>;
  tmpDir: string;
  /** False when this instance has no ffmpeg: MP4 uploads are kept but marked not packaged. */
  packaging: boolean;
  /** Announces the clip of a finished activity that needs no packaging (no ffmpeg). */
  readiness: MediaReadiness;
  /** Called with each committed MP4 upload queued for packaging. */
  onMp4: (upload: UploadRef) => void;
}

/**
 * Ingest of an activity's JPG or MP4: the body is streamed to a temporary file (never held in
 * memory) while its size is limited, its first bytes checked and its SHA-256 computed, then moved
 * to the store and committed. Media of a finished activity is immutable: replacing it is a 409,
 * except by the same bytes (a retried upload), which answers as the first did. With a client
 * digest that is decided before the body is read; without one, once it is.
 */
export class MediaUploads {
  constructor(private readonly options: MediaUploadsOptions) {}

  async upload(request: UploadRequest): Promise<UploadResult> {
    const { kind, accessoryId, activityId, sha256: expected } = request;
    const info = kindInfo[kind];
    const limit =
      kind === 'mp4' ? this.options.limits.maxMp4Bytes : this.options.limits.maxImageBytes;
    if (request.contentType !== info.contentType) {
      throw new AppError(
        'UNSUPPORTED_MEDIA_TYPE',
        `the ${kind} must be sent as ${info.contentType}`,
        { field: 'Content-Type' },
      );
    }
    if ((request.declaredBytes ?? 0) > limit) throw tooLarge(kind, limit);
    if (!isActivityRef(accessoryId, activityId)) throw notFound('activity');

    // Refuse early what cannot succeed, before reading the body.
    const { target } = await this.options.lookup.load(accessoryId, activityId, kind);
    if (!target) throw notFound('activity');
    if (!target.inProgress && target.object && expected !== undefined) {
      if (expected === target.object.sha256) {
        return { created: false, body: uploadJson(accessoryId, activityId, target.object) };
      }
      throw finishedConflict(kind);
    }

    const ref: UploadRef = { accessoryId, activityId, uploadId: randomUUID() };
    const intentId = await this.options.cleanup.intend(uploadPrefix(ref));
    let committed = false;
    try {
      await fs.mkdir(this.options.tmpDir, { recursive: true });
      const tmp = path.join(this.options.tmpDir, `upload-${ref.uploadId}`);
      let received: Received;
      try {
        received = await receive(request.body, tmp, limit, kind);
        if (expected !== undefined && expected !== received.sha256) {
          throw invalidArgument('Content-Digest', 'the body does not match the SHA-256 sent', {
            sha256: received.sha256,
          });
        }
        await this.options.store.put(`${uploadPrefix(ref)}${info.file}`, tmp, info.contentType);
      } finally {
        await fs.rm(tmp, { force: true });
      }
      const result = await this.#commit(kind, ref, received, intentId);
      committed = result.stored;
      this.options.lookup.forget(accessoryId, activityId);
      if (committed && result.result.body.packaging === 'queued') this.options.onMp4(ref);
      return result.result;
    } finally {
      // Not committed (the upload failed, or the same bytes were there): the collector has it now.
      if (!committed) await this.options.cleanup.abandon(intentId);
    }
  }

  async #commit(
    kind: MediaKind,
    ref: UploadRef,
    received: Received,
    intentId: string,
  ): Promise<{ stored: boolean; result: UploadResult }> {
    const { accessoryId, activityId } = ref;
    const client = await this.options.db.pool.connect();
    try {
      await client.query('BEGIN');
      // The accessory's row lock (as ingest takes it) orders this against finishing the
      // activity, the activity's against other uploads.
      await client.query('SELECT 1 FROM accessories WHERE id = $1::uuid FOR UPDATE', [accessoryId]);
      const activity = await client.query<{ end_time: Date | null }>(
        `SELECT end_time FROM activities WHERE accessory_id = $1::uuid AND activity_id = $2 FOR UPDATE`,
        [accessoryId, activityId],
      );
      if (activity.rowCount === 0) throw notFound('activity');
      const existing = await client.query<MediaRow>(
        `SELECT * FROM media_objects WHERE accessory_id = $1 AND activity_id = $2 AND kind = $3`,
        [accessoryId, activityId, kind],
      );
      const old = existing.rows[0] && view(existing.rows[0]);
      if (activity.rows[0]!.end_time !== null && old) {
        await client.query('ROLLBACK');
        if (old.sha256 === received.sha256) {
          return {
            stored: false,
            result: { created: false, body: uploadJson(accessoryId, activityId, old) },
          };
        }
        throw finishedConflict(kind);
      }
      const { rows } = await client.query<MediaRow>(
        `INSERT INTO media_objects (accessory_id, activity_id, kind, upload_id, content_type, size, sha256,
                                    uploaded_at, package_status, package_error)
         VALUES ($1, $2, $3, $4, $5, $6, $7, now(), $8, $9)
         ON CONFLICT (accessory_id, activity_id, kind) DO UPDATE
           SET upload_id = EXCLUDED.upload_id, content_type = EXCLUDED.content_type,
               size = EXCLUDED.size, sha256 = EXCLUDED.sha256, uploaded_at = EXCLUDED.uploaded_at,
               package_status = EXCLUDED.package_status, package_files = NULL,
               package_error = EXCLUDED.package_error, package_attempts = 0, package_started_at = NULL
         RETURNING *`,
        [
          accessoryId,
          activityId,
          kind,
          ref.uploadId,
          kindInfo[kind].contentType,
          received.size,
          received.sha256,
          ...(kind !== 'mp4'
            ? [null, null]
            : this.options.packaging
              ? ['queued', null]
              : ['failed', NO_FFMPEG]),
        ],
      );
      await this.options.cleanup.keep(client, intentId);
      const events = kind === 'mp4' ? await this.options.readiness.record(client, ref) : [];
      await client.query('COMMIT');
      this.options.readiness.committed(events);
      return {
        stored: true,
        result: { created: !old, body: uploadJson(accessoryId, activityId, view(rows[0]!)) },
      };
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }
}

/** Streams a body into `file`, checking its size and first bytes, hashing as it goes. */
async function receive(
  body: Readable,
  file: string,
  limit: number,
  kind: MediaKind,
): Promise<Received> {
  const hash = createHash('sha256');
  let size = 0;
  let head: Buffer | undefined = Buffer.alloc(0);
  const checkHead = () => {
    if (head && !kindInfo[kind].magic(head)) {
      throw invalidArgument('body', `the body is not ${kindInfo[kind].describe}`);
    }
    head = undefined;
  };
  const meter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      size += chunk.length;
      if (size > limit) return callback(tooLarge(kind, limit));
      try {
        if (head) {
          head = Buffer.concat([head, chunk.subarray(0, 16)]);
          if (head.length >= 16) checkHead();
        }
      } catch (err) {
        return callback(err as Error);
      }
      hash.update(chunk);
      callback(null, chunk);
    },
    flush(callback) {
      try {
        if (size === 0) throw invalidArgument('body', `the ${kind} is empty`);
        checkHead();
        callback();
      } catch (err) {
        callback(err as Error);
      }
    },
  });
  try {
    await pipeline(body, meter, createWriteStream(file, { flags: 'wx' }));
  } catch (err) {
    if (err instanceof AppError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    if (body.destroyed || code === 'ERR_STREAM_PREMATURE_CLOSE' || code === 'ECONNRESET') {
      // The client went away mid-upload: nobody to answer, nothing to log as a server fault.
      throw invalidArgument('body', 'the upload was interrupted');
    }
    throw err;
  }
  return { size, sha256: hash.digest('hex') };
}
