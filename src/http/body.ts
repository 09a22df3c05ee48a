import type { IncomingMessage } from 'node:http';
import { AppError, invalidArgument } from '../errors.ts';

/** The body's length as its `Content-Length` declares it; NaN when absent or malformed. */
export const declaredLength = (req: IncomingMessage): number =>
  Number(req.headers['content-length'] ?? NaN);

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
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw tooLarge(limit);
    chunks.push(chunk);
  }
  if (size === 0) return {};
  const type = req.headers['content-type'];
  if (ndjson && type && /^application\/x-ndjson\s*(;|$)/i.test(type)) {
    return readLines(Buffer.concat(chunks).toString('utf8'));
  }
  if (!type || !/^application\/json\s*(;|$)/i.test(type)) {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'the request body must be application/json');
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
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
