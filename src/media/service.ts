import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { isActivityId, retentionFloor } from '../activities/ids.ts';
import type { Config } from '../config.ts';
import { TtlCache } from '../cache.ts';
import { AppError, conflict, invalidArgument, notFound } from '../errors.ts';
import type { EventSignal } from '../events/outbox.ts';
import type { Logger } from '../logger.ts';
import type { Database } from '../storage/database.ts';
import { INSTALL_HINT } from './ffmpeg.ts';
import { FsMediaStore } from './fs-store.ts';
import { NO_FFMPEG, Packager, uploadPrefix, type PackageManifest } from './packager.ts';
import { S3MediaStore } from './s3-store.ts';
import { MediaSigner, type MediaPresence, type MediaUrls } from './signing.ts';
import type { MediaStore } from './store.ts';

export const mediaKinds = ['image', 'mp4'] as const;
export type MediaKind = (typeof mediaKinds)[number];

/** Per kind: the accepted Content-Type, the stored file name, the magic-byte check. */
export const kindInfo: Record<
  MediaKind,
  { contentType: string; file: string; magic: (head: Buffer) => boolean; describe: string }
> = {
  image: {
    contentType: 'image/jpeg',
    file: 'image.jpg',
    magic: (h) => h.length >= 3 && h[0] === 0xff && h[1] === 0xd8 && h[2] === 0xff,
    describe: 'a JPEG (starting with FF D8 FF)',
  },
  mp4: {
    contentType: 'video/mp4',
    file: 'clip.mp4',
    // ISO base media: the first box is `ftyp`, its type at offset 4.
    magic: (h) => h.length >= 8 && h.subarray(4, 8).toString('latin1') === 'ftyp',
    describe: "an MP4 (an ISO base media file starting with an 'ftyp' box)",
  },
};

/** A media row as the routes need it. */
export interface MediaObjectView {
  kind: MediaKind;
  uploadId: string;
  contentType: string;
  size: number;
  sha256: string;
  uploadedAt: Date;
  packageStatus: 'queued' | 'running' | 'ready' | 'failed' | null;
  packageFiles: PackageManifest | null;
  packageError: string | null;
}

/** An activity as media reads see it: who owns it, whether it is finished, its media row. */
export interface MediaTarget {
  accessoryId: string;
  activityId: string;
  accountId: string;
  inProgress: boolean;
  object: MediaObjectView | null;
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

interface CachedTarget {
  retentionDays: number;
  /** null: no such activity. */
  target: MediaTarget | null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const HEX64 = /^[0-9a-f]{64}$/;

interface Row {
  kind: MediaKind;
  upload_id: string;
  content_type: string;
  size: string;
  sha256: string;
  uploaded_at: Date;
  package_status: MediaObjectView['packageStatus'];
  package_files: PackageManifest | null;
  package_error: string | null;
}

const view = (r: Row): MediaObjectView => ({
  kind: r.kind,
  uploadId: r.upload_id,
  contentType: r.content_type,
  size: Number(r.size),
  sha256: r.sha256,
  uploadedAt: r.uploaded_at,
  packageStatus: r.package_status,
  packageFiles: r.package_files,
  packageError: r.package_error,
});

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

/**
 * Media of activities: ingest (streamed uploads with limits, type and magic checks, SHA-256),
 * the store, packaging into HLS and DASH, signed URLs, and deleting what is no longer referenced.
 */
export class MediaService {
  readonly packager: Packager;
  readonly #tmpDir: string;
  #collecting: Promise<number> = Promise.resolve(0);
  #pendingPresence = new Map<string, Map<string, ((p: MediaPresence) => void)[]>>();
  #presenceTimer: NodeJS.Immediate | undefined;
  #unsubscribe: () => void = () => {};
  /**
   * Media reads look up the activity and its media row on every request (every segment of a
   * player); the answers are cached briefly per instance. Changes made here (uploads, packaging,
   * activity and account events) drop them at once; other instances' changes show within the TTL.
   */
  readonly #targets = new TtlCache<string, CachedTarget>(2_000, 20_000);
  readonly #loading = new Map<string, Promise<CachedTarget>>();

  constructor(
    private readonly db: Database,
    readonly store: MediaStore,
    readonly signer: MediaSigner,
    private readonly config: Config,
    private readonly logger: Logger,
  ) {
    this.#tmpDir = path.join(config.dataDir, 'tmp', 'media');
    this.packager = new Packager(db, store, config.media.packager, this.#tmpDir, logger, (job) =>
      this.#forget(job.accessoryId, job.activityId),
    );
  }

