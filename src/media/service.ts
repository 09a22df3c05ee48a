import fs from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../config.ts';
import type { EventSignal } from '../events/outbox.ts';
import type { Logger } from '../logger.ts';
import type { Database } from '../storage/database.ts';
import { MediaCleanup } from './cleanup.ts';
import { MediaExports, type ExportObserver } from './export.ts';
import { INSTALL_HINT, serviceFfmpeg } from './ffmpeg.ts';
import { FsMediaStore } from './fs-store.ts';
import { MediaLookup } from './lookup.ts';
import { Packager } from './packager.ts';
import { MediaReadiness } from './ready.ts';
import { S3MediaStore } from './s3-store.ts';
import { MediaSigner } from './signing.ts';
import type { MediaStore } from './store.ts';
import { MediaUploads } from './upload.ts';

/** Files in the temporary directory older than this are leftovers of a crashed process. */
const STALE_TMP_MS = 24 * 3600_000;

/**
 * Media of activities, one part per job: `uploads` (ingest), `lookup` (what reads and media URLs
 * find, cached), `packager` (HLS and DASH in the background), `exports` (an accessory's clips of
 * a time range joined into one MP4), `cleanup` (deleting what is no longer referenced), over one
 * `store` (filesystem or S3) and one URL `signer`. The HTTP side is
 * src/http/routes/media.ts; none of these parts sees a request.
 */
export interface MediaServiceOptions {
  db: Database;
  config: Config;
  logger: Logger;
  /** Where activity_media_ready is signalled, and deleted accounts are heard of. */
  signal: EventSignal;
  /** Whether the start log says how media URLs are signed (false: a GraphQL worker thread). */
  announce?: boolean;
  /** Where exports report what they refuse, cut and run (the metrics). */
  exportObserver?: ExportObserver;
}

export class MediaService {
  readonly store: MediaStore;
  readonly signer: MediaSigner;
  readonly lookup: MediaLookup;
  readonly uploads: MediaUploads;
  readonly cleanup: MediaCleanup;
  readonly packager: Packager;
  readonly exports: MediaExports;
  /** activity_media_ready, recorded by uploads, the packager and finishing an activity. */
  readonly readiness: MediaReadiness;
  /** The ffmpeg that packages and exports; undefined: none here. */
  readonly ffmpeg: string | undefined;
  readonly #tmpDir: string;
  #unsubscribe: () => void = () => {};

  private constructor({
    db,
    store,
    signer,
    config,
    logger,
    signal,
    exportObserver,
  }: MediaServiceOptions & { store: MediaStore; signer: MediaSigner }) {
    this.store = store;
    this.signer = signer;
    this.#tmpDir = path.join(config.dataDir, 'tmp', 'media');
    this.ffmpeg = serviceFfmpeg(config.media.packager.ffmpeg);
    this.readiness = new MediaReadiness(signer, config.media.notificationUrlTtlS, signal);
    this.lookup = new MediaLookup(db, signer, logger);
    this.cleanup = new MediaCleanup(db, store, logger);
    this.packager = new Packager({
      db,
      store,
      config: { ...config.media.packager, ffmpeg: this.ffmpeg },
      tmpDir: this.#tmpDir,
      logger,
      readiness: this.readiness,
      onChange: (job) => this.lookup.forget(job.accessoryId, job.activityId),
    });
    this.exports = new MediaExports({
      db,
      store,
      signer,
      config: config.media.export,
      ffmpeg: this.ffmpeg,
      tmpDir: this.#tmpDir,
      logger,
      observer: exportObserver,
    });
    this.uploads = new MediaUploads({
      db,
      store,
      lookup: this.lookup,
      cleanup: this.cleanup,
      limits: config.media,
      tmpDir: this.#tmpDir,
      packaging: this.packager.available,
      readiness: this.readiness,
      onMp4: (upload) => this.packager.enqueue(upload),
    });
  }

  static async create(options: MediaServiceOptions): Promise<MediaService> {
    const { config, logger, announce = true } = options;
    const store: MediaStore = config.media.s3
      ? new S3MediaStore(config.media.s3)
      : new FsMediaStore(path.join(config.dataDir, 'media'));
    const { signer, generated } = await MediaSigner.create({
      secret: config.media.urlSecret,
      ttlS: config.media.urlTtlS,
      baseUrl: config.publicBaseUrl,
      dataDir: config.dataDir,
    });
    const media = new MediaService({ ...options, store, signer });
    if (announce) announceMedia(config, media, generated, logger);
    return media;
  }

  /**
   * Prepares the temporary directory and follows events: cached lookups of a changed activity
   * are dropped, and a deleted account's media deleted at once. (Packaging is polled by the
   * background job `media.package-poll`.)
   */
  async start(signal: EventSignal): Promise<void> {
    await fs.mkdir(this.#tmpDir, { recursive: true });
    await this.cleanup.removeStale(this.#tmpDir, STALE_TMP_MS);
    // The rows went with the account's transaction (their trigger queued the objects): delete
    // the objects now rather than at the next sweep.
    this.#unsubscribe = signal.subscribe((events) => {
      for (const e of events) {
        const activityId = (e.eventData as { activityId?: unknown }).activityId;
        if (e.accessoryId && typeof activityId === 'string') {
          this.lookup.forget(e.accessoryId, activityId);
        }
        if (e.eventType === 'account_deleted') {
          this.lookup.forgetAccount(e.accountId);
          this.cleanup.collectSoon('deleting the media of a deleted account failed');
        }
      }
    });
  }

  async close(): Promise<void> {
    this.#unsubscribe();
    await this.packager.stop();
    await this.cleanup.settled();
    this.store.close();
  }
}

/** The start-up notices of the media service: where its secret and files are, and ffmpeg. */
function announceMedia(
  config: Config,
  { store, ffmpeg }: MediaService,
  generated: boolean | undefined,
  logger: Logger,
): void {
  if (generated !== undefined) {
    logger.warn(
      { file: path.join(config.dataDir, 'media-url-secret'), generated },
      'media URLs are signed with the secret stored in the data directory; set MEDIA_URL_SECRET when several instances serve media',
    );
  }
  logger.info({ store: store.kind }, 'media store');
  if (ffmpeg) {
    logger.info({ ffmpeg }, 'packaging MP4 uploads to HLS and DASH');
  } else {
    logger.warn(`no ffmpeg: MP4 uploads are kept but not packaged to HLS/DASH; ${INSTALL_HINT}`);
  }
}
