import type { IncomingMessage } from 'node:http';
import { AppError, invalidArgument } from '../errors.ts';

/** The body's length as its `Content-Length` declares it; NaN when absent or malformed. */
export const declaredLength = (req: IncomingMessage): number =>
  Number(req.headers['content-length'] ?? NaN);

/**
 * The bytes of a request's body, at most `limit` of them; undefined when more arrive (the rest is
 * then read and dropped, so that the answer can still be written; the HTTP server closes such a
 * connection once it is). It listens to the stream's events instead of iterating it: an async
 * iterator sets up an end-of-stream watcher and a promise per request and chunk, a visible share
 * of the CPU of a request with a small body.
 */
export function readBodyBytes(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = () => {
      req.off('data', data);
      req.off('end', end);
      req.off('error', failed);
      req.off('close', closed);
    };
    const data = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) {
        chunks.push(chunk);
        return;
      }
      settle();
      req.resume();
      resolve(undefined);
    };
    const end = () => {
      settle();
      resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size));
    };
    const failed = (err: Error) => {
      settle();
      reject(err);
    };
    const closed = () =>
      failed(Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' }));
    req.on('data', data);
    req.on('end', end);
    req.on('error', failed);
    req.on('close', closed);
  });
}

/**
 * Reads a JSON request body of at most `limit` bytes; an absent body reads as `{}`. With
 * `ndjson`, an `application/x-ndjson` body (one JSON value per line, blank lines skipped) is
 * read too, as the array of its values.
 */
export async function readJsonBody(
  req: IncomingMessage,
  limit: number,
  ndjson = false,
): Promise<unknown> {
  if (declaredLength(req) > limit) throw tooLarge(limit);
  const body = await readBodyBytes(req, limit);
  if (!body) throw tooLarge(limit);
  if (body.length === 0) return {};
  const type = req.headers['content-type'];
  if (ndjson && type && /^application\/x-ndjson\s*(;|$)/i.test(type)) {
    return readLines(body.toString('utf8'));
  }
  if (!type || !/^application\/json\s*(;|$)/i.test(type)) {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'the request body must be application/json');
  }
  try {
    return JSON.parse(body.toString('utf8'));
  } catch (err) {
    throw invalidArgument('body', `the body is not valid JSON: ${(err as Error).message}`);
  }
}

function readLines(text: string): unknown[] {
  return text.split('\n').flatMap((line, i) => {
    if (line.trim() === '') return [];
    try {
      return [JSON.parse(line)];
    } catch (err) {
      throw invalidArgument('body', `line ${i + 1} is not valid JSON: ${(err as Error).message}`);
    }
  });
}

const tooLarge = (limit: number) =>
  new AppError('PAYLOAD_TOO_LARGE', `the request body exceeds ${limit} bytes`, { limit });
