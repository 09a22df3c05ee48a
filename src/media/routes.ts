import type { IncomingMessage, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import { admit } from '../context.ts';
import type { Services } from '../services.ts';
import { AppError, notFound } from '../errors.ts';
import { sendJson } from '../http/json.ts';
import type { DocumentedOperation } from '../http/openapi.ts';
import { clientDigest } from './digest.ts';
import type { MediaAccess } from './lookup.ts';
import { contentTypeOf, objectKey, type MediaKind, type MediaTarget } from './model.ts';
import { notModified, parseRange, rangeStillValid } from './range.ts';
import { ObjectMissing, type MediaStore } from './store.ts';

/**
 * The media paths, under `/api/accessories/{accessoryId}/activities/{activityId}`:
 *
 *     GET|HEAD  /image  /mp4  /mpd  /dash/{file}  /hls/activity.m3u8  /hls/{file}
 *     PUT       /image  /mp4                      (ingest)
 *
 * and the same reads under `.../{activityId}/signed/{expires}.{mac}/...` without a bearer token.
 * This is the HTTP side of media: it reads the headers and the body stream and hands the media
 * service plain values (src/media/service.ts).
 */
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
  const m = MEDIA_PATH.exec(pathname);
  if (!m) return undefined;
  const [accessoryId, activityId] = [decode(m[1]!), decode(m[2]!)];
  const token = m[3] && decode(m[3]);
  const name = m[4]!;
  const method = req.method ?? 'GET';
  const media = services.media;
  try {
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
      const allow = !token && (name === 'image' || name === 'mp4') ? 'GET, HEAD, PUT' : 'GET, HEAD';
      throw new AppError(
        'METHOD_NOT_ALLOWED',
        `${method} is not allowed here`,
        {},
        { Allow: allow },
      );
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
  } catch (err) {
    // Errors are never cached: the media may appear, or the URL be renewed, a moment later.
    if (err instanceof AppError) err.headers['Cache-Control'] ??= 'no-store';
    throw err;
  }
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
  try {
    await pipeline(body, res);
  } catch {
    // The client went away (or the store failed mid-way): the response cannot be repaired.
    res.destroy();
  }
}

// ------------------------------------------------------------------ OpenAPI

const base = '/api/accessories/{accessoryId}/activities/{activityId}';
const errors = {
  default: {
    description: 'An error',
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
  },
};

const pathParam = (name: string, description?: string) => ({
  name,
  in: 'path',
  required: true,
  schema: { type: 'string' },
  ...(description && { description }),
});

const readHeaders = [
  {
    name: 'Range',
    in: 'header',
    required: false,
    schema: { type: 'string' },
    description:
      'One byte range, e.g. `bytes=0-1023`; several ranges are answered with the whole object.',
  },
  { name: 'If-None-Match', in: 'header', required: false, schema: { type: 'string' } },
  { name: 'If-Range', in: 'header', required: false, schema: { type: 'string' } },
];

const readResponses = (contentType: string) => ({
  200: {
    description: `The object. \`Cache-Control: ${CACHE_IN_PROGRESS}\` while the activity is in progress, \`${CACHE_FINISHED}\` once finished; strong \`ETag\` (its SHA-256), \`Accept-Ranges: bytes\`.`,
    content: { [contentType]: { schema: { type: 'string', format: 'binary' } } },
  },
  206: { description: 'The requested byte range, with `Content-Range`.' },
  304: { description: '`If-None-Match` matched the ETag.' },
  403: {
    description: 'Signed form: the signature is not valid or has expired (PERMISSION_DENIED).',
  },
  404: { description: 'No such activity (or one of another account), or no such media.' },
  416: { description: 'The range starts past the end; `Content-Range: bytes */{size}`.' },
  ...errors,
});

const packagedNote = `Packaged from the MP4 in the background when it is uploaded (ffmpeg, \`-c copy\`); until then 503 UNAVAILABLE with \`Retry-After: ${PACKAGING_RETRY_AFTER_S}\`, and 404 if the clip could not be packaged. Relative URLs inside resolve under the same (signed) path.`;

