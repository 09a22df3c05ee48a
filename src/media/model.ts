import path from 'node:path';
import { isActivityId } from '../activity-ids.ts';
import { isUuid } from '../ids.ts';

// The shapes media works with: its kinds, a media_objects row, and the store keys of its files.

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

/** The Content-Type of a packaged file (by its extension); undefined: not one a player asks for. */
export const contentTypeOf = (file: string): string | undefined =>
  ({
    '.m3u8': 'application/vnd.apple.mpegurl',
    '.mpd': 'application/dash+xml',
    '.mp4': 'video/mp4',
    '.m4s': 'video/iso.segment',
  })[path.extname(file)];

/** A packaged file as recorded in media_objects.package_files. */
export interface PackagedFile {
  size: number;
  sha256: string;
}

/** What media_objects.package_files holds once a package is ready. */
export interface PackageManifest {
  /** The directory under the upload's prefix, one per packaging run: `pkg-<run id>`. */
  dir: string;
  files: Record<string, PackagedFile>;
}

export type PackageStatus = 'queued' | 'running' | 'ready' | 'failed';

/** A media_objects row. */
export interface MediaObjectView {
  kind: MediaKind;
  uploadId: string;
  contentType: string;
  size: number;
  sha256: string;
  uploadedAt: Date;
  packageStatus: PackageStatus | null;
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

/** A media_objects row as `SELECT m.*` returns it (every column null without a row). */
export interface MediaRow {
  kind: MediaKind;
  upload_id: string;
  content_type: string;
  size: string;
  sha256: string;
  uploaded_at: Date;
  package_status: PackageStatus | null;
  package_files: PackageManifest | null;
  package_error: string | null;
}

export const view = (r: MediaRow): MediaObjectView => ({
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

/** Whether the ids can name an activity at all (else 404 without asking the database). */
export const isActivityRef = (accessoryId: string, activityId: string) =>
  isUuid(accessoryId) && isActivityId(activityId);

/** One upload's files: every upload gets a fresh id, so a stored object never changes. */
export interface UploadRef {
  accessoryId: string;
  activityId: string;
  uploadId: string;
}

export const uploadPrefix = (u: UploadRef) => `${u.accessoryId}/${u.activityId}/${u.uploadId}/`;

/** The store key of a target's media file, or of one of its packaged files. */
export function objectKey(target: MediaTarget, file?: string): string {
  const o = target.object!;
  const prefix = uploadPrefix({ ...target, uploadId: o.uploadId });
  return file === undefined
    ? `${prefix}${kindInfo[o.kind].file}`
    : `${prefix}${o.packageFiles!.dir}/${file}`;
}
