import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { ServerResponse } from 'node:http';
import { PassThrough, type Readable } from 'node:stream';
import { activityIdFromDate, retentionFloor } from '../activity-ids.ts';
import type { MediaConfig } from '../config.ts';
import { AppError, invalidArgument, notFound } from '../errors.ts';
import { parseTimestamp } from '../ids.ts';
import type { Logger } from '../logger.ts';
import type { Database } from '../storage/database.ts';
import { kindInfo, uploadPrefix, type UploadRef } from './model.ts';
import { NO_FFMPEG } from './ffmpeg.ts';
import type { MediaSigner, TimeRange } from './signing.ts';
import { ObjectMissing, type MediaStore } from './store.ts';

/** Seconds a client should wait before asking again when every export slot is taken. */
export const EXPORT_RETRY_AFTER_S = 5;

/** An export whose client has read nothing for this long is cut (its ffmpeg blocks meanwhile). */
export const EXPORT_IDLE_TIMEOUT_MS = 60_000;

/** One clip of an export: an activity's MP4 upload, with its size. */
export type ExportClip = UploadRef & { size: number };

/** What one export would join: the accessory's account (whose slots it takes) and the clips. */
export interface ExportPlan {
  accountId: string;
  clips: ExportClip[];
  /** The sum of the clips' sizes: what an export joins, and copies first with S3. */
  bytes: number;
}

/** Who asks: the holder of a signed export URL (already verified), or an account's token. */
export type ExportAccess = { signed: true } | { accountId: string };

/** Why an export was refused (`clipgate_export_refusals_total{reason}`). */
export type ExportRefusal =
  'busy' | 'account_busy' | 'url_rate_limited' | 'too_large' | 'no_ffmpeg';

/** Why an export ended before its last byte (`clipgate_export_cuts_total{reason}`). */
export type ExportCut = 'slow_reader' | 'idle' | 'deadline' | 'failed' | 'shutdown';

/** Where exports report what they refuse, cut and run (the metrics). */
export interface ExportObserver {
  refused(reason: ExportRefusal): void;
  cut(reason: ExportCut): void;
  /** The slots in use changed by `change` (+1, -1). */
  slots(change: number): void;
}

const unobserved: ExportObserver = { refused() {}, cut() {}, slots() {} };

const unavailable = (message: string) =>
  new AppError(
    'UNAVAILABLE',
    message,
    { retryAfterSeconds: EXPORT_RETRY_AFTER_S },
    { 'Retry-After': String(EXPORT_RETRY_AFTER_S) },
  );

/** A running export: its account, and what stops it (the deadline, shutdown, a slow reader). */
interface Running {
  accountId: string;
  stop: AbortController;
}

/** What exports work with. */
export interface MediaExportsOptions {
  db: Database;
  store: MediaStore;
  signer: MediaSigner;
  config: MediaConfig['export'];
  ffmpeg: string | undefined;
  tmpDir: string;
  logger: Logger;
  observer?: ExportObserver;
}

/**
 * Clip export: the MP4s of an accessory's activities that overlap a time range, joined into one
 * MP4 by ffmpeg's concat demuxer without re-encoding (`-c copy`), whole clips in start order, and
 * streamed to the client as ffmpeg writes it: a fragmented MP4, whose header comes first and
 * holds no sample index (each fragment carries its own), so nothing is rewritten at the end.
 *
 * Each instance runs at most `EXPORT_CONCURRENCY` exports at once, and one account's at most
 * `EXPORT_CONCURRENCY_PER_ACCOUNT` of them (its token's and its signed URLs' alike); one more is
 * refused (503, or 429 for the account's share, with `Retry-After`) rather than queued, since its
 * client is waiting on the line. An export joins at most `EXPORT_MAX_BYTES` of clips (400 naming
 * `end` above); with the S3 store they are copied to the temporary directory first (ffmpeg seeks
 * in them). A slot is held for at most `EXPORT_TIMEOUT_S`, copies and ffmpeg included, and a
 * client that reads slower than `EXPORT_MIN_READ_BYTES_PER_S` while the export waits on it is
 * cut ({@link watch}), so that no client holds a slot for long by reading slowly.
 */