const reads: { suffix: string; summary: string; type: string; file?: boolean }[] = [
  { suffix: 'image', summary: "The activity's JPG", type: 'image/jpeg' },
  { suffix: 'mp4', summary: "The activity's MP4, with byte ranges", type: 'video/mp4' },
  { suffix: 'mpd', summary: `The DASH manifest. ${packagedNote}`, type: 'application/dash+xml' },
  {
    suffix: 'dash/{file}',
    summary: 'A DASH init or media segment',
    type: 'video/iso.segment',
    file: true,
  },
  {
    suffix: 'hls/activity.m3u8',
    summary: `The HLS playlist (fMP4 segments). ${packagedNote}`,
    type: 'application/vnd.apple.mpegurl',
  },
  {
    suffix: 'hls/{file}',
    summary: 'An HLS init or media segment',
    type: 'video/iso.segment',
    file: true,
  },
];

const upload = (kind: MediaKind, type: string, limitVar: string) => ({
  summary: `Upload the activity's ${kind === 'mp4' ? 'MP4 (packaged to HLS and DASH afterwards)' : 'JPG'}`,
  description: `Ingest. The body is streamed to storage, at most ${limitVar} bytes (413), as \`${type}\` (415) with matching magic bytes (400). Optional \`Content-Digest: sha-256=:<base64>:\` or \`X-Checksum-SHA256: <hex>\`: the upload is refused (400) if the body does not match. Media of a finished activity cannot change (409), except by the same bytes again (200, idempotent). 201 on the first upload, 200 on a replacement.`,
  parameters: [
    pathParam('accessoryId'),
    pathParam('activityId'),
    {
      name: 'Content-Digest',
      in: 'header',
      required: false,
      schema: { type: 'string' },
      description: 'RFC 9530, e.g. `sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:`',
    },
  ],
  requestBody: {
    required: true,
    content: { [type]: { schema: { type: 'string', format: 'binary' } } },
  },
  responses: {
    '200': { description: 'Replaced (or the same bytes again)', content: uploadResult },
    '201': { description: 'Stored', content: uploadResult },
    ...errors,
  },
});

const uploadResult = {
  'application/json': {
    schema: {
      type: 'object',
      required: [
        'accessoryId',
        'activityId',
        'kind',
        'contentType',
        'size',
        'sha256',
        'uploadedAt',
      ],
      properties: {
        accessoryId: { type: 'string' },
        activityId: { type: 'string' },
        kind: { type: 'string', enum: ['image', 'mp4'] },
        contentType: { type: 'string' },
        size: { type: 'integer' },
        sha256: { type: 'string', description: 'hex' },
        uploadedAt: { type: 'string', format: 'date-time' },
        packaging: {
          type: ['string', 'null'],
          enum: ['queued', 'running', 'ready', 'failed', null],
          description: 'MP4: the HLS/DASH packaging status.',
        },
      },
    },
  },
};

/** The media operations for /openapi.json (they are served outside the JSON route table). */
export function mediaOpenApi(scopePrefix: string): DocumentedOperation[] {
  const ops: DocumentedOperation[] = [];
  for (const r of reads) {
    const params = [pathParam('accessoryId'), pathParam('activityId')];
    if (r.file) params.push(pathParam('file'));
    const bearer = {
      summary: r.summary,
      security: [{ oauth2: [`${scopePrefix}:activities_basic`] }],
      parameters: [...params, ...readHeaders],
      responses: readResponses(r.type),
    };
    const signed = {
      summary: `${r.summary} (signed URL, as handed out in the \`media\` extra field)`,
      description:
        'No bearer token: the path segment `{signature}` (`{expires}.{mac}`) is the credential, valid for one activity until it expires (MEDIA_URL_TTL_S).',
      security: [],
      parameters: [
        ...params,
        pathParam('signature', 'unix expiry and HMAC, from a media URL'),
        ...readHeaders,
      ],
      responses: readResponses(r.type),
    };
    for (const method of ['get', 'head'] as const) {
      const head = method === 'head' ? { summary: `${r.summary}: headers only` } : {};
      ops.push({ method, path: `${base}/${r.suffix}`, operation: { ...bearer, ...head } });
      ops.push({
        method,
        path: `${base}/signed/{signature}/${r.suffix}`,
        operation: { ...signed, ...head },
      });
    }
  }
  const scoped = (op: ReturnType<typeof upload>) => ({
    ...op,
    security: [{ oauth2: [`${scopePrefix}:ingest`] }],
  });
  ops.push({
    method: 'put',
    path: `${base}/image`,
    operation: scoped(upload('image', 'image/jpeg', 'MEDIA_MAX_IMAGE_BYTES')),
  });
  ops.push({
    method: 'put',
    path: `${base}/mp4`,
    operation: scoped(upload('mp4', 'video/mp4', 'MEDIA_MAX_MP4_BYTES')),
  });
  return ops;
}
