import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.ts';
import { MediaSigner } from '../../src/media/signing.ts';

const accessoryId = '0f8fad5b-d9cb-469f-a165-70867728950e';
const activityId = '20261121T204117Z';

function denied(fn: () => void): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('PERMISSION_DENIED');
    expect((err as AppError).status).toBe(403);
    return (err as AppError).message;
  }
  throw new Error('not denied');
}

describe('signed media URLs', () => {
  const signer = new MediaSigner('a-secret-of-some-length', 300);

  it('accepts its own tokens until they expire', () => {
    const now = Date.parse('2026-11-21T20:41:17Z');
    const expires = signer.expiry(now);
    expect(expires * 1000).toBeGreaterThanOrEqual(now + 300_000);
    expect(expires * 1000).toBeLessThanOrEqual(now + 360_000);
    expect(expires % 60).toBe(0);
    const token = signer.token(accessoryId, activityId, expires);
    expect(token).toMatch(/^\d+\.[\w-]{43}$/);
    signer.verify(accessoryId, activityId, token, now);
    signer.verify(accessoryId, activityId, token, expires * 1000 - 1);
    expect(denied(() => signer.verify(accessoryId, activityId, token, expires * 1000))).toMatch(
      /expired/,
    );
  });

  it('hands out the same URL within a step, so that browsers can cache', () => {
    const now = Date.parse('2026-11-21T20:41:01Z');
    expect(signer.expiry(now)).toBe(signer.expiry(now + 59_000));
    expect(signer.expiry(now)).toBe(Date.parse('2026-11-21T20:47:00Z') / 1000);
    const token = signer.token(accessoryId, activityId, 5);
    expect(signer.base(accessoryId, activityId, token)).toBe(
      `/api/accessories/${accessoryId}/activities/${activityId}/signed/${token}/`,
    );
  });

  it('refuses tampered tokens, other activities and other secrets', () => {
    const token = signer.token(accessoryId, activityId);
    const [expires, mac] = token.split('.') as [string, string];
    denied(() => signer.verify(accessoryId, activityId, `${Number(expires) + 1}.${mac}`));
    denied(() => signer.verify(accessoryId, '20261121T204118Z', token));
    denied(() => signer.verify('1f8fad5b-d9cb-469f-a165-70867728950e', activityId, token));
    denied(() => signer.verify(accessoryId, activityId, `${expires}.${mac.slice(1)}`));
    denied(() => signer.verify(accessoryId, activityId, `${expires}`));
    denied(() => signer.verify(accessoryId, activityId, ''));
    const other = new MediaSigner('another-secret-entirely', 300);
    denied(() => other.verify(accessoryId, activityId, token));
    // Instances configured with the same secret accept each other's URLs.
    new MediaSigner('a-secret-of-some-length', 60).verify(accessoryId, activityId, token);
  });

  it('gives null URLs for media that does not exist, absolute ones with a base URL', () => {
    expect(
      signer.urls(accessoryId, activityId, { image: false, mp4: false, packaged: false }),
    ).toBeNull();
    const some = signer.urls(accessoryId, activityId, { image: true, mp4: true, packaged: false })!;
    expect(some.mpd).toBeNull();
    expect(some.hls).toBeNull();
    expect(some.image).toMatch(/\/image$/);
    const absolute = new MediaSigner('a-secret-of-some-length', 300, 'https://media.example.com');
    const all = absolute.urls(accessoryId, activityId, {
      image: false,
      mp4: true,
      packaged: true,
    })!;
    expect(all.image).toBeNull();
    expect(all.mp4).toMatch(
      /^https:\/\/media\.example\.com\/api\/accessories\/.*\/signed\/.*\/mp4$/,
    );
    expect(all.hls).toMatch(/\/hls\/activity\.m3u8$/);
    expect(all.mpd).toMatch(/\/mpd$/);
  });

  it('signs an export for its accessory and exactly its range, with a key of its own', () => {
    const range = {
      start: new Date('2026-11-21T20:00:00Z'),
      end: new Date('2026-11-21T21:00:00Z'),
    };
    const token = signer.exportToken(accessoryId, range);
    signer.verifyExport(accessoryId, range, token);
    // The same instants written in another zone are the same range.
    signer.verifyExport(
      accessoryId,
      { start: new Date('2026-11-21T21:00:00+01:00'), end: range.end },
      token,
    );
    denied(() =>
      signer.verifyExport(accessoryId, { ...range, end: new Date(range.end.getTime() + 1) }, token),
    );
    denied(() => signer.verifyExport('1f8fad5b-d9cb-469f-a165-70867728950e', range, token));
    const url = signer.exportUrl(accessoryId, range, token);
    expect(url).toBe(
      `/api/accessories/${accessoryId}/signed/${token}/export.mp4?start=2026-11-21T20%3A00%3A00.000Z&end=2026-11-21T21%3A00%3A00.000Z`,
    );
    // Neither kind of signature opens the other, even over the same text.
    denied(() =>
      signer.verify(accessoryId, '2026-11-21T20:00:00.000Z/2026-11-21T21:00:00.000Z', token),
    );
    const expires = Number(token.split('.')[0]);
    denied(() => signer.verifyExport(accessoryId, range, signer.token(accessoryId, 'x', expires)));
    denied(() => signer.verifyExport(accessoryId, range, token, expires * 1000));
  });

  it('generates a secret into the data directory once and reuses it', async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'clipgate-signing-'));
    try {
      const options = { secret: undefined, ttlS: 300, baseUrl: undefined, dataDir };
      const first = await MediaSigner.create(options);
      const second = await MediaSigner.create(options);
      expect(first.generated).toBe(true);
      expect(second.generated).toBe(false);
      const token = first.signer.token(accessoryId, activityId);
      second.signer.verify(accessoryId, activityId, token);
      const configured = await MediaSigner.create({ ...options, secret: 'x'.repeat(32) });
      expect(configured.generated).toBeUndefined();
      denied(() => configured.signer.verify(accessoryId, activityId, token));
    } finally {
      await fs.rm(dataDir, { recursive: true, force: true });
    }
  });
});
