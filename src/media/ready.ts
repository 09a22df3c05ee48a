import type pg from 'pg';
import { activityDetailJson, type ActivityRecord } from '../activities/model.ts';
import { ACTIVITY_COLUMNS } from '../activities/store.ts';
import { recordEvents, type EventSignal } from '../events/outbox.ts';
import type { NewEvent, StoredEvent } from '../events/types.ts';
import { inTransaction, sqlTx, type SqlTx } from '../storage/database.ts';
import type { UploadRef } from './model.ts';
import { NO_FFMPEG } from './ffmpeg.ts';
import type { MediaSigner } from './signing.ts';

/**
 * `activity_media_ready`: an activity's clip can be fetched. It is true once the activity is
 * finished (its media is then fixed), its MP4 is stored, and packaging has settled: HLS and DASH
 * are `ready`, or packaging `failed` (then the event says why), or this instance has no ffmpeg
 * (`unavailable`, at once with the upload). Those three happen in any order, in three kinds of
 * transaction (finishing the activity, the MP4's upload, the packager's outcome), so each of
 * them asks `events()` before it commits; it answers the event once, when the transaction makes
 * the last of them true, marking the MP4 (`ready_event_at`) in the same transaction. The
 * activity's row lock (held by all three) orders them, so none misses what another committed.
 *
 * The event's data is the activity as `GET .../activities/{id}` shows it, with `media` signed
 * for NOTIFICATION_MEDIA_URL_TTL_S from the moment the event is recorded, and `packaging`.
 */
export class MediaReadiness {
  constructor(
    private readonly signer: MediaSigner,
    /** `NOTIFICATION_MEDIA_URL_TTL_S`: how long the URLs the event carries stay valid. */
    private readonly ttlS: number,
    private readonly signal: EventSignal,
  ) {}

  /**
   * The activity_media_ready event of the activity, if this transaction makes its clip ready
   * (none otherwise, and none a second time). The caller records it with its own events.
   */
  async events(
    tx: SqlTx,
    accessoryId: string,
    activityId: string,
    nowMs = Date.now(),
  ): Promise<NewEvent[]> {
    const marked = await tx.$queryRawUnsafe<
      { package_status: 'ready' | 'failed'; package_error: string | null; has_image: boolean }[]
    >(MARK_READY_SQL, accessoryId, activityId);
    const clip = marked[0];
    if (!clip) return [];
    const rows = await tx.$queryRawUnsafe<(ActivityRecord & { accountId: string })[]>(
      `SELECT ${ACTIVITY_COLUMNS},
              (SELECT account_id FROM accessories WHERE id = $1::uuid) AS "accountId"
         FROM activities WHERE accessory_id = $1::uuid AND activity_id = $2`,
      accessoryId,
      activityId,
    );
    const { accountId, ...activity } = rows[0]!;
    const packaged = clip.package_status === 'ready';
    const expires = Math.floor(nowMs / 1000) + this.ttlS;
    const media = this.signer.urls(
      accessoryId,
      activityId,
      { image: clip.has_image, mp4: true, packaged },
      expires,
    );
    return [
      {
        accountId,
        accessoryId,
        eventType: 'activity_media_ready',
        eventData: {
          ...activityDetailJson(activity, media),
          mediaExpiresAt: new Date(expires * 1000).toISOString(),
          packaging: packagingOf(clip.package_status, clip.package_error),
        },
      },
    ];
  }

  /**
   * Announces the clips that are ready but not announced: of the given activities (just finished
   * by ingest, whose statement answered that their clips had settled but cannot ask `events()`
   * itself), or of any activity (the `media.ready` job, which catches what a crash between that
   * statement and this call left).
   * Each in its own transaction under the accessory's row lock, as the other paths take it.
   */
  async announcePending(
    pool: pg.Pool,
    of?: readonly { accessoryId: string; activityId: string }[],
  ): Promise<number> {
    if (of?.length === 0) return 0;
    const { rows } = await pool.query<{ accessoryId: string; activityId: string }>(
      of
        ? {
            ...PENDING_OF,
            values: [of.map((a) => a.accessoryId), of.map((a) => a.activityId)],
          }
        : PENDING_ANY_SQL,
    );
    for (const ref of rows) {
      const events = await inTransaction(pool, async (client) => {
        await client.query('SELECT 1 FROM accessories WHERE id = $1 FOR UPDATE', [ref.accessoryId]);
        const tx = sqlTx(client);
        return recordEvents(tx, await this.events(tx, ref.accessoryId, ref.activityId));
      });
      this.signal.committed(events);
    }
    return rows.length;
  }

  /** `events()` recorded on a pg connection inside BEGIN (uploads, the packager). */
  async record(client: pg.PoolClient, ref: UploadRef): Promise<StoredEvent[]> {
    const tx = sqlTx(client);
    return recordEvents(tx, await this.events(tx, ref.accessoryId, ref.activityId));
  }

  /** After the commit of `record`'s transaction: the event goes to receivers and subscribers. */
  committed(events: StoredEvent[]): void {
    this.signal.committed(events);
  }
}

/** How packaging of the clip ended, as the event tells it. */
export interface Packaging {
  /** ready: HLS and DASH exist; failed: packaging gave up; unavailable: no ffmpeg to package. */
  status: 'ready' | 'failed' | 'unavailable';
  error: string | null;
}

export const packagingOf = (status: 'ready' | 'failed', error: string | null): Packaging =>
  status === 'ready'
    ? { status, error: null }
    : error === NO_FFMPEG
      ? { status: 'unavailable', error }
      : { status, error };

// Clips settled and not yet announced, of finished activities. Any of them (the sweep job), or
// of the given activities, finished by an ingest write whose answer named them: a named
// statement, whose plan each connection keeps (planning over the day partitions costs more
// than running it).
const PENDING_ANY_SQL = `
SELECT m.accessory_id::text AS "accessoryId", m.activity_id AS "activityId"
  FROM media_objects m
  JOIN activities a ON a.accessory_id = m.accessory_id AND a.activity_id = m.activity_id
 WHERE m.kind = 'mp4' AND m.package_status IN ('ready', 'failed') AND m.ready_event_at IS NULL
   AND a.end_time IS NOT NULL
 LIMIT 100`;
const PENDING_OF = {
  name: 'clipgate_media_pending_of',
  text: `
SELECT m.accessory_id::text AS "accessoryId", m.activity_id AS "activityId"
  FROM unnest($1::uuid[], $2::text[]) AS f(accessory_id, activity_id)
  JOIN media_objects m ON m.accessory_id = f.accessory_id AND m.activity_id = f.activity_id
 WHERE m.kind = 'mp4' AND m.package_status IN ('ready', 'failed') AND m.ready_event_at IS NULL`,
};

// The activity's MP4, settled and not yet announced, of a finished activity: marked announced.
const MARK_READY_SQL = `
UPDATE media_objects m SET ready_event_at = now()
 WHERE m.accessory_id = $1::uuid AND m.activity_id = $2 AND m.kind = 'mp4'
   AND m.package_status IN ('ready', 'failed') AND m.ready_event_at IS NULL
   AND EXISTS (SELECT 1 FROM activities a
                WHERE a.accessory_id = m.accessory_id AND a.activity_id = m.activity_id
                  AND a.end_time IS NOT NULL)
RETURNING m.package_status, m.package_error,
          EXISTS (SELECT 1 FROM media_objects i
                   WHERE i.accessory_id = m.accessory_id AND i.activity_id = m.activity_id
                     AND i.kind = 'image') AS has_image`;
