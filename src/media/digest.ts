import type { IncomingHttpHeaders } from 'node:http';
import { invalidArgument } from '../errors.ts';

const HEX64 = /^[0-9a-f]{64}$/;

/**
 * The SHA-256 a client sent with an upload: RFC 9530 `Content-Digest` / `Repr-Digest`
 * (`sha-256=:base64:`), or `X-Checksum-SHA256` (hex or base64). Hex, or undefined when none was
 * sent; a header that holds no SHA-256 is a 400 naming it.
 */
export function clientDigest(headers: IncomingHttpHeaders): string | undefined {
  for (const name of ['content-digest', 'repr-digest']) {
    const header = headers[name];
    if (typeof header !== 'string') continue;
    const m = /(?:^|,)\s*sha-256\s*=\s*:([A-Za-z0-9+/]+={0,2}):/i.exec(header);
    const hex = m && Buffer.from(m[1]!, 'base64').toString('hex');
    if (!hex || !HEX64.test(hex)) {
      throw invalidArgument(name, `${name} must hold sha-256=:<base64 of 32 bytes>:`);
    }
    return hex;
  }
  const plain = headers['x-checksum-sha256'];
  if (typeof plain !== 'string') return undefined;
  const value = plain.trim();
  const hex = HEX64.test(value.toLowerCase())
    ? value.toLowerCase()
    : Buffer.from(value, 'base64').toString('hex');
  if (!HEX64.test(hex)) {
    throw invalidArgument('X-Checksum-SHA256', 'X-Checksum-SHA256 must be 32 bytes, hex or base64');
  }
  return hex;
}
