import DataLoader from 'dataloader';
import { retentionFloor } from '../activity-ids.ts';
import type { MediaUrls } from '../activities/model.ts';
import { TtlCache } from '../cache.ts';
import { notFound } from '../errors.ts';
import { isUuid } from '../ids.ts';
import type { Logger } from '../logger.ts';
import type { Database } from '../storage/database.ts';
import {
  isActivityRef,
  mediaKinds,
  view,
  type MediaKind,
  type MediaRow,
  type MediaTarget,
} from './model.ts';
import type { MediaPresence, MediaSigner } from './signing.ts';

/** An activity's media row of one kind as the database has it now. */
export interface FoundTarget {
  retentionDays: number;
  /** null: no such activity. */
  target: MediaTarget | null;
}

/** Who reads: the holder of a signed URL's signature, or a bearer of an account's token. */
export type MediaAccess = { signature: string } | { accountId: string };

/** An activity, as media URLs are asked for. */
export interface ActivityRef {
  accessoryId: string;
  activityId: string;
}

/** `Activity.media` of every activity of one GraphQL operation, one query per accessory. */
export type MediaUrlLoader = DataLoader<ActivityRef, MediaUrls | null, string>;

const none = (): MediaPresence => ({ image: false, mp4: false, packaged: false });

/**
 * Finding media: the activity and its media row behind a read (every segment of a player asks),
 * checked against the caller (a signed URL or the owner's token) and the retention window; and
 * which media activities have, for their signed URLs.
 *
 * Reads are answered from a short per-instance cache (2 s, 30 s once the media can no longer
 * change). Changes made by this instance (uploads, packaging, activity and account events) drop
 * entries at once (`forget`); other instances' changes show within the TTL.
 */
export class MediaLookup {
  readonly #targets = new TtlCache<string, FoundTarget>(2_000, 20_000);
  readonly #loading = new Map<string, Promise<FoundTarget>>();

  constructor(
    private readonly db: Database,
    readonly signer: MediaSigner,
    private readonly logger: Logger,
  ) {}

  /**
   * The activity and its media row of `kind` for a read (`kind` undefined: the path names no
   * media file). A signature must be this server's for that activity (403); an account must own
   * the activity, which must exist and be within its account's retention window (404).
   */
  async find(
    accessoryId: string,
    activityId: string,
    kind: MediaKind | undefined,
    access: MediaAccess,
  ): Promise<MediaTarget> {
    if ('signature' in access) this.signer.verify(accessoryId, activityId, access.signature);
    if (!kind) throw notFound('media');
    if (!isActivityRef(accessoryId, activityId)) throw notFound('activity');
    const key = `${accessoryId}/${activityId}/${kind}`;
    let found = this.#targets.get(key);
    if (!found) {
      let pending = this.#loading.get(key);
      if (!pending) {
        pending = this.load(accessoryId, activityId, kind).finally(() => this.#loading.delete(key));
        this.#loading.set(key, pending);
      }
      found = await pending;
    }
    if (
      !found.target ||
      ('accountId' in access && found.target.accountId !== access.accountId) ||
      activityId < retentionFloor(found.retentionDays)
    ) {
      throw notFound('activity');
    }
    return found.target;
  }

  /** Reads the activity and its media row of `kind` from the database (and caches the answer). */
  async load(accessoryId: string, activityId: string, kind: MediaKind): Promise<FoundTarget> {
    const { rows } = await this.db.pool.query<
      MediaRow & { end_time: Date | null; account_id: string; retention_days: number }
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
    const found: FoundTarget = row
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
    const o = found.target?.object;
    const settled =
      found.target &&
      !found.target.inProgress &&
      o &&
      (o.kind === 'image' || o.packageStatus === 'ready' || o.packageStatus === 'failed');
    this.#targets.set(`${accessoryId}/${activityId}/${kind}`, found, settled ? 30_000 : 2_000);
    return found;
  }

  /** Drops cached lookups of an activity (this instance changed it, or saw an event about it). */
  forget(accessoryId: string, activityId: string): void {
    for (const kind of mediaKinds) this.#targets.delete(`${accessoryId}/${activityId}/${kind}`);
  }

  /** Drops the cached lookups of an account's activities (it was deleted). */
  forgetAccount(accountId: string): void {
    this.#targets.deleteWhere((t) => t.target?.accountId === accountId);
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
   * A loader of signed URLs for one GraphQL operation: the activities whose `media` it resolves
   * (every activity of a page) are looked up together, one query per accessory. It caches for
   * its operation only; make a new one per operation. A failed lookup answers "no media" (and is
   * logged) rather than failing the page.
   */
  urlLoader(): MediaUrlLoader {
    return new DataLoader(
      async (refs: readonly ActivityRef[]) => {
        const byAccessory = new Map<string, string[]>();
        for (const { accessoryId, activityId } of refs) {
          const ids = byAccessory.get(accessoryId) ?? [];
          ids.push(activityId);
          byAccessory.set(accessoryId, ids);
        }
        const found = new Map<string, MediaPresence>();
        await Promise.all(
          [...byAccessory].map(([accessoryId, ids]) =>
            this.#presence(accessoryId, ids).then(
              (presence) => {
                for (const [id, p] of presence) found.set(`${accessoryId}/${id}`, p);
              },
              (err: unknown) => this.logger.error({ err, accessoryId }, 'media lookup failed'),
            ),
          ),
        );
        return refs.map(({ accessoryId, activityId }) =>
          this.signer.urls(
            accessoryId,
            activityId,
            found.get(`${accessoryId}/${activityId}`) ?? none(),
          ),
        );
      },
      { cacheKeyFn: (ref) => `${ref.accessoryId}/${ref.activityId}` },
    );
  }

  async #presence(accessoryId: string, activityIds: string[]): Promise<Map<string, MediaPresence>> {
    const result = new Map<string, MediaPresence>(activityIds.map((id) => [id, none()]));
    if (activityIds.length === 0 || !isUuid(accessoryId)) return result;
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
}
