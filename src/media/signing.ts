import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import path from 'node:path';
import type { MediaUrls } from '../activities/model.ts';
import { AppError } from '../errors.ts';
import { loadOrCreateSecretFile } from '../secret-file.ts';

/** What media of one activity exists, as far as URLs are concerned. */
export interface MediaPresence {
  image: boolean;
  mp4: boolean;
  /** HLS and DASH are packaged from the MP4 in the background; true once they are ready. */
  packaged: boolean;
}

/** An export's time range, `[start, end)`. */
export interface TimeRange {
  start: Date;
  end: Date;
}

const TOKEN = /^(\d{1,12})\.([A-Za-z0-9_-]{43})$/;
const SECRET_FILE = 'media-url-secret';

/**
 * Signed media URLs: a capability for reading one activity's media, or one export of an
 * accessory's clips, without a bearer token, until it expires.
 *
 * The signature is a path segment, not a query parameter, so that the relative URLs inside the
 * HLS and DASH manifests (`seg-00001.m4s`, `dash/init-0.m4s`) resolve to URLs that carry it too:
 *
 *     /api/accessories/{accessoryId}/activities/{activityId}/signed/{expires}.{mac}/mp4
 *     /api/accessories/{accessoryId}/signed/{expires}.{mac}/export.mp4?start=...&end=...
 *
 * `expires` is unix seconds; `mac` is base64url HMAC-SHA256 over
 * `{accessoryId}/{activityId}/{expires}` (an activity's media), or over
 * `{accessoryId}/{start}/{end}/{expires}` with both instants in UTC ISO form (an export), each
 * with its own key derived from the server secret (`MEDIA_URL_SECRET`, or one generated into
 * DATA_DIR), so that neither kind of signature opens the other. One activity signature covers
 * every media file of that activity and nothing else; one export signature that accessory and
 * exactly that range. Expiry is rounded up to a step of a fifth of the TTL, so that the same URL
 * is handed out for a while and browsers can cache what it points to; a URL is valid for at
 * least the TTL and at most 1.2 times it.
 */
export class MediaSigner {
  readonly #activityKey: Buffer;
  readonly #exportKey: Buffer;

  constructor(
    secret: string,
    readonly ttlS: number,
    /** Absolute URLs when set (`PUBLIC_BASE_URL`), else root-relative. */
    readonly baseUrl = '',
  ) {
    const derive = (purpose: string) => createHmac('sha256', secret).update(purpose).digest();
    this.#activityKey = derive('clipgate/media-url/v1');
    this.#exportKey = derive('clipgate/export-url/v1');
  }

  /** A signer whose secret comes from configuration, or from (or into) DATA_DIR. */
  static async create(options: {
    secret: string | undefined;
    ttlS: number;
    baseUrl: string | undefined;
    dataDir: string;
  }): Promise<{ signer: MediaSigner; generated: boolean | undefined }> {
    const { secret, generated } = options.secret
      ? { secret: options.secret, generated: undefined }
      : await loadSecret(options.dataDir);
    return { signer: new MediaSigner(secret, options.ttlS, options.baseUrl ?? ''), generated };
  }

  /** The expiry handed out now: at least `ttlS` ahead, rounded up to a step of ttlS / 5. */
  expiry(nowMs = Date.now()): number {
    const step = Math.max(1, Math.floor(this.ttlS / 5));
    return Math.ceil((Math.floor(nowMs / 1000) + this.ttlS) / step) * step;
  }

  token(accessoryId: string, activityId: string, expires = this.expiry()): string {
    return sign(this.#activityKey, `${accessoryId}/${activityId}`, expires);
  }

  /** Throws 403 PERMISSION_DENIED unless the token is this server's, for this activity, unexpired. */
  verify(accessoryId: string, activityId: string, token: string, nowMs = Date.now()): void {
    check(this.#activityKey, `${accessoryId}/${activityId}`, token, nowMs);
  }

  exportToken(accessoryId: string, range: TimeRange, expires = this.expiry()): string {
    return sign(this.#exportKey, exportMessage(accessoryId, range), expires);
  }

  /** Throws 403 PERMISSION_DENIED unless the token is this server's, for this export, unexpired. */
  verifyExport(accessoryId: string, range: TimeRange, token: string, nowMs = Date.now()): void {
    check(this.#exportKey, exportMessage(accessoryId, range), token, nowMs);
  }

  /** The signed URL of an export of the accessory's clips overlapping `range`. */
  exportUrl(accessoryId: string, range: TimeRange, token = this.exportToken(accessoryId, range)) {
    const query = new URLSearchParams({
      start: range.start.toISOString(),
      end: range.end.toISOString(),
    });
    return `${this.baseUrl}/api/accessories/${encodeURIComponent(accessoryId)}/signed/${token}/export.mp4?${query}`;
  }

  /** The base of an activity's signed media URLs (append `mp4`, `hls/activity.m3u8`, ...). */
  base(
    accessoryId: string,
    activityId: string,
    token = this.token(accessoryId, activityId),
  ): string {
    return `${this.baseUrl}${activityPath(accessoryId, activityId)}/signed/${token}/`;
  }

  /** The activity's signed media URLs, valid until `expires` (unix seconds; default: `expiry()`). */
  urls(
    accessoryId: string,
    activityId: string,
    has: MediaPresence,
    expires = this.expiry(),
  ): MediaUrls | null {
    if (!has.image && !has.mp4) return null;
    const base = this.base(accessoryId, activityId, this.token(accessoryId, activityId, expires));
    return {
      image: has.image ? `${base}image` : null,
      mp4: has.mp4 ? `${base}mp4` : null,
      mpd: has.mp4 && has.packaged ? `${base}mpd` : null,
      hls: has.mp4 && has.packaged ? `${base}hls/activity.m3u8` : null,
    };
  }
}

const exportMessage = (accessoryId: string, range: TimeRange) =>
  `${accessoryId}/${range.start.toISOString()}/${range.end.toISOString()}`;

const mac = (key: Buffer, message: string, expires: number): Buffer =>
  createHmac('sha256', key).update(`${message}/${expires}`).digest();

const sign = (key: Buffer, message: string, expires: number): string =>
  `${expires}.${mac(key, message, expires).toString('base64url')}`;

function check(key: Buffer, message: string, token: string, nowMs: number): void {
  const m = TOKEN.exec(token);
  const expires = m ? Number(m[1]) : NaN;
  const given = m ? Buffer.from(m[2]!, 'base64url') : Buffer.alloc(0);
  const expected = mac(key, message, Number.isFinite(expires) ? expires : 0);
  if (!m || given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw denied('the media URL signature is not valid');
  }
  if (expires * 1000 <= nowMs) throw denied('the media URL has expired');
}

export const activityPath = (accessoryId: string, activityId: string) =>
  `/api/accessories/${encodeURIComponent(accessoryId)}/activities/${encodeURIComponent(activityId)}`;

const denied = (message: string) =>
  new AppError('PERMISSION_DENIED', message, {}, { 'Cache-Control': 'no-store' });

async function loadSecret(dataDir: string): Promise<{ secret: string; generated: boolean }> {
  const { value, generated } = await loadOrCreateSecretFile(
    path.join(dataDir, SECRET_FILE),
    () => randomBytes(32).toString('base64url'),
    (text) => text,
  );
  return { secret: value, generated };
}
