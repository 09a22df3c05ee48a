import type { DocumentedOperation } from '../http/openapi.ts';
import { CACHE_FINISHED, CACHE_IN_PROGRESS, PACKAGING_RETRY_AFTER_S } from './routes.ts';
import type { MediaKind } from './service.ts';

// The media operations of /openapi.json, as routes.ts serves them.

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
