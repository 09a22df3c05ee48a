import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { admit } from '../../context.ts';
import type { Services } from '../../services.ts';
import { AppError, methodNotAllowed, notFound } from '../../errors.ts';
import { sendJson } from '../json.ts';
import { checkPathParameter } from '../parameters.ts';
import { rateLimitHeaders } from '../../limits/rate.ts';
import { clientDigest } from '../../media/digest.ts';
import { MediaExports, type ExportAccess } from '../../media/export.ts';
import type { MediaAccess } from '../../media/lookup.ts';
import { contentTypeOf, objectKey, type MediaKind, type MediaTarget } from '../../media/model.ts';
import { notModified, parseRange, rangeStillValid } from '../../media/range.ts';
import { ObjectMissing, type MediaStore } from '../../media/store.ts';

/**
 * The media paths, under `/api/accessories/{accessoryId}/activities/{activityId}`:
 *
 *     GET|HEAD  /image  /mp4  /mpd  /dash/{file}  /hls/activity.m3u8  /hls/{file}
 *     PUT       /image  /mp4                      (ingest)
 *
 * and the same reads under `.../{activityId}/signed/{expires}.{mac}/...` without a bearer token;
 * and the export of an accessory's clips of a time range (src/media/export.ts):
 *
 *     GET|HEAD  /api/accessories/{accessoryId}/export.mp4?start=...&end=...
 *     GET|HEAD  /api/accessories/{accessoryId}/signed/{expires}.{mac}/export.mp4?start=...&end=...
 *
 * This is the HTTP side of media: it reads the headers, the query and the body stream and hands
 * the media service plain values (src/media/service.ts).
 */
const EXPORT_PATH = /^\/api\/accessories\/([^/]+)\/(?:signed\/([^/]+)\/)?export\.mp4$/;

const MEDIA_PATH =
  /^\/api\/accessories\/([^/]+)\/activities\/([^/]+)\/(?:signed\/([^/]+)\/)?(image|mp4|mpd|hls\/[^/]+|dash\/[^/]+)$/;

const FILE = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;

/** Seconds a player should wait before asking again for a package still being made. */
export const PACKAGING_RETRY_AFTER_S = 2;

export const CACHE_IN_PROGRESS = 'max-age=10';
export const CACHE_FINISHED = 'private, max-age=31536000, immutable';

interface Resource {
  kind: MediaKind;
  /** A packaged file (`activity.mpd`, `hls/...`, `dash/...`), or undefined for the upload itself. */
  file?: string;
}

function resource(name: string): Resource | undefined {
  if (name === 'image' || name === 'mp4') return { kind: name };
  if (name === 'mpd') return { kind: 'mp4', file: 'activity.mpd' };
  const [dir, file] = name.split('/') as [string, string];
  return FILE.test(file) ? { kind: 'mp4', file: `${dir}/${file}` } : undefined;
}

const label = (resourceName: string, signed: boolean) =>
  `/api/accessories/{accessoryId}/activities/{activityId}/${signed ? 'signed/{signature}/' : ''}${
    resourceName.startsWith('hls/') && resourceName !== 'hls/activity.m3u8'
      ? 'hls/{file}'
      : resourceName.startsWith('dash/')
        ? 'dash/{file}'
        : resourceName
  }`;

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw notFound('activity');
  }
}

/** The media type of a `Content-Type` header: lowercased, without parameters. */
const mediaType = (header: string | undefined) => header?.split(';')[0]!.trim().toLowerCase();

/**
 * Serves the media paths; resolves with the route label for metrics, or undefined when the path
 * is not a media path (the caller routes it elsewhere).
 */
export async function handleMediaRequest(
  services: Services,
  req: IncomingMessage,
  res: ServerResponse,
  pathname: string,
): Promise<string | undefined> {
  const exported = EXPORT_PATH.exec(pathname);
  const m = exported ? null : MEDIA_PATH.exec(pathname);
  if (!exported && !m) return undefined;
  try {
    return exported
      ? await handleExport(services, req, res, exported[1]!, exported[2])
      : await handleActivityMedia(services, req, res, m!);
  } catch (err) {
    // Errors are never cached: the media may appear, or the URL be renewed, a moment later.
    if (err instanceof AppError) err.headers['Cache-Control'] ??= 'no-store';
    throw err;
  }
}