  static async create(db: Database, config: Config, logger: Logger): Promise<MediaService> {
    const store: MediaStore = config.media.s3
      ? new S3MediaStore(config.media.s3)
      : new FsMediaStore(path.join(config.dataDir, 'media'));
    const { signer, generated } = await MediaSigner.create({
      secret: config.media.urlSecret,
      ttlS: config.media.urlTtlS,
      baseUrl: config.publicBaseUrl,
      dataDir: config.dataDir,
    });
    if (generated !== undefined) {
      logger.warn(
        { file: path.join(config.dataDir, 'media-url-secret'), generated },
        'media URLs are signed with the secret stored in the data directory; set MEDIA_URL_SECRET when several instances serve media',
      );
    }
    logger.info({ store: store.kind }, 'media store');
    const { ffmpeg } = config.media.packager;
    if (ffmpeg) {
      logger.info({ ffmpeg }, 'packaging MP4 uploads to HLS and DASH');
    } else {
      logger.warn(`no ffmpeg: MP4 uploads are kept but not packaged to HLS/DASH; ${INSTALL_HINT}`);
    }
    return new MediaService(db, store, signer, config, logger);
  }

  /** Starts packaging (and picks up jobs left queued) and cleans on account deletions. */
  async start(signal: EventSignal): Promise<void> {
    await fs.mkdir(this.#tmpDir, { recursive: true });
    await removeStale(this.#tmpDir, 24 * 3600_000).catch((err: unknown) =>
      this.logger.warn({ err }, 'cleaning the media temporary directory failed'),
    );
    this.packager.start();
    // The rows went with the account's transaction (their trigger queued the objects): delete
    // the objects now rather than at the next sweep.
    this.#unsubscribe = signal.subscribe((events) => {
      for (const e of events) {
        const activityId = (e.eventData as { activityId?: unknown }).activityId;
        if (e.accessoryId && typeof activityId === 'string')
          this.#forget(e.accessoryId, activityId);
        if (e.eventType === 'account_deleted') {
          this.#targets.deleteWhere((t) => t.target?.accountId === e.accountId);
          this.collectGarbage().catch((err: unknown) =>
            this.logger.warn({ err }, 'deleting the media of a deleted account failed'),
          );
        }
      }
    });
  }

  async close(): Promise<void> {
    this.#unsubscribe();
    await this.packager.stop();
    await this.#collecting.catch(() => undefined);
    this.store.close();
  }

  // ---------------------------------------------------------------- ingest

  /**
   * Stores an activity's JPG or MP4 from the request body, streamed to a temporary file (never
   * held in memory) while its size is limited and its SHA-256 computed, then moved to the store.
   * Media of a finished activity is immutable: replacing it is a 409, except by the same bytes
   * (a retried upload), which answers as the first did. With a client digest that is decided
   * before the body is read; without one, once it is.
   */
  async upload(
    kind: MediaKind,
    accessoryId: string,
    activityId: string,
    req: IncomingMessage,
  ): Promise<UploadResult> {
    const info = kindInfo[kind];
    const limit = kind === 'mp4' ? this.config.media.maxMp4Bytes : this.config.media.maxImageBytes;
    const type = req.headers['content-type'];
    const mediaType = type?.split(';')[0]!.trim().toLowerCase();
    if (mediaType !== info.contentType) {
      throw new AppError(
        'UNSUPPORTED_MEDIA_TYPE',
        `the ${kind} must be sent as ${info.contentType}`,
        { field: 'Content-Type' },
      );
    }
    const declared = Number(req.headers['content-length'] ?? NaN);
    if (declared > limit) throw tooLarge(kind, limit);
    const expected = clientDigest(req);
    if (!UUID.test(accessoryId) || !isActivityId(activityId)) throw notFound('activity');

    // Refuse early what cannot succeed, before reading the body.
    const current = await this.#current(accessoryId, activityId, kind);
    if (!current.inProgress && current.object && expected !== undefined) {
      if (expected === current.object.sha256) {
        return { created: false, body: uploadJson(accessoryId, activityId, current.object) };
      }
      throw finishedConflict(kind);
    }

    const uploadId = randomUUID();
    const prefix = `${accessoryId}/${activityId}/${uploadId}/`;
    // An intent: if this process dies between writing the store and committing the row, the
    // collector deletes what was written (after a day, long past any upload).
    const intent = await this.db.pool.query<{ id: string }>(
      `INSERT INTO media_garbage (prefix, delete_after) VALUES ($1, now() + interval '1 day') RETURNING id`,
      [prefix],
    );
    const intentId = intent.rows[0]!.id;
    let committed = false;
    try {
      await fs.mkdir(this.#tmpDir, { recursive: true });
      const tmp = path.join(this.#tmpDir, `upload-${uploadId}`);
      let received: { size: number; sha256: string };
      try {
        received = await receive(req, tmp, limit, kind);
        if (expected !== undefined && expected !== received.sha256) {
          throw invalidArgument('Content-Digest', 'the body does not match the SHA-256 sent', {
            sha256: received.sha256,
          });
        }
        await this.store.put(`${prefix}${info.file}`, tmp, info.contentType);
      } finally {
        await fs.rm(tmp, { force: true });
      }
      const result = await this.#commit(
        kind,
        accessoryId,
        activityId,
        uploadId,
        received,
        intentId,
      );
      committed = result.stored;
      this.#forget(accessoryId, activityId);
      if (committed && result.result.body.packaging === 'queued') {
        this.packager.enqueue({ accessoryId, activityId, uploadId });
      }
      return result.result;
    } finally {
      if (!committed) {
        // Let the collector have it now (the upload failed, or the same bytes were there).
        await this.db.pool
          .query(`UPDATE media_garbage SET delete_after = now() WHERE id = $1`, [intentId])
          .then(() => {
            // Not awaited: the answer does not wait for the store.
            this.collectGarbage().catch((err: unknown) =>
              this.logger.warn({ err }, 'media cleanup failed'),
            );
          })
          .catch((err: unknown) => this.logger.warn({ err }, 'media cleanup failed'));
      }
    }
  }

  async #current(accessoryId: string, activityId: string, kind: MediaKind) {
    const { rows } = await this.db.pool.query<Row & { end_time: Date | null; found: true }>(
      `SELECT a.end_time, true AS found, m.*
         FROM activities a
         LEFT JOIN media_objects m
           ON m.accessory_id = a.accessory_id AND m.activity_id = a.activity_id AND m.kind = $3
        WHERE a.accessory_id = $1::uuid AND a.activity_id = $2`,
      [accessoryId, activityId, kind],
    );
    const row = rows[0];
    if (!row) throw notFound('activity');
    return { inProgress: row.end_time === null, object: row.upload_id ? view(row) : null };
  }

