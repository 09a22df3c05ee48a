import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isoString } from '../src/iso-time.ts';

describe('isoString', () => {
  it("writes every instant as Date's toISOString does", () => {
    fc.assert(
      fc.property(fc.integer({ min: -62_198_755_200_000, max: 8_640_000_000_000_000 }), (ms) => {
        const date = new Date(ms);
        expect(isoString(date)).toBe(date.toISOString());
      }),
      { numRuns: 20_000 },
    );
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 253_402_300_799_999 }), (ms) => {
        const date = new Date(ms);
        expect(isoString(date)).toBe(date.toISOString());
      }),
      { numRuns: 50_000 },
    );
    for (const text of [
      '1970-01-01T00:00:00.000Z',
      '2000-02-29T23:59:59.999Z',
      '2100-02-28T12:00:00.001Z',
      '2400-02-29T00:00:00.000Z',
      '9999-12-31T23:59:59.999Z',
      '10000-01-01T00:00:00.000Z',
      '1969-12-31T23:59:59.999Z',
    ]) {
      const date = new Date(text.startsWith('10000') ? '+010000-01-01T00:00:00.000Z' : text);
      expect(isoString(date)).toBe(date.toISOString());
    }
  });

  it('throws for an invalid date, as toISOString does', () => {
    expect(() => isoString(new Date(Number.NaN))).toThrow(RangeError);
  });
});