/** The media of one activity: reads (by token or signature) and uploads. */
async function handleActivityMedia(
  services: Services,
  req: IncomingMessage,
  res: ServerResponse,
  m: RegExpExecArray,
): Promise<string> {
  const [accessoryId, activityId] = [decode(m[1]!), decode(m[2]!)];
  const token = m[3] && decode(m[3]);
  const name = m[4]!;
  const method = req.method ?? 'GET';
  const media = services.media;
  if (method === 'PUT' && !token && (name === 'image' || name === 'mp4')) {
    const ctx = await admit(services, req.headers.authorization, res);
    ctx.require('ingest');
    const length = req.headers['content-length'];
    const { created, body } = await media.uploads.upload({
      kind: name,
      accessoryId,
      activityId,
      contentType: mediaType(req.headers['content-type']),
      declaredBytes: length === undefined ? undefined : Number(length),
      sha256: clientDigest(req.headers),
      body: req,
    });
    sendJson(res, created ? 201 : 200, body, { ETag: `"${body.sha256}"` });
    return label(name, false);
  }
  if (method !== 'GET' && method !== 'HEAD') {
    const uploads = !token && (name === 'image' || name === 'mp4');
    throw methodNotAllowed(method, uploads ? ['GET', 'HEAD', 'PUT'] : ['GET', 'HEAD']);
  }
  const wanted = resource(name);
  let access: MediaAccess;
  if (token) {
    access = { signature: token };
  } else {
    const ctx = await admit(services, req.headers.authorization, res);
    ctx.require('activities_basic');
    access = { accountId: (await ctx.ownAccount()).accountId };
  }
  // A path naming no media file is a 404 from `find`, once the caller is checked.
  const target = await media.lookup.find(accessoryId, activityId, wanted?.kind, access);
  await serve(req, res, media.store, target, wanted!, Boolean(token));
  return label(name, Boolean(token));
}

/** GET or HEAD of an export: one MP4 of the accessory's clips that overlap `[start, end)`. */
async function handleExport(
  services: Services,
  req: IncomingMessage,
  res: ServerResponse,
  accessoryId: string,
  signature: string | undefined,
): Promise<string> {
  const exports = services.media.exports;
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    throw methodNotAllowed(req.method, ['GET', 'HEAD']);
  }
  let access: ExportAccess = { signed: true };
  if (signature === undefined) {
    const ctx = await admit(services, req.headers.authorization, res);
    ctx.require('activities_basic');
    access = { accountId: (await ctx.ownAccount()).accountId };
  }
  checkPathParameter('accessoryId', accessoryId);
  const range = exports.parseRange(new URL(req.url ?? '/', 'http://localhost').searchParams);
  if (signature !== undefined) {
    services.media.signer.verifyExport(accessoryId, range, signature);
    await limitSignedExport(services, signature, res);
  }
  const plan = await exports.clips(accessoryId, range, access);
  if (plan.clips.length === 0) {
    throw new AppError('NOT_FOUND', 'no clip with an MP4 overlaps the range', {});
  }
  exports.checkSize(plan);
  const headers: Record<string, string> = {
    'Content-Type': 'video/mp4',
    'Content-Disposition': `attachment; filename="${MediaExports.filename(accessoryId, range)}"`,
    // Streamed as ffmpeg writes it: no length, no byte ranges, and a new clip may change it.
    'Accept-Ranges': 'none',
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
    ...(signature !== undefined && {
      'Access-Control-Allow-Origin': '*',
      'Access-Control-Expose-Headers': 'Content-Disposition',
    }),
  };
  if (req.method === 'HEAD') {
    res.writeHead(200, headers).end();
  } else {
    const body = await exports.open(plan);
    res.writeHead(200, headers);
    // ffmpeg failing mid-way ends the download broken; a client going away stops ffmpeg.
    const sent = send(body, res);
    // A client that stops reading, or reads slowly, holds an export slot and an ffmpeg: cut it.
    exports.watch(body, res);
    await sent;
  }
  return `/api/accessories/{accessoryId}/${signature === undefined ? '' : 'signed/{signature}/'}export.mp4`;
}

/**
 * The per-URL rate limit of signed export URLs (EXPORT_URL_RATE_PER_MINUTE, EXPORT_URL_BURST):
 * they need no token, so no caller's budget counts them; each URL has a bucket of its own,
 * keyed by its (verified) signature. 429 RATE_LIMITED with `Retry-After` over it.
 */
