import type { ByteRange } from './store.ts';

export type RangeAnswer =
  { kind: 'full' } | { kind: 'partial'; range: ByteRange } | { kind: 'unsatisfiable' };

const SPEC = /^(\d*)-(\d*)$/;

/**
 * The answer to a `Range` header (RFC 9110 14.2) for an object of `size` bytes. One range is
 * served as a 206; a header the server may ignore (another unit, bad syntax, several ranges) is
 * served as the whole object, as the RFC allows; a syntactically valid range that starts at or
 * after the end is a 416.
 */
export function parseRange(header: string | undefined, size: number): RangeAnswer {
  if (header === undefined) return { kind: 'full' };
  const m = /^\s*bytes\s*=\s*(.*)$/i.exec(header);
  if (!m) return { kind: 'full' };
  const specs = m[1]!.split(',').map((s) => s.trim());
  if (specs.length !== 1) return { kind: 'full' };
  const spec = SPEC.exec(specs[0]!);
  if (!spec || (spec[1] === '' && spec[2] === '')) return { kind: 'full' };
  const [first, last] = [spec[1]!, spec[2]!];
  if (first === '') {
    // A suffix: the last n bytes.
    const n = Number(last);
    if (!Number.isSafeInteger(n)) return { kind: 'full' };
    if (n === 0 || size === 0) return { kind: 'unsatisfiable' };
    return { kind: 'partial', range: { start: Math.max(0, size - n), end: size - 1 } };
  }
  const start = Number(first);
  const end = last === '' ? Number.MAX_SAFE_INTEGER : Number(last);
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || end < start) {
    return { kind: 'full' };
  }
  if (start >= size) return { kind: 'unsatisfiable' };
  return { kind: 'partial', range: { start, end: Math.min(end, size - 1) } };
}

/** The entity tags of an `If-None-Match` / `If-Range` list, without `W/` (weak comparison). */
function tags(header: string): string[] {
  return header
    .split(',')
    .map((t) => t.trim().replace(/^W\//, ''))
    .filter(Boolean);
}

/** `If-None-Match`: true when the client's copy is current (answer 304). */
export function notModified(
  headers: { 'if-none-match'?: string; 'if-modified-since'?: string },
  etag: string,
  lastModified: Date,
): boolean {
  const inm = headers['if-none-match'];
  if (inm !== undefined) {
    const list = tags(inm);
    return list.includes('*') || list.includes(etag);
  }
  const ims = headers['if-modified-since'];
  if (ims !== undefined) {
    const since = Date.parse(ims);
    return Number.isFinite(since) && Math.floor(lastModified.getTime() / 1000) * 1000 <= since;
  }
  return false;
}

/** `If-Range`: the Range applies only if the validator still matches (strong comparison). */
export function rangeStillValid(ifRange: string | undefined, etag: string, lastModified: string) {
  if (ifRange === undefined) return true;
  const value = ifRange.trim();
  if (value.startsWith('"')) return value === etag;
  return value === lastModified;
}
