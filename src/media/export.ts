import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import { activityIdFromDate, retentionFloor } from '../activities/ids.ts';
import type { MediaConfig } from '../config.ts';
import { AppError, invalidArgument, notFound } from '../errors.ts';
import { parseTimestamp } from '../ids.ts';
import type { Logger } from '../logger.ts';
import type { Database } from '../storage/database.ts';
import { kindInfo, uploadPrefix, type UploadRef } from './model.ts';
import { NO_FFMPEG } from './packager.ts';
import type { MediaSigner, TimeRange } from './signing.ts';
import { ObjectMissing, type MediaStore } from './store.ts';

/** Seconds a client should wait before asking again when every export slot is taken. */
export const EXPORT_RETRY_AFTER_S = 5;

/** An export whose client has read nothing for this long is cut (its ffmpeg blocks meanwhile). */
export const EXPORT_IDLE_TIMEOUT_MS = 60_000;

/** One clip of an export: an activity's MP4 upload. */
export type ExportClip = UploadRef;

/** Who asks: the holder of a signed export URL (already verified), or an account's token. */
export type ExportAccess = { signed: true } | { accountId: string };

const unavailable = (message: string) =>
  new AppError(
    'UNAVAILABLE',
    message,
    { retryAfterSeconds: EXPORT_RETRY_AFTER_S },
    { 'Retry-After': String(EXPORT_RETRY_AFTER_S) },
  );

/**
 * Clip export: the MP4s of an accessory's activities that overlap a time range, joined into one
 * MP4 by ffmpeg's concat demuxer without re-encoding (`-c copy`), whole clips in start order, and
 * streamed to the client as ffmpeg writes it: a fragmented MP4, whose header comes first and
 * holds no sample index (each fragment carries its own), so nothing is rewritten at the end.
 *
 * Each instance runs at most `EXPORT_CONCURRENCY` exports at once; one more is refused (503
 * with `Retry-After`) rather than queued, since its client is waiting on the line. With the S3
 * store the clips are copied to the temporary directory first (ffmpeg seeks in them).
 */
export class MediaExports {
  readonly #running = new Set<PassThrough>();

  constructor(
    private readonly db: Database,
    private readonly store: MediaStore,
    private readonly signer: MediaSigner,
    private readonly config: MediaConfig['export'],
    private readonly ffmpeg: string | undefined,
    private readonly tmpDir: string,
    private readonly logger: Logger,
  ) {}

  /** The range of the `start` and `end` query parameters; 400 naming the field at fault. */
  parseRange(query: URLSearchParams): TimeRange {
    const instant = (field: 'start' | 'end') => {
      const values = query.getAll(field);
      if (values.length === 0) throw invalidArgument(field, `${field} is required`);
      if (values.length > 1) throw invalidArgument(field, `${field} must be given once`);
      const date = parseTimestamp(values[0]);
      if (!date) {
        throw invalidArgument(field, `${field} must be an ISO 8601 timestamp with a zone`);
      }
      return date;
    };
    return this.checkRange({ start: instant('start'), end: instant('end') });
  }

  /** 400 (naming `end`) unless the range is non-empty and at most EXPORT_MAX_SECONDS long. */
  checkRange(range: TimeRange): TimeRange {
    const ms = range.end.getTime() - range.start.getTime();
    if (ms <= 0) throw invalidArgument('end', 'end must be after start');
    if (ms > this.config.maxSeconds * 1000) {
      throw invalidArgument(
        'end',
        `an export covers at most ${this.config.maxSeconds} seconds (EXPORT_MAX_SECONDS)`,
        { max: this.config.maxSeconds },
      );
    }
    return range;
  }

  /**
   * The clips with an MP4 of the accessory's activities that overlap `[start, end)`, oldest
   * start first: an activity overlaps when it started before `end` and ended after `start` (one
   * in progress has not ended). Activities past their account's retention are left out, as if
   * already purged, and so are clips that ffmpeg failed to package: it cannot join them either
   * (those left unpackaged by an instance without ffmpeg stay in). 404 for an unknown accessory,
   * or another account's.
   */
  async clips(accessoryId: string, range: TimeRange, access: ExportAccess): Promise<ExportClip[]> {
    const { rows: owners } = await this.db.pool.query<{
      account_id: string;
      retention_days: number;
    }>(
      `SELECT x.account_id, c.retention_days
         FROM accessories x JOIN accounts c ON c.id = x.account_id
        WHERE x.id = $1::uuid`,
      [accessoryId],
    );
    const owner = owners[0];
    if (!owner || ('accountId' in access && owner.account_id !== access.accountId)) {
      throw notFound('accessory');
    }
    const { rows } = await this.db.pool.query<{ activity_id: string; upload_id: string }>(
      `SELECT a.activity_id, m.upload_id
         FROM activities a
         JOIN media_objects m
           ON m.accessory_id = a.accessory_id AND m.activity_id = a.activity_id AND m.kind = 'mp4'
        WHERE a.accessory_id = $1::uuid AND a.activity_id >= $2
          AND a.start_time < $4 AND (a.end_time IS NULL OR a.end_time > $3)
          AND (m.package_status IS DISTINCT FROM 'failed' OR m.package_error = $5)
        ORDER BY a.start_time, a.activity_id`,
      [accessoryId, retentionFloor(owner.retention_days), range.start, range.end, NO_FFMPEG],
    );
    return rows.map((r) => ({ accessoryId, activityId: r.activity_id, uploadId: r.upload_id }));
  }