  async #commit(
    kind: MediaKind,
    accessoryId: string,
    activityId: string,
    uploadId: string,
    received: { size: number; sha256: string },
    intentId: string,
  ): Promise<{ stored: boolean; result: UploadResult }> {
    const client = await this.db.pool.connect();
    try {
      await client.query('BEGIN');
      // The activity row lock orders this against finishing the activity and other uploads.
      const activity = await client.query<{ end_time: Date | null }>(
        `SELECT end_time FROM activities WHERE accessory_id = $1::uuid AND activity_id = $2 FOR UPDATE`,
        [accessoryId, activityId],
      );
      if (activity.rowCount === 0) throw notFound('activity');
      const existing = await client.query<Row>(
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
      const { rows } = await client.query<Row>(
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
          uploadId,
          kindInfo[kind].contentType,
          received.size,
          received.sha256,
          ...(kind !== 'mp4'
            ? [null, null]
            : this.packager.available
              ? ['queued', null]
              : ['failed', NO_FFMPEG]),
        ],
      );
      await client.query('DELETE FROM media_garbage WHERE id = $1', [intentId]);
      await client.query('COMMIT');
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

  // ---------------------------------------------------------------- reads

  /**
   * The activity and its media row of one kind, if the activity exists and is within its
   * account's retention window; `accountId` (the bearer form) must own it. 404 otherwise.
   */
  async target(
    accessoryId: string,
    activityId: string,
    kind: MediaKind,
    accountId?: string,
  ): Promise<MediaTarget> {
    if (!UUID.test(accessoryId) || !isActivityId(activityId)) throw notFound('activity');
    const key = `${accessoryId}/${activityId}/${kind}`;
    let found = this.#targets.get(key);
    if (!found) {
      let pending = this.#loading.get(key);
      if (!pending) {
        pending = this.#loadTarget(accessoryId, activityId, kind).finally(() =>
          this.#loading.delete(key),
        );
        this.#loading.set(key, pending);
      }
      found = await pending;
    }
    if (
      !found.target ||
      (accountId !== undefined && found.target.accountId !== accountId) ||
      activityId < retentionFloor(found.retentionDays)
    ) {
      throw notFound('activity');
    }
    return found.target;
  }

  async #loadTarget(accessoryId: string, activityId: string, kind: MediaKind) {
    const { rows } = await this.db.pool.query<
      Row & { end_time: Date | null; account_id: string; retention_days: number }
    >(
      `SELECT a.end_time, x.account_id, c.retention_days, m.*
         FROM activities a
         JOIN accessories x ON x.id = a.accessory_id
         JOIN accounts c ON c.id = x.account_id
         LEFT JOIN media_objects m
           ON m.accessory_id = a.accessory_id AND m.activity_id = a.activity_id AND m.kind = $3
        WHERE a.accessory_id = $1::uuid AND a.activity_id = $2`,
      [accessoryId, activityId, kind],
    );
    const row = rows[0];
    const found: CachedTarget = row
      ? {
          retentionDays: row.retention_days,
          target: {
            accessoryId,
            activityId,
            accountId: row.account_id,
            inProgress: row.end_time === null,
            object: row.upload_id ? view(row) : null,
          },
        }
      : { retentionDays: 0, target: null };
    // What can no longer change (a finished activity's media, packaged or failed) is kept
    // longer; deletions elsewhere end with the objects gone, which reads notice (404).
    const settled =
      found.target &&
      !found.target.inProgress &&
      found.target.object &&
      (found.target.object.kind === 'image' ||
        found.target.object.packageStatus === 'ready' ||
        found.target.object.packageStatus === 'failed');
    this.#targets.set(`${accessoryId}/${activityId}/${kind}`, found, settled ? 30_000 : 2_000);
    return found;
  }

