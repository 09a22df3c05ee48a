import { z } from 'zod';
import {
  anyScope,
  errorResponse,
  errorResponsesFor,
  pathParametersOf,
  type DocumentedOperation,
  type ErrorResponse,
} from '../openapi.ts';
import { timestamp, uuid } from '../../schemas.ts';
import { EXPORT_RETRY_AFTER_S } from '../../media/export.ts';
import { CACHE_FINISHED, CACHE_IN_PROGRESS, PACKAGING_RETRY_AFTER_S } from './media.ts';
import type { MediaKind } from '../../media/model.ts';

// The media operations of /openapi.json, as media.ts beside it serves them.

const base = '/api/accessories/{accessoryId}/activities/{activityId}';

const binary = { type: 'string', format: 'binary' };

const header = (name: string, description: string) => ({
  name,
  in: 'header',
  required: false,
  schema: { type: 'string' },
  description,
});

const readHeaders = [
  header(
    'Range',
    'One byte range, e.g. `bytes=0-1023` or `bytes=-500`; several ranges, another unit or bad syntax are answered with the whole object (200)',
  ),
  header('If-None-Match', 'An ETag seen before: 304 when it still matches'),
  header('If-Range', 'An ETag or date: the range is served only if the object is still that one'),
];

const responseHeader = (description: string) => ({ description, schema: { type: 'string' } });

const objectHeaders = {
  ETag: responseHeader('Strong: the SHA-256 of the object, in hex'),
  'Cache-Control': responseHeader(
    `\`${CACHE_IN_PROGRESS}\` while the activity is in progress, \`${CACHE_FINISHED}\` once it is finished`,
  ),
  'Accept-Ranges': responseHeader('`bytes`'),
  'Content-Length': responseHeader('The bytes sent'),
  'Last-Modified': responseHeader('When the media was uploaded'),
};

interface Read {
  suffix: string;
  operation: string;
  summary: string;
  /** Content types by the file's extension. */
  types: string[];
  /** Made by packaging the MP4: 503 while that runs. */
  packaged?: boolean;
}

const packagedNote = `Packaged from the MP4 in the background after its upload (ffmpeg, \`-c copy\`): 503 UNAVAILABLE with \`Retry-After: ${PACKAGING_RETRY_AFTER_S}\` until then, 404 if the clip could not be packaged. The relative URLs inside resolve under the same (signed) path.`;

const segments = ['video/mp4', 'video/iso.segment'];

const reads: Read[] = [
  { suffix: 'image', operation: 'Image', summary: "The activity's JPG", types: ['image/jpeg'] },
  {
    suffix: 'mp4',
    operation: 'Mp4',
    summary: "The activity's MP4, with byte ranges",
    types: ['video/mp4'],
  },
  {
    suffix: 'mpd',
    operation: 'DashManifest',
    summary: 'The DASH manifest',
    types: ['application/dash+xml'],
    packaged: true,
  },
  {
    suffix: 'dash/{file}',
    operation: 'DashSegment',
    summary: 'A DASH init (`.m4s`) or media segment',
    types: segments,
    packaged: true,
  },
  {
    suffix: 'hls/activity.m3u8',
    operation: 'HlsPlaylist',
    summary: 'The HLS playlist (fMP4 segments)',
    types: ['application/vnd.apple.mpegurl'],
    packaged: true,
  },
  {
    suffix: 'hls/{file}',
    operation: 'HlsSegment',
    summary: 'An HLS init (`init.mp4`) or media segment (`.m4s`)',
    types: segments,
    packaged: true,
  },
];

/** The answers of a read; `head`: the same statuses and headers, without a body. */
function readResponses(read: Read, signed: boolean, head: boolean): Record<string, unknown> {
  const body = (content: object) => (head ? {} : { content });
  const bytes = Object.fromEntries(read.types.map((type) => [type, { schema: binary }]));
  const errors: ErrorResponse[] = [
    ...(signed ? [] : (['Unauthenticated', 'PermissionDenied'] as const)),
    'NotFound',
    'RangeNotSatisfiable',
    ...(read.packaged ? (['Unavailable'] as const) : []),
    'Error',
  ];
  return {
    200: { description: 'The whole object', headers: objectHeaders, ...body(bytes) },
    206: {
      description: 'The byte range asked for',
      headers: {
        ...objectHeaders,
        'Content-Range': responseHeader('`bytes {start}-{end}/{size}`'),
      },
      ...body(bytes),
    },
    304: { description: '`If-None-Match` matched the ETag', headers: { ETag: objectHeaders.ETag } },
    ...errorResponsesFor(...errors),
    ...(signed && {
      403: errorResponse('PERMISSION_DENIED: the signature is not valid, or it expired'),
    }),
  };
}

