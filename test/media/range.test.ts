import { describe, expect, it } from 'vitest';
import { notModified, parseRange, rangeStillValid } from '../../src/media/range.ts';

describe('Range', () => {
  const size = 1000;
  it.each([
    ['bytes=0-99', { kind: 'partial', range: { start: 0, end: 99 } }],
    ['bytes=900-', { kind: 'partial', range: { start: 900, end: 999 } }],
    ['bytes=-100', { kind: 'partial', range: { start: 900, end: 999 } }],
    ['bytes=-5000', { kind: 'partial', range: { start: 0, end: 999 } }],
    ['bytes=990-5000', { kind: 'partial', range: { start: 990, end: 999 } }],
    ['BYTES = 1-1', { kind: 'partial', range: { start: 1, end: 1 } }],
    ['bytes=1000-', { kind: 'unsatisfiable' }],
    ['bytes=1000-2000', { kind: 'unsatisfiable' }],
    ['bytes=-0', { kind: 'unsatisfiable' }],
    // What a server may ignore: the whole object.
    ['bytes=5-1', { kind: 'full' }],
    ['bytes=0-1,5-6', { kind: 'full' }],
    ['items=0-1', { kind: 'full' }],
    ['bytes=', { kind: 'full' }],
    ['bytes=-', { kind: 'full' }],
    ['bytes=a-b', { kind: 'full' }],
    ['bytes=99999999999999999999-', { kind: 'full' }],
  ])('%s', (header, answer) => {
    expect(parseRange(header, size)).toEqual(answer);
  });

  it('never satisfies a range of an empty object', () => {
    expect(parseRange('bytes=0-', 0)).toEqual({ kind: 'unsatisfiable' });
    expect(parseRange('bytes=-1', 0)).toEqual({ kind: 'unsatisfiable' });
    expect(parseRange(undefined, 0)).toEqual({ kind: 'full' });
  });
});

describe('conditional requests', () => {
  const etag = '"abc"';
  const modified = new Date('2026-11-21T10:00:00.500Z');
  it('answers If-None-Match by weak comparison, before If-Modified-Since', () => {
    expect(notModified({ 'if-none-match': '"abc"' }, etag, modified)).toBe(true);
    expect(notModified({ 'if-none-match': 'W/"abc"' }, etag, modified)).toBe(true);
    expect(notModified({ 'if-none-match': '"x", "abc"' }, etag, modified)).toBe(true);
    expect(notModified({ 'if-none-match': '*' }, etag, modified)).toBe(true);
    expect(notModified({ 'if-none-match': '"x"' }, etag, modified)).toBe(false);
    expect(
      notModified(
        { 'if-none-match': '"x"', 'if-modified-since': modified.toUTCString() },
        etag,
        modified,
      ),
    ).toBe(false);
    expect(notModified({ 'if-modified-since': modified.toUTCString() }, etag, modified)).toBe(true);
    expect(
      notModified({ 'if-modified-since': 'Sat, 21 Nov 2026 09:59:59 GMT' }, etag, modified),
    ).toBe(false);
    expect(notModified({ 'if-modified-since': 'garbage' }, etag, modified)).toBe(false);
  });

  it('applies a Range only while If-Range still matches (strong comparison)', () => {
    const lm = modified.toUTCString();
    expect(rangeStillValid(undefined, etag, lm)).toBe(true);
    expect(rangeStillValid('"abc"', etag, lm)).toBe(true);
    expect(rangeStillValid('W/"abc"', etag, lm)).toBe(false);
    expect(rangeStillValid('"old"', etag, lm)).toBe(false);
    expect(rangeStillValid(lm, etag, lm)).toBe(true);
    expect(rangeStillValid('Mon, 01 Jan 2024 00:00:00 GMT', etag, lm)).toBe(false);
  });
});