  /** Drops cached lookups of an activity (this instance changed it, or saw an event about it). */
  #forget(accessoryId: string, activityId: string): void {
    for (const kind of mediaKinds) this.#targets.delete(`${accessoryId}/${activityId}/${kind}`);
  }

  /** The signed URLs of several activities of one accessory (REST lists), in one query. */
  async urlsFor(
    accessoryId: string,
    activityIds: string[],
  ): Promise<Map<string, MediaUrls | null>> {
    const presence = await this.#presence(accessoryId, activityIds);
    return new Map(
      activityIds.map((id) => [id, this.signer.urls(accessoryId, id, presence.get(id)!)]),
    );
  }

  /**
   * The signed URLs of one activity. Calls made in the same turn of the event loop (GraphQL
   * resolving `media` on every activity of a page) are answered by one query per accessory.
   */
  urls(accessoryId: string, activityId: string): Promise<MediaUrls | null> {
    return new Promise<MediaPresence>((resolve) => {
      let byActivity = this.#pendingPresence.get(accessoryId);
      if (!byActivity) this.#pendingPresence.set(accessoryId, (byActivity = new Map()));
      const waiters = byActivity.get(activityId) ?? [];
      waiters.push(resolve);
      byActivity.set(activityId, waiters);
      if (!this.#presenceTimer) this.#presenceTimer = setImmediate(() => this.#flushPresence());
    }).then((p) => this.signer.urls(accessoryId, activityId, p));
  }

  #flushPresence(): void {
    const pending = this.#pendingPresence;
    this.#pendingPresence = new Map();
    this.#presenceTimer = undefined;
    for (const [accessoryId, byActivity] of pending) {
      const none: MediaPresence = { image: false, mp4: false, packaged: false };
      this.#presence(accessoryId, [...byActivity.keys()]).then(
        (found) => {
          for (const [id, waiters] of byActivity) for (const w of waiters) w(found.get(id) ?? none);
        },
        (err: unknown) => {
          this.logger.error({ err, accessoryId }, 'media lookup failed');
          for (const waiters of byActivity.values()) for (const w of waiters) w(none);
        },
      );
    }
  }

  async #presence(accessoryId: string, activityIds: string[]): Promise<Map<string, MediaPresence>> {
    const result = new Map<string, MediaPresence>(
      activityIds.map((id) => [id, { image: false, mp4: false, packaged: false }]),
    );
    if (activityIds.length === 0 || !UUID.test(accessoryId)) return result;
    const { rows } = await this.db.pool.query<{
      activity_id: string;
      kind: MediaKind;
      package_status: string | null;
    }>(
      `SELECT activity_id, kind, package_status FROM media_objects
        WHERE accessory_id = $1::uuid AND activity_id = ANY($2::text[])`,
      [accessoryId, activityIds],
    );
    for (const r of rows) {
      const p = result.get(r.activity_id)!;
      if (r.kind === 'image') p.image = true;
      if (r.kind === 'mp4') {
        p.mp4 = true;
        p.packaged = r.package_status === 'ready';
      }
    }
    return result;
  }

  // ---------------------------------------------------------------- deletion

  /**
   * Deletes the stored objects of every prefix in media_garbage whose time has come: media of
   * purged activities and deleted accounts (queued by the media_objects trigger in the same
   * transaction), replaced uploads, abandoned uploads. A batch is claimed by pushing its time
   * forward, so instances running this at once share the work, and a failed deletion is retried
   * later. Returns how many prefixes were cleared.
   */
  collectGarbage(): Promise<number> {
    // Runs one after the other: a call made during a run still sees what became due meanwhile.
    const run = this.#collecting.catch(() => 0).then(() => this.#collect());
    this.#collecting = run;
    return run;
  }

  async #collect(): Promise<number> {
    let cleared = 0;
    for (;;) {
      const { rows } = await this.db.pool.query<{ id: string; prefix: string }>(
        `UPDATE media_garbage SET delete_after = now() + interval '5 minutes'
          WHERE id IN (SELECT id FROM media_garbage WHERE delete_after <= now()
                        ORDER BY id LIMIT 100 FOR UPDATE SKIP LOCKED)
          RETURNING id, prefix`,
      );
      if (rows.length === 0) return cleared;
      const done: string[] = [];
      for (const { id, prefix } of rows) {
        try {
          await this.store.deletePrefix(prefix);
          done.push(id);
        } catch (err) {
          this.logger.warn({ err, prefix }, 'deleting media failed; retried later');
        }
      }
      await this.db.pool.query('DELETE FROM media_garbage WHERE id = ANY($1::bigint[])', [done]);
      cleared += done.length;
      if (done.length < rows.length || rows.length < 100) return cleared;
    }
  }

  /** The store key of a media file or a packaged file of an activity's media row. */
  static key(target: MediaTarget, file?: string): string {
    const o = target.object!;
    const prefix = uploadPrefix({ ...target, uploadId: o.uploadId });
    return file === undefined
      ? `${prefix}${kindInfo[o.kind].file}`
      : `${prefix}${o.packageFiles!.dir}/${file}`;
  }
}