export class MediaExports {
  readonly #running = new Map<Readable, Running>();
  /** Slots held per account. */
  readonly #held = new Map<string, number>();

  private readonly options: Required<MediaExportsOptions>;

  constructor(options: MediaExportsOptions) {
    this.options = { ...options, observer: options.observer ?? unobserved };
  }

  /** Counts a refusal made outside (the per-URL rate limit of src/http/routes/media.ts). */
  refused(reason: ExportRefusal): void {
    this.options.observer.refused(reason);
  }

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
    if (ms > this.options.config.maxSeconds * 1000) {
      throw invalidArgument(
        'end',
        `an export covers at most ${this.options.config.maxSeconds} seconds (EXPORT_MAX_SECONDS)`,
        { max: this.options.config.maxSeconds },
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
  async clips(accessoryId: string, range: TimeRange, access: ExportAccess): Promise<ExportPlan> {
    const { rows: owners } = await this.options.db.pool.query<{
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
    const { rows } = await this.options.db.pool.query<{
      activity_id: string;
      upload_id: string;
      size: string;
    }>(
      `SELECT a.activity_id, m.upload_id, m.size
         FROM activities a
         JOIN media_objects m
           ON m.accessory_id = a.accessory_id AND m.activity_id = a.activity_id AND m.kind = 'mp4'
        WHERE a.accessory_id = $1::uuid AND a.activity_id >= $2
          AND a.start_time < $4 AND (a.end_time IS NULL OR a.end_time > $3)
          AND (m.package_status IS DISTINCT FROM 'failed' OR m.package_error = $5)
        ORDER BY a.start_time, a.activity_id`,
      [accessoryId, retentionFloor(owner.retention_days), range.start, range.end, NO_FFMPEG],
    );
    const clips = rows.map((r) => ({
      accessoryId,
      activityId: r.activity_id,
      uploadId: r.upload_id,
      size: Number(r.size),
    }));
    return {
      accountId: owner.account_id,
      clips,
      bytes: clips.reduce((sum, c) => sum + c.size, 0),
    };
  }

  /**
   * 400 (naming `end`) when the clips add up to more than EXPORT_MAX_BYTES: the range is too
   * big for one export whatever the load, so the client should ask for a shorter one.
   */
  checkSize(plan: ExportPlan): void {
    if (plan.bytes <= this.options.config.maxBytes) return;
    this.options.observer.refused('too_large');
    throw invalidArgument(
      'end',
      `the clips of this range add up to ${plan.bytes} bytes, more than one export joins (EXPORT_MAX_BYTES, ${this.options.config.maxBytes}); ask for a shorter range`,
      { limit: 'EXPORT_MAX_BYTES', max: this.options.config.maxBytes, measured: plan.bytes },
    );
  }

  /**
   * `Accessory.exportUrl`: the signed URL of the export, or null when no clip overlaps now; 400
   * as the export itself would answer for a range too long or too big.
   */
  async url(accessoryId: string, range: TimeRange, accountId: string): Promise<string | null> {
    const plan = await this.clips(accessoryId, this.checkRange(range), { accountId });
    if (plan.clips.length === 0) return null;
    this.checkSize(plan);
    return this.options.signer.exportUrl(accessoryId, range);
  }

  /** The name a browser saves an export under. */
  static filename(accessoryId: string, range: TimeRange): string {
    return `export-${accessoryId}-${activityIdFromDate(range.start)}-${activityIdFromDate(range.end)}.mp4`;
  }

  /**
   * Starts joining the clips and resolves with the MP4 as a stream once ffmpeg has written its
   * first bytes. Until then failures are thrown: 429 when the account holds its share of the
   * slots, 503 when no slot is free (or the export did not start before its deadline), 400 when
   * the clips are too big, 404 when none of the clips is left in the store, and ffmpeg's own
   * failure (a 500). After that, a failure destroys the stream with an error, so that the client
   * sees a broken download rather than a short one. Destroying the stream (the client went away,
   * a cut) stops ffmpeg; the slot and the temporary files are freed when the stream closes.
   */
  async open(plan: ExportPlan): Promise<Readable> {
    if (!this.options.ffmpeg) {
      this.options.observer.refused('no_ffmpeg');
      throw unavailable('this instance has no ffmpeg to export clips with');
    }
    this.checkSize(plan);
    const { accountId } = plan;
    if (this.#running.size >= this.options.config.concurrency) {
      this.options.observer.refused('busy');
      throw unavailable('every export slot of this instance is busy; try again shortly');
    }
    const held = this.#held.get(accountId) ?? 0;
    if (held >= this.options.config.perAccount) {
      this.options.observer.refused('account_busy');
      throw new AppError(
        'RATE_LIMITED',
        `this account already runs ${held} export${held === 1 ? '' : 's'} on this instance, as many as one account may (EXPORT_CONCURRENCY_PER_ACCOUNT); try again once ${held === 1 ? 'it has' : 'one has'} ended`,
        {
          retryAfterSeconds: EXPORT_RETRY_AFTER_S,
          limit: 'EXPORT_CONCURRENCY_PER_ACCOUNT',
          max: this.options.config.perAccount,
        },
        { 'Retry-After': String(EXPORT_RETRY_AFTER_S) },
      );
    }
    const body = new PassThrough();
    // Its reader (src/http/routes/media.ts) cuts the response on an error; until then none listens.
    body.on('error', () => {});
    const run: Running = { accountId, stop: new AbortController() };
    const { signal } = run.stop;
    this.#running.set(body, run);
    this.#held.set(accountId, held + 1);
    this.options.observer.slots(1);
    const deadline = setTimeout(
      () =>
        this.#cut(
          body,
          'deadline',
          `it ran for EXPORT_TIMEOUT_S (${this.options.config.timeoutS} s)`,
        ),
      this.options.config.timeoutS * 1000,
    );
    const work = path.join(this.options.tmpDir, `export-${randomUUID()}`);
    const copies: { path: string; release(): Promise<void> }[] = [];
    let stop = () => {};
    let cleaned = false;
    const cleanup = () => {
      if (cleaned) return;
      cleaned = true;
      clearTimeout(deadline);
      stop();
      this.#running.delete(body);
      const left = (this.#held.get(accountId) ?? 1) - 1;
      if (left > 0) this.#held.set(accountId, left);
      else this.#held.delete(accountId);
      this.options.observer.slots(-1);
      void Promise.all(copies.map((c) => c.release()))
        .then(() => fs.rm(work, { recursive: true, force: true }))
        .catch((err: unknown) => this.options.logger.warn({ err, work }, 'export cleanup failed'));
    };
    const stopped = () => {
      if (signal.aborted) throw signal.reason;
    };
    try {
      await fs.mkdir(work, { recursive: true });
      for (const clip of plan.clips) {
        try {
          copies.push(
            await this.options.store.localCopy(
              `${uploadPrefix(clip)}${kindInfo.mp4.file}`,
              work,
              signal,
            ),
          );
        } catch (err) {
          // Deleted since the lookup (past retention, replaced long ago): exported without it.
          if (!(err instanceof ObjectMissing)) throw err;
        }
        stopped();
      }
      if (copies.length === 0) throw notFound('clip');
      const list = path.join(work, 'clips.txt');
      await fs.writeFile(
        list,
        copies.map((c) => `file '${c.path.replace(/'/g, "'\\''")}'\n`).join(''),
      );
      stopped();
      const ffmpeg = this.#ffmpeg(list);
      stop = ffmpeg.kill;
      // The body ends only once ffmpeg has exited well: a failure must not look like a short MP4.
      ffmpeg.out.pipe(body, { end: false });
      const started = await new Promise<boolean>((resolve) => {
        ffmpeg.out.once('data', () => resolve(true));
        void ffmpeg.failure.then(() => resolve(false));
        signal.addEventListener('abort', () => resolve(false), { once: true });
      });
      stopped();
      if (!started) {
        throw new Error(`export failed: ${(await ffmpeg.failure) ?? 'ffmpeg wrote nothing'}`);
      }
      void ffmpeg.done.then((failure) => {
        if (body.destroyed) return;
        if (failure === undefined) return void body.end();
        this.options.logger.warn(
          { failure, clips: copies.length },
          'export failed while streaming',
        );
        this.#cut(body, 'failed', failure);
      });
    } catch (err) {
      body.destroy();
      cleanup();
      // Stopped (deadline, shutdown) while copying or starting: that is the answer.
      if (signal.aborted) throw signal.reason;
      throw err;
    }
    body.once('close', cleanup);
    return body;
  }

  /**
   * Watches the response an export streams into (`body` already piped to `res`): a client that
   * reads nothing for EXPORT_IDLE_TIMEOUT_MS, or, while the export waits on it (the response's
   * buffer full), takes less than EXPORT_MIN_READ_BYTES_PER_S over a window of
   * EXPORT_READ_WINDOW_S, is cut; ffmpeg stops and the slot is freed. A client kept waiting by
   * ffmpeg (a slow disk, a busy machine) is not: the response then has nothing to send.
   */
  watch(body: Readable, res: ServerResponse): void {
    if (body.destroyed) return;
    res.setTimeout(EXPORT_IDLE_TIMEOUT_MS, () => {
      this.#cut(body, 'idle', `the client read nothing for ${EXPORT_IDLE_TIMEOUT_MS / 1000} s`);
      res.destroy(); // also once ffmpeg is done and the last bytes wait in the response
    });
    const { minReadBytesPerS, readWindowS } = this.options.config;
    if (minReadBytesPerS === 0) return;
    let taken = 0;
    body.on('data', (chunk: Buffer) => (taken += chunk.length));
    const timer = setInterval(() => {
      const waiting = res.writableNeedDrain || body.readableLength > 0;
      if (waiting && taken < minReadBytesPerS * readWindowS) {
        this.#cut(
          body,
          'slow_reader',
          `the client read ${taken} bytes in ${readWindowS} s, less than EXPORT_MIN_READ_BYTES_PER_S (${minReadBytesPerS}) allows`,
        );
      }
      taken = 0;
    }, readWindowS * 1000);
    body.once('close', () => clearInterval(timer));
  }

  /** Ends a running export before its last byte: its client sees a broken download. */
  #cut(body: Readable, reason: ExportCut, message: string): void {
    const run = this.#running.get(body);
    if (!run || run.stop.signal.aborted || body.destroyed) return;
    this.options.observer.cut(reason);
    if (reason !== 'failed') {
      this.options.logger.info({ reason, accountId: run.accountId, message }, 'export cut');
    }
    // Before the first bytes this is the answer; after them the client sees the cut.
    run.stop.abort(
      unavailable(
        reason === 'shutdown'
          ? 'the export was cancelled (shutdown)'
          : `the export was stopped before its first bytes: ${message}`,
      ),
    );
    body.destroy(new Error(message));
  }

  /**
   * ffmpeg joining the clips of a concat list into a fragmented MP4 on its stdout. `failure`
   * resolves when it exits (undefined when it exited well); `done` once its output is read, too.
   */
  #ffmpeg(list: string) {
    const child = spawn(
      this.options.ffmpeg!,
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
    for (const body of [...this.#running.keys()]) {
      this.#cut(body, 'shutdown', 'the service is shutting down');
    }
  }
}

const lastLines = (text: string) => text.trim().split('\n').slice(-3).join(' | ');