async function limitSignedExport(
  services: Services,
  signature: string,
  res: ServerResponse,
): Promise<void> {
  const { urlRatePerMinute, urlBurst } = services.config.media.export;
  if (urlRatePerMinute === 0) return;
  const policy = { name: 'export-url', ratePerSecond: urlRatePerMinute / 60, burst: urlBurst };
  const decision = await services.rateLimiter.consumeKey(signature, policy);
  for (const [name, value] of Object.entries(rateLimitHeaders(decision))) {
    res.setHeader(name, value);
  }
  if (decision.allowed) return;
  services.media.exports.refused('url_rate_limited');
  const retryAfter = Math.max(1, Math.ceil(decision.retryAfterMs / 1000));
  throw new AppError(
    'RATE_LIMITED',
    `too many requests for this export URL: at most ${urlRatePerMinute} a minute (bursts of ${urlBurst}); retry after ${retryAfter} s`,
    { retryAfterSeconds: retryAfter, limit: 'EXPORT_URL_RATE_PER_MINUTE' },
    { 'Retry-After': String(retryAfter) },
  );
}

async function serve(
  req: IncomingMessage,
  res: ServerResponse,
  store: MediaStore,
  target: MediaTarget,
  wanted: Resource,
  signed: boolean,
): Promise<void> {
  const o = target.object;
  if (!o) throw notFound(wanted.kind === 'image' ? 'image' : 'clip');
  let size = o.size;
  let sha256 = o.sha256;
  let contentType = o.contentType;
  if (wanted.file !== undefined) {
    if (o.packageStatus === 'queued' || o.packageStatus === 'running') {
      throw new AppError(
        'UNAVAILABLE',
        'the clip is being packaged for streaming; try again shortly',
        { packaging: o.packageStatus },
        { 'Retry-After': String(PACKAGING_RETRY_AFTER_S) },
      );
    }
    if (o.packageStatus !== 'ready' || !o.packageFiles) {
      throw new AppError('NOT_FOUND', 'the clip could not be packaged for streaming', {
        packaging: o.packageStatus,
      });
    }
    const file = o.packageFiles.files[wanted.file];
    if (!file) throw notFound('media');
    size = file.size;
    sha256 = file.sha256;
    contentType = contentTypeOf(wanted.file) ?? 'video/iso.segment';
  }

  const etag = `"${sha256}"`;
  const lastModified = o.uploadedAt.toUTCString();
  const headers: Record<string, string | number> = {
    'Content-Type': contentType,
    'Accept-Ranges': 'bytes',
    ETag: etag,
    'Last-Modified': lastModified,
    // Media of a finished activity never changes (a new upload is refused); before that it may.
    'Cache-Control': target.inProgress ? CACHE_IN_PROGRESS : CACHE_FINISHED,
    'X-Content-Type-Options': 'nosniff',
  };
  if (signed) {
    // A signed URL is its own credential: players on another origin (hls.js, dash.js) may read it.
    headers['Access-Control-Allow-Origin'] = '*';
    headers['Access-Control-Expose-Headers'] = 'Content-Length, Content-Range, Accept-Ranges, ETag';
  }
  if (notModified(req.headers, etag, o.uploadedAt)) {
    delete headers['Content-Type'];
    delete headers['Accept-Ranges'];
    res.writeHead(304, headers).end();
    return;
  }
  const ifRange = req.headers['if-range'];
  const range = rangeStillValid(
    typeof ifRange === 'string' ? ifRange : undefined,
    etag,
    lastModified,
  )
    ? parseRange(req.headers.range, size)
    : ({ kind: 'full' } as const);
  if (range.kind === 'unsatisfiable') {
    sendJson(
      res,
      416,
      {
        error: {
          code: 'INVALID_ARGUMENT',
          message: `the range is outside the ${size} bytes of the object`,
          details: { field: 'Range' },
        },
      },
      { 'Content-Range': `bytes */${size}`, ETag: etag, 'Cache-Control': 'no-store' },
    );
    return;
  }
  const key = objectKey(target, wanted.file);
  const part = range.kind === 'partial' ? range.range : undefined;
  const status = part ? 206 : 200;
  if (part) headers['Content-Range'] = `bytes ${part.start}-${part.end}/${size}`;
  headers['Content-Length'] = part ? part.end - part.start + 1 : size;
  if (req.method === 'HEAD') {
    res.writeHead(status, headers).end();
    return;
  }
  let body;
  try {
    body = await store.read(key, part);
  } catch (err) {
    if (err instanceof ObjectMissing) throw notFound('media');
    throw err;
  }
  res.writeHead(status, headers);
  await send(body, res);
}

/**
 * Streams `body` into `res`; resolves once the response is over, finished or broken. A body that
 * fails cuts the response (its headers are out: it cannot be repaired), and a client that goes
 * away stops the body. This is what `stream.pipeline` does, less the AbortController and
 * DOMException it makes on every call, which cost 3 % of the time serving 64 KiB ranges.
 */
function send(body: Readable, res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    body.once('error', () => res.destroy());
    res.once('close', () => {
      body.destroy();
      resolve();
    });
    body.pipe(res);
  });
}