  /** `Accessory.exportUrl`: the signed URL of the export, or null when no clip overlaps now. */
  async url(accessoryId: string, range: TimeRange, accountId: string): Promise<string | null> {
    const clips = await this.clips(accessoryId, this.checkRange(range), { accountId });
    return clips.length > 0 ? this.signer.exportUrl(accessoryId, range) : null;
  }

  /** The name a browser saves an export under. */
  static filename(accessoryId: string, range: TimeRange): string {
    return `export-${accessoryId}-${activityIdFromDate(range.start)}-${activityIdFromDate(range.end)}.mp4`;
  }

  /**
   * Starts joining the clips and resolves with the MP4 as a stream once ffmpeg has written its
   * first bytes. Until then failures are thrown: 503 when no export slot is free, 404 when none
   * of the clips is left in the store, and ffmpeg's own failure (a 500). After that, a failure
   * destroys the stream with an error, so that the client sees a broken download rather than a
   * short one. Destroying the stream (the client went away) stops ffmpeg; the slot and the
   * temporary files are freed when the stream closes.
   */
  async open(clips: ExportClip[]): Promise<Readable> {
    if (!this.ffmpeg) throw unavailable('this instance has no ffmpeg to export clips with');
    if (this.#running.size >= this.config.concurrency) {
      throw unavailable('every export slot of this instance is busy; try again shortly');
    }
    const body = new PassThrough();
    this.#running.add(body);
    const work = path.join(this.tmpDir, `export-${randomUUID()}`);
    const copies: { path: string; release(): Promise<void> }[] = [];
    let stop = () => {};
    const cleanup = () => {
      stop();
      this.#running.delete(body);
      void Promise.all(copies.map((c) => c.release()))
        .then(() => fs.rm(work, { recursive: true, force: true }))
        .catch((err: unknown) => this.logger.warn({ err, work }, 'export cleanup failed'));
    };
    const cancelled = () => {
      if (body.destroyed) throw unavailable('the export was cancelled (shutdown)');
    };
    try {
      await fs.mkdir(work, { recursive: true });
      for (const clip of clips) {
        try {
          copies.push(
            await this.store.localCopy(`${uploadPrefix(clip)}${kindInfo.mp4.file}`, work),
          );
        } catch (err) {
          // Deleted since the lookup (past retention, replaced long ago): exported without it.
          if (!(err instanceof ObjectMissing)) throw err;
        }
        cancelled();
      }
      if (copies.length === 0) throw notFound('clip');
      const list = path.join(work, 'clips.txt');
      await fs.writeFile(
        list,
        copies.map((c) => `file '${c.path.replace(/'/g, "'\\''")}'\n`).join(''),
      );
      const ffmpeg = this.#ffmpeg(list);
      stop = ffmpeg.kill;
      // The body ends only once ffmpeg has exited well: a failure must not look like a short MP4.
      ffmpeg.out.pipe(body, { end: false });
      const started = await new Promise<boolean>((resolve) => {
        ffmpeg.out.once('data', () => resolve(true));
        void ffmpeg.failure.then(() => resolve(false));
      });
      if (!started) {
        throw new Error(`export failed: ${(await ffmpeg.failure) ?? 'ffmpeg wrote nothing'}`);
      }
      cancelled();
      void ffmpeg.done.then((failure) => {
        if (body.destroyed) return;
        if (failure === undefined) return void body.end();
        this.logger.warn({ failure, clips: copies.length }, 'export failed while streaming');
        body.destroy(new Error(failure));
      });
    } catch (err) {
      body.destroy();
      cleanup();
      throw err;
    }
    body.once('close', cleanup);
    return body;
  }

  /**
   * ffmpeg joining the clips of a concat list into a fragmented MP4 on its stdout. `failure`
   * resolves when it exits (undefined when it exited well); `done` once its output is read, too.
   */
  #ffmpeg(list: string) {
    const child = spawn(
      this.ffmpeg!,
      [
        // -xerror: a clip it cannot read ends the run with an error, not with a short MP4.
        ...['-nostdin', '-hide_banner', '-loglevel', 'error', '-xerror'],
        ...['-f', 'concat', '-safe', '0', '-i', list],
        ...['-map', '0:v:0', '-map', '0:a:0?', '-c', 'copy'],
        ...['-f', 'mp4', '-movflags', 'frag_keyframe+empty_moov+default_base_moof', 'pipe:1'],
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (d: string) => (stderr = (stderr + d).slice(-4000)));
    const failure = new Promise<string | undefined>((resolve) => {
      child.once('error', (err) => resolve(err.message));
      child.once('close', (code, signal) => {
        const why = signal ? `ffmpeg was killed (${signal})` : `ffmpeg exited with ${code}`;
        resolve(code === 0 ? undefined : `${why}: ${lastLines(stderr)}`);
      });
    });
    const out = child.stdout;
    const read = new Promise((resolve) => out.once('end', resolve).once('close', resolve));
    return {
      out,
      failure,
      done: read.then(() => failure),
      kill: () => {
        child.kill('SIGKILL');
        out.destroy();
      },
    };
  }

  /** Cuts every running export (shutdown): their clients see a broken download, and can retry. */
  abortAll(): void {
    for (const body of this.#running) body.destroy(new Error('the service is shutting down'));
  }
}

const lastLines = (text: string) => text.trim().split('\n').slice(-3).join(' | ');
