import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { text } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FsMediaStore } from '../../src/media/fs-store.ts';
import { S3MediaStore } from '../../src/media/s3-store.ts';
import { ObjectMissing, type MediaStore } from '../../src/media/store.ts';
import { startS3 } from './helpers.ts';

describe.each(['fs', 's3'] as const)('the %s media store', (kind) => {
  let dir: string;
  let store: MediaStore;
  let s3: Awaited<ReturnType<typeof startS3>> | undefined;

  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'clipgate-store-'));
    if (kind === 's3') {
      s3 = await startS3();
      store = new S3MediaStore({
        bucket: s3.env.MEDIA_S3_BUCKET!,
        endpoint: s3.env.MEDIA_S3_ENDPOINT,
        region: 'us-east-1',
        accessKeyId: 'S3RVER',
        secretAccessKey: 'S3RVER',
        prefix: 'tenant-a',
      });
    } else {
      store = new FsMediaStore(path.join(dir, 'media'));
    }
  });
  afterAll(async () => {
    store.close();
    await s3?.close();
    await fs.rm(dir, { recursive: true, force: true });
  });

  const file = async (content: string) => {
    const f = path.join(dir, `in-${Math.random().toString(36).slice(2)}`);
    await fs.writeFile(f, content);
    return f;
  };

  it('stores a file, consuming it, and reads it whole or by range', async () => {
    const input = await file('0123456789');
    await store.put('acc/act/up1/clip.mp4', input, 'video/mp4');
    await expect(fs.access(input)).rejects.toThrow();
    expect(await text(await store.read('acc/act/up1/clip.mp4'))).toBe('0123456789');
    expect(await text(await store.read('acc/act/up1/clip.mp4', { start: 2, end: 4 }))).toBe('234');
    expect(await text(await store.read('acc/act/up1/clip.mp4', { start: 9, end: 9 }))).toBe('9');
    const copy = await store.localCopy('acc/act/up1/clip.mp4', path.join(dir, 'tmp'));
    expect(await fs.readFile(copy.path, 'utf8')).toBe('0123456789');
    await copy.release();
  });

  it('lists and deletes by prefix, and reports missing objects', async () => {
    await store.put('acc/act/up2/pkg-1/hls/activity.m3u8', await file('#EXTM3U'), 'text/plain');
    await store.put('acc/act/up2/pkg-1/activity.mpd', await file('<MPD/>'), 'text/plain');
    await store.put('acc/other/up3/image.jpg', await file('jpg'), 'image/jpeg');
    expect(await store.list('acc/act/')).toEqual([
      'acc/act/up1/clip.mp4',
      'acc/act/up2/pkg-1/activity.mpd',
      'acc/act/up2/pkg-1/hls/activity.m3u8',
    ]);
    expect(await store.deletePrefix('acc/act/up2/')).toBe(2);
    expect(await store.list('acc/act/')).toEqual(['acc/act/up1/clip.mp4']);
    expect(await store.deletePrefix('acc/act/')).toBe(1);
    expect(await store.deletePrefix('acc/act/')).toBe(0);
    expect(await store.list('acc/')).toEqual(['acc/other/up3/image.jpg']);
    await expect(store.read('acc/act/up1/clip.mp4')).rejects.toBeInstanceOf(ObjectMissing);
    await expect(store.localCopy('acc/act/up1/clip.mp4', dir)).rejects.toBeInstanceOf(
      ObjectMissing,
    );
  });

  it('refuses keys that could leave its root', async () => {
    for (const key of ['../x', 'a/../b', '/abs', 'a//b', '.hidden/x', '']) {
      await expect(store.read(key)).rejects.toThrow(/invalid media key/);
    }
    await expect(store.deletePrefix('../')).rejects.toThrow(/invalid media key/);
  });
});