const uploadResult = z
  .strictObject({
    accessoryId: uuid,
    activityId: z.string(),
    kind: z.enum(['image', 'mp4']),
    contentType: z.string(),
    size: z.int().min(0),
    sha256: z.string().meta({ description: 'Hex; also the `ETag`' }),
    uploadedAt: timestamp,
    packaging: z
      .enum(['queued', 'running', 'ready', 'failed'])
      .nullable()
      .meta({ description: 'MP4: how far HLS/DASH packaging is; null for an image' }),
  })
  .meta({ id: 'MediaUpload' });

function upload(scopePrefix: string, kind: MediaKind, type: string, limitVar: string) {
  const stored = { schema: uploadResult };
  return {
    operationId: `put${kind === 'mp4' ? 'Mp4' : 'Image'}`,
    summary: `Upload the activity's ${kind === 'mp4' ? 'MP4 (packaged to HLS and DASH afterwards)' : 'JPG'}`,
    description: `Ingest. The body is streamed to storage: at most ${limitVar} bytes (413), as \`${type}\` (415) with matching first bytes (400). With \`Content-Digest: sha-256=:<base64>:\` or \`X-Checksum-SHA256: <hex or base64>\` a body that does not match is refused (400) and nothing is kept. Media of a finished activity cannot change (409), except by the same bytes again (200).`,
    security: anyScope(scopePrefix, ['ingest']),
    parameters: [
      ...pathParametersOf(`${base}/${kind}`),
      header(
        'Content-Digest',
        'RFC 9530, e.g. `sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:`',
      ),
      header('X-Checksum-SHA256', 'The SHA-256 of the body, hex or base64'),
    ],
    requestBody: { required: true, content: { [type]: { schema: binary } } },
    responses: {
      200: {
        description: 'Replaced (or the same bytes again)',
        headers: { ETag: objectHeaders.ETag },
        content: { 'application/json': stored },
      },
      201: {
        description: 'Stored: the first upload',
        headers: { ETag: objectHeaders.ETag },
        content: { 'application/json': stored },
      },
      ...errorResponsesFor(
        'BadRequest',
        'Unauthenticated',
        'PermissionDenied',
        'NotFound',
        'Conflict',
        'PayloadTooLarge',
        'UnsupportedMediaType',
        'Error',
      ),
    },
  };
}

const instant = (name: 'start' | 'end', description: string) => ({
  name,
  in: 'query',
  required: true,
  schema: { type: 'string', format: 'date-time' },
  description: `${description}: ISO 8601 with a zone, e.g. \`2026-11-21T20:00:00Z\``,
});