/** Removes what a crashed process left in the temporary directory (older than `ageMs`). */
async function removeStale(dir: string, ageMs: number): Promise<void> {
  for (const name of await fs.readdir(dir)) {
    const file = path.join(dir, name);
    const stat = await fs.stat(file).catch(() => undefined);
    if (stat && Date.now() - stat.mtimeMs > ageMs)
      await fs.rm(file, { recursive: true, force: true });
  }
}

const tooLarge = (kind: MediaKind, limit: number) =>
  new AppError('PAYLOAD_TOO_LARGE', `the ${kind} exceeds ${limit} bytes`, { limit });

const finishedConflict = (kind: MediaKind) =>
  conflict(`the activity is finished: its ${kind} can no longer change`);

/**
 * The SHA-256 a client sent: RFC 9530 `Content-Digest` / `Repr-Digest` (`sha-256=:base64:`), or
 * `X-Checksum-SHA256` (hex or base64). Hex, or undefined when none was sent.
 */
function clientDigest(req: IncomingMessage): string | undefined {
  for (const name of ['content-digest', 'repr-digest']) {
    const header = req.headers[name];
    if (typeof header !== 'string') continue;
    const m = /(?:^|,)\s*sha-256\s*=\s*:([A-Za-z0-9+/]+={0,2}):/i.exec(header);
    const hex = m && Buffer.from(m[1]!, 'base64').toString('hex');
    if (!hex || !HEX64.test(hex)) {
      throw invalidArgument(name, `${name} must hold sha-256=:<base64 of 32 bytes>:`);
    }
    return hex;
  }
  const plain = req.headers['x-checksum-sha256'];
  if (typeof plain !== 'string') return undefined;
  const value = plain.trim();
  const hex = HEX64.test(value.toLowerCase())
    ? value.toLowerCase()
    : Buffer.from(value, 'base64').toString('hex');
  if (!HEX64.test(hex)) {
    throw invalidArgument('X-Checksum-SHA256', 'X-Checksum-SHA256 must be 32 bytes, hex or base64');
  }
  return hex;
}

/** Streams a request body into `file`, checking its size and first bytes, hashing as it goes. */
async function receive(
  req: IncomingMessage,
  file: string,
  limit: number,
  kind: MediaKind,
): Promise<{ size: number; sha256: string }> {
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
    await pipeline(req, meter, createWriteStream(file, { flags: 'wx' }));
  } catch (err) {
    if (err instanceof AppError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    if (req.destroyed || code === 'ERR_STREAM_PREMATURE_CLOSE' || code === 'ECONNRESET') {
      // The client went away mid-upload: nobody to answer, nothing to log as a server fault.
      throw invalidArgument('body', 'the upload was interrupted');
    }
    throw err;
  }
  return { size, sha256: hash.digest('hex') };
}
