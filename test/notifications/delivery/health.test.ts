import { describe, expect, it } from 'vitest';
import {
  CLEAR_EVERY_MS,
  ClearSchedule,
  disableDue,
  healthStep,
} from '../../../src/notifications/delivery/health.ts';
import { reserve } from '../../../src/notifications/delivery/throttle.ts';

describe('receiver health policy', () => {
  it("counts only the receiver's own answers", () => {
    expect(healthStep({ outcome: 'accepted', error: null })).toBe('succeeded');
    expect(healthStep({ outcome: 'failed', error: null })).toBe('failed');
    expect(healthStep({ outcome: 'failed', error: 'timeout' })).toBe('failed');
    expect(healthStep({ outcome: 'failed', error: 'key_unavailable' })).toBe('none');
    expect(healthStep({ outcome: 'gone', error: null })).toBe('none');
  });

  it('disables after the given hours of failures, never with 0', () => {
    const since = new Date('2026-11-20T00:00:00Z');
    const at = (hours: number) => new Date(since.getTime() + hours * 3_600_000);
    expect(disableDue(since, at(71.99), 72)).toBe(false);
    expect(disableDue(since, at(72), 72)).toBe(true);
    expect(disableDue(since, at(1000), 0)).toBe(false);
  });

  it('clears after a failure at once, otherwise at most once a minute', () => {
    const s = new ClearSchedule();
    expect(s.succeeded('a', 0)).toBe(true);
    expect(s.succeeded('a', 10)).toBe(false);
    s.failed('a');
    expect(s.succeeded('a', 20)).toBe(true);
    expect(s.succeeded('a', 30)).toBe(false);
    expect(s.succeeded('a', 20 + CLEAR_EVERY_MS)).toBe(true);
    expect(s.succeeded('b', 30)).toBe(true);
  });
});

describe('rate gate', () => {
  it('spaces starts 1/rate apart and defers what would wait too long', () => {
    let next: number | null = null;
    const waits: number[] = [];
    for (let i = 0; i < 5; i++) {
      const d = reserve(next, 1000, 4, 600);
      if ('deferMs' in d) {
        waits.push(-d.deferMs);
        continue;
      }
      waits.push(d.waitMs);
      next = d.next;
    }
    // 4 per second: 0, 250, 500 ms; the start at 750 ms is more than 600 ms away: back in
    // 750 - 300 ms, to wait for it then.
    expect(waits).toEqual([0, 250, 500, -450, -450]);
  });

  it('does not bank unused time: an idle receiver starts now', () => {
    expect(reserve(500, 10_000, 10)).toEqual({ waitMs: 0, next: 10_100 });
    expect(reserve(null, 10_000, 3)).toEqual({ waitMs: 0, next: 10_333 });
  });
});