/** GET and HEAD of an export, by token or by a signed URL. */
function exportOperations(scopePrefix: string): DocumentedOperation[] {
  return [false, true].flatMap((signed) => {
    const path = `/api/accessories/{accessoryId}/${signed ? 'signed/{signature}/' : ''}export.mp4`;
    return (['get', 'head'] as const).map((method) => ({
      method,
      path,
      operation: {
        operationId: `${method}Export${signed ? 'Signed' : ''}`,
        summary: `One MP4 of the accessory's clips in a time range${method === 'head' ? ': headers only' : ''}${signed ? ', by a signed URL' : ''}`,
        description: [
          signed
            ? 'No bearer token: the `{signature}` segment of a URL from GraphQL `Accessory.exportUrl` opens this accessory and exactly this range until it expires (MEDIA_URL_TTL_S); a bad or expired one, or another range, is 403. The answer carries `Access-Control-Allow-Origin: *`.'
            : 'An accessory of the caller.',
          'The MP4s of the activities that overlap `[start, end)` (started before `end`, ended after `start` or still in progress), whole and in start order, joined without re-encoding and streamed as a fragmented MP4 while it is made: no `Content-Length`, no byte ranges. Activities without an MP4, past retention, or whose MP4 could not be packaged are left out.',
          `At most EXPORT_MAX_SECONDS between start and end, and clips of at most EXPORT_MAX_BYTES in all (400 naming \`end\`); 404 when no clip overlaps; 503 with \`Retry-After: ${EXPORT_RETRY_AFTER_S}\` while every export slot of the instance (EXPORT_CONCURRENCY) is busy, 429 with \`Retry-After: ${EXPORT_RETRY_AFTER_S}\` while the accessory's account holds its share of them (EXPORT_CONCURRENCY_PER_ACCOUNT).${signed ? ' Each signed URL has a rate limit of its own (EXPORT_URL_RATE_PER_MINUTE; 429 with `Retry-After`).' : ''} HEAD answers the same without making the MP4.`,
          'A download is cut (it ends without its closing chunk) when it runs past EXPORT_TIMEOUT_S or its client reads slower than EXPORT_MIN_READ_BYTES_PER_S.',
        ].join(' '),
        security: signed ? [] : anyScope(scopePrefix, ['activities_basic']),
        parameters: [
          ...pathParametersOf(path),
          instant('start', 'The range start (inclusive)'),
          instant('end', 'The range end (exclusive), after start'),
        ],
        responses: {
          200: {
            description: 'The MP4, streamed',
            headers: {
              'Content-Disposition': responseHeader(
                '`attachment; filename="export-{accessoryId}-{start}-{end}.mp4"`',
              ),
              'Cache-Control': responseHeader('`no-store`'),
              'Accept-Ranges': responseHeader('`none`'),
            },
            ...(method === 'get' && { content: { 'video/mp4': { schema: binary } } }),
          },
          ...errorResponsesFor(
            'BadRequest',
            ...(signed ? [] : (['Unauthenticated', 'PermissionDenied'] as const)),
            'NotFound',
            'Unavailable',
            'Error',
          ),
          ...(signed && {
            403: errorResponse(
              'PERMISSION_DENIED: the signature is not valid for this accessory and range, or it expired',
            ),
          }),
          429: {
            ...errorResponse(
              `RATE_LIMITED: the account runs as many exports on this instance as it may${signed ? ', or this URL was asked for too often' : ''}; try again after \`Retry-After\` seconds`,
            ),
            headers: { 'Retry-After': responseHeader('Seconds') },
          },
        },
      },
    }));
  });
}

/** The media operations for /openapi.json (they are served outside the JSON route table). */
export function mediaOpenApi(scopePrefix: string): DocumentedOperation[] {
  const ops: DocumentedOperation[] = [...exportOperations(scopePrefix)];
  for (const read of reads) {
    for (const signed of [false, true]) {
      const path = `${base}/${signed ? 'signed/{signature}/' : ''}${read.suffix}`;
      for (const method of ['get', 'head'] as const) {
        ops.push({
          method,
          path,
          operation: {
            operationId: `${method}${read.operation}${signed ? 'Signed' : ''}`,
            summary: `${read.summary}${method === 'head' ? ': headers only' : ''}${signed ? ', by a signed URL' : ''}`,
            description: [
              signed
                ? 'No bearer token: the `{signature}` segment of a URL from the `media` extra field (or GraphQL `Activity.media`) is the credential for one activity until it expires (MEDIA_URL_TTL_S); a bad or expired one is 403. The answer carries `Access-Control-Allow-Origin: *`.'
                : 'The activity of an accessory of the caller.',
              read.packaged ? packagedNote : '',
            ]
              .join(' ')
              .trim(),
            security: signed ? [] : anyScope(scopePrefix, ['activities_basic']),
            parameters: [...pathParametersOf(path), ...readHeaders],
            responses: readResponses(read, signed, method === 'head'),
          },
        });
      }
    }
  }
  ops.push({
    method: 'put',
    path: `${base}/image`,
    operation: upload(scopePrefix, 'image', 'image/jpeg', 'MEDIA_MAX_IMAGE_BYTES'),
  });
  ops.push({
    method: 'put',
    path: `${base}/mp4`,
    operation: upload(scopePrefix, 'mp4', 'video/mp4', 'MEDIA_MAX_MP4_BYTES'),
  });
  return ops;
}
