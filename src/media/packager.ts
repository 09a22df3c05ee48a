import { spawn } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { MediaConfig } from '../config.ts';
import { claimDue } from '../jobs/lease.ts';
import type { Logger } from '../logger.ts';
import { inTransaction, type Database } from '../storage/database.ts';
import {
  contentTypeOf,
  uploadPrefix,
  type PackagedFile,
  type PackageManifest,
  type UploadRef,
} from './model.ts';
import type { MediaReadiness } from './ready.ts';
import { ObjectMissing, type MediaStore } from './store.ts';

/** One MP4 upload to package; the upload id makes a job for a replaced upload a no-op. */
type PackageJob = UploadRef;

const MAX_ATTEMPTS = 3;

const jobKey = (job: PackageJob) => `${job.accessoryId}/${job.activityId}/${job.uploadId}`;

/** ffmpeg failed on the input itself: retrying gives the same answer. */
class PackagingFailed extends Error {}

/**
 * Packages uploaded MP4s as HLS (fMP4 segments) and DASH without re-encoding (`-c copy`), one
 * ffmpeg process per clip writing both, in the background.
 *
 * The durable queue is the database: an upload sets `package_status = 'queued'`; a job is claimed
 * (`claimDue`) by moving it to `running`, so among several instances exactly one packages it, and
 * ends in `ready` or `failed`. `running` with `package_started_at` is a lease: after twice the
 * ffmpeg timeout (its instance died) the poll puts the job back in the queue, or fails it after
 * `MAX_ATTEMPTS`. In memory each instance keeps a bounded queue (`MEDIA_PACKAGER_QUEUE_MAX`) and
 * runs at most `MEDIA_PACKAGER_CONCURRENCY` ffmpeg processes. An upload that finds the memory
 * queue full stays queued in the database, and the poll picks it up, as it picks up jobs left by
 * a restart. The poll is the background job `media.package-poll` (src/background.ts): every
 * `MEDIA_PACKAGER_POLL_MS`, and whenever a slot frees up with nothing queued (`onSlotFree`).
 */
/** What the packager works with. */
export interface PackagerOptions {
  db: Database;
  store: MediaStore;
  config: PackagerConfig;
  tmpDir: string;
  logger: Logger;
  /** Announces a finished activity's clip once packaging settled (activity_media_ready). */
  readiness: MediaReadiness;
  /** Called when a job changed its row (claimed, ready, failed, requeued). */
  onChange: (job: PackageJob) => void;
}

/** The packager's settings, with the ffmpeg found when media started (undefined: none). */
export type PackagerConfig = Omit<MediaConfig['packager'], 'ffmpeg'> & {
  ffmpeg: string | undefined;
};

export class Packager {
  readonly #queue: PackageJob[] = [];
  readonly #known = new Set<string>();
  readonly #running = new Map<string, { kill(): void; done: Promise<void> }>();
  readonly #slotFree = new Set<() => void>();
  #stopping = false;
  /** Resolves when the queue and the running jobs are empty (tests and benchmarks). */
  #idleWaiters: (() => void)[] = [];

  constructor(private readonly options: PackagerOptions) {}

  /** False without ffmpeg: uploads are then marked failed and queued jobs left to others. */
  get available(): boolean {
    return this.options.config.ffmpeg !== undefined;
  }

  get stats(): { queued: number; running: number } {
    return { queued: this.#queue.length, running: this.#running.size };
  }

  /** Queues a job in memory; false when the queue is full (the poll picks it up later). */
  enqueue(job: PackageJob): boolean {
    if (this.#stopping || !this.available) return false;
    const key = jobKey(job);
    if (this.#known.has(key)) return true;
    if (this.#queue.length >= this.options.config.queueMax) {
      this.options.logger.warn(
        { ...job, queued: this.#queue.length },
        'packaging queue full; job waits',
      );
      return false;
    }
    this.#known.add(key);
    this.#queue.push(job);
    this.#pump();
    return true;
  }

  /** Calls `listener` whenever a job ended with nothing left queued here: time to poll. */
  onSlotFree(listener: () => void): () => void {
    this.#slotFree.add(listener);
    return () => this.#slotFree.delete(listener);
  }

  /** Stops taking jobs, kills running ffmpeg processes and puts their jobs back as queued. */
  async stop(): Promise<void> {
    this.#stopping = true;
    this.#queue.length = 0;
    for (const run of this.#running.values()) run.kill();
    await Promise.allSettled([...this.#running.values()].map((r) => r.done));
  }

  /** Resolves once nothing is queued or running in this instance. */
  idle(): Promise<void> {
    if (this.#queue.length === 0 && this.#running.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  /**
   * One round of the poll: requeues (or fails) the jobs whose lease ran out and takes `queued`
   * ones from the database into free places of the memory queue. Resolves with how many it took.
   */
  async poll(): Promise<number> {
    if (this.#stopping || !this.available) return 0;
    await this.#requeueStale();
    const free = this.options.config.queueMax - this.#queue.length;
    if (free <= 0) return 0;
    const jobs = await this.#jobs(`package_status = 'queued' ORDER BY uploaded_at LIMIT $1`, [
      free + this.#known.size,
    ]);
    let taken = 0;
    for (const job of jobs) {
      if (!this.#known.has(jobKey(job)) && this.enqueue(job)) taken++;
    }
    return taken;
  }

  #pump(): void {
    while (
      !this.#stopping &&
      this.#running.size < this.options.config.concurrency &&
      this.#queue.length
    ) {
      const job = this.#queue.shift()!;
      const key = jobKey(job);
      let kill = () => {};
      const done = this.#run(job, (k) => (kill = k))
        .catch((err: unknown) => this.options.logger.error({ err, ...job }, 'packaging failed'))
        .finally(() => {
          this.#running.delete(key);
          this.#known.delete(key);
          this.#pump();
          if (this.#queue.length === 0 && !this.#stopping) {
            for (const listener of this.#slotFree) listener();
          }
          if (this.#queue.length === 0 && this.#running.size === 0) {
            for (const resolve of this.#idleWaiters.splice(0)) resolve();
          }
        });
      this.#running.set(key, { kill: () => kill(), done });
    }
  }

  async #run(job: PackageJob, onKill: (kill: () => void) => void): Promise<void> {
    const pk = [job.accessoryId, job.activityId, job.uploadId];
    const claimed = await claimDue(
      this.options.db.pool,
      {
        table: 'media_objects',
        key: '(accessory_id, activity_id, kind)',
        due: `accessory_id = $1 AND activity_id = $2 AND kind = 'mp4' AND upload_id = $3
              AND package_status = 'queued'`,
        order: 'uploaded_at',
        take: `package_status = 'running', package_started_at = now(),
               package_attempts = package_attempts + 1, package_error = NULL`,
        returning: 'upload_id',
        params: pk,
      },
      1,
    );
    if (claimed.length === 0) return; // another instance has it, or the upload was replaced
    this.options.onChange(job);
    const started = Date.now();
    const dir = `pkg-${randomUUID().slice(0, 8)}`;
    const outPrefix = `${uploadPrefix(job)}${dir}/`;
    const work = path.join(this.options.tmpDir, `package-${randomUUID()}`);
    let uploaded = false;
    let outcome:
      | { status: 'ready'; manifest: PackageManifest }
      | { status: 'failed' | 'queued'; error: string };
    try {
      const input = await this.options.store.localCopy(
        `${uploadPrefix(job)}clip.mp4`,
        this.options.tmpDir,
      );
      try {
        await fs.mkdir(path.join(work, 'hls'), { recursive: true });
        await fs.mkdir(path.join(work, 'dash'), { recursive: true });
        await this.#ffmpeg(input.path, work, onKill);
      } finally {
        await input.release();
      }
      const files: Record<string, PackagedFile> = {};
      uploaded = true;
      for (const rel of await outputs(work)) {
        const file = path.join(work, rel);
        files[rel] = await describe(file);
        await this.options.store.put(`${outPrefix}${rel}`, file, contentTypeOf(rel)!);
      }
      if (!files['hls/activity.m3u8'] || !files['activity.mpd']) {
        throw new PackagingFailed('ffmpeg wrote no playlist');
      }
      outcome = { status: 'ready', manifest: { dir, files } };
    } catch (err) {
      if (this.#stopping) {
        outcome = { status: 'queued', error: 'interrupted by shutdown' };
      } else if (err instanceof PackagingFailed || err instanceof ObjectMissing) {
        outcome = { status: 'failed', error: err.message };
      } else {
        this.options.logger.warn({ err, ...job }, 'packaging attempt failed');
        outcome = { status: 'queued', error: (err as Error).message };
      }
    } finally {
      await fs.rm(work, { recursive: true, force: true });
    }

    const rowCount = await this.#settle(
      job,
      outcome.status === 'ready'
        ? `UPDATE media_objects SET package_status = 'ready', package_files = $4, package_error = NULL
            WHERE accessory_id = $1 AND activity_id = $2 AND kind = 'mp4' AND upload_id = $3
              AND package_status = 'running'`
        : `UPDATE media_objects
              SET package_status = CASE WHEN $5 = 'queued' AND package_attempts < $6 THEN 'queued'
                                        ELSE 'failed' END,
                  package_error = $4,
                  package_attempts = package_attempts - CASE WHEN $7 THEN 1 ELSE 0 END
            WHERE accessory_id = $1 AND activity_id = $2 AND kind = 'mp4' AND upload_id = $3
              AND package_status = 'running'`,
      outcome.status === 'ready'
        ? [JSON.stringify(outcome.manifest)]
        : [outcome.error.slice(0, 2000), outcome.status, MAX_ATTEMPTS, this.#stopping],
    );
    this.options.onChange(job);
    if (outcome.status !== 'ready' || rowCount === 0) {
      // Not recorded (failed, or the upload was replaced or deleted meanwhile): drop this run's
      // output; the upload's prefix as a whole is the garbage collector's.
      if (uploaded) await this.options.store.deletePrefix(outPrefix).catch(() => undefined);
    }
    this.options.logger.info(
      { ...job, status: rowCount === 0 ? 'discarded' : outcome.status, ms: Date.now() - started },
      'packaging finished',
    );
  }

  /** The jobs of the media_objects rows that `condition` (with `params`) selects. */
  async #jobs(condition: string, params: unknown[]): Promise<PackageJob[]> {
    const { rows } = await this.options.db.pool.query<PackageJob>(
      `SELECT accessory_id AS "accessoryId", activity_id AS "activityId", upload_id AS "uploadId"
         FROM media_objects WHERE ${condition}`,
      params,
    );
    return rows;
  }

  /**
   * Requeues (or fails, after MAX_ATTEMPTS) the jobs whose lease ran out, each in its own
   * transaction so that a failed one is announced with it.
   */
  async #requeueStale(): Promise<void> {
    const staleS = 2 * this.options.config.timeoutS + 60;
    const stale = await this.#jobs(
      `package_status = 'running' AND package_started_at < now() - make_interval(secs => $1)`,
      [staleS],
    );
    for (const job of stale) {
      await this.#settle(
        job,
        `UPDATE media_objects
            SET package_status = CASE WHEN package_attempts >= $5 THEN 'failed' ELSE 'queued' END,
                package_error = CASE WHEN package_attempts >= $5
                                     THEN 'packaging did not finish in ' || $5 || ' attempts' END
          WHERE accessory_id = $1 AND activity_id = $2 AND kind = 'mp4' AND upload_id = $3
            AND package_status = 'running'
            AND package_started_at < now() - make_interval(secs => $4)`,
        [staleS, MAX_ATTEMPTS],
      );
    }
  }

  /**
   * Changes a job's row with `sql` ($1..$3 the job, then `params`) in one transaction with the
   * activity_media_ready event it may complete; the accessory's row lock orders it against
   * finishing the activity, as ingest takes it. Resolves with the rows changed (0 or 1).
   */
  async #settle(job: PackageJob, sql: string, params: unknown[]): Promise<number> {
    const pk = [job.accessoryId, job.activityId, job.uploadId];
    const { changed, events } = await inTransaction(this.options.db.pool, async (client) => {
      await client.query('SELECT 1 FROM accessories WHERE id = $1 FOR UPDATE', [job.accessoryId]);
      const { rowCount } = await client.query(sql, [...pk, ...params]);
      const events = rowCount ? await this.options.readiness.record(client, job) : [];
      return { changed: rowCount ?? 0, events };
    });
    this.options.readiness.committed(events);
    return changed;
  }

  #ffmpeg(input: string, cwd: string, onKill: (kill: () => void) => void): Promise<void> {
    const s = String(this.options.config.segmentS);
    const streams = ['-map', '0:v:0', '-map', '0:a:0?', '-c', 'copy'];
    const args = [
      ['-nostdin', '-hide_banner', '-loglevel', 'error', '-i', input],
      [...streams, '-f', 'hls', '-hls_time', s, '-hls_playlist_type', 'vod'],
      ['-hls_segment_type', 'fmp4', '-hls_fmp4_init_filename', 'init.mp4'],
      ['-hls_segment_filename', 'hls/seg-%05d.m4s', 'hls/activity.m3u8'],
      [...streams, '-f', 'dash', '-seg_duration', s, '-use_template', '1', '-use_timeline', '1'],
      ['-init_seg_name', 'dash/init-$RepresentationID$.m4s'],
      ['-media_seg_name', 'dash/chunk-$RepresentationID$-$Number%05d$.m4s', 'activity.mpd'],
    ].flat();
    return new Promise((resolve, reject) => {
      const child = spawn(this.options.config.ffmpeg!, args, {
        cwd,
        stdio: ['ignore', 'ignore', 'pipe'],
        timeout: this.options.config.timeoutS * 1000,
        killSignal: 'SIGKILL',
      });
      onKill(() => child.kill('SIGKILL'));
      let stderr = '';
      child.stderr.setEncoding('utf8');
      child.stderr.on('data', (d: string) => (stderr = (stderr + d).slice(-4000)));
      child.on('error', reject); // e.g. ffmpeg not installed: transient, retried
      child.on('close', (code, signal) => {
        if (code === 0) return resolve();
        const why = signal ? `ffmpeg was killed (${signal})` : `ffmpeg exited with ${code}`;
        reject(new PackagingFailed(`${why}: ${stderr.trim().split('\n').slice(-3).join(' | ')}`));
      });
    });
  }
}

/** The files ffmpeg wrote that a player may ask for, relative to the work directory. */
async function outputs(work: string): Promise<string[]> {
  const entries = await fs.readdir(work, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile() && contentTypeOf(e.name))
    .map((e) => path.relative(work, path.join(e.parentPath, e.name)).split(path.sep).join('/'))
    .sort();
}

async function describe(file: string): Promise<PackagedFile> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of createReadStream(file) as AsyncIterable<Buffer>) {
    hash.update(chunk);
    size += chunk.length;
  }
  return { size, sha256: hash.digest('hex') };
}
