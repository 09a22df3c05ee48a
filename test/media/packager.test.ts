import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireTool } from '../../src/media/ffmpeg.ts';
import { NO_FFMPEG } from '../../src/media/ffmpeg.ts';
import { startApp, type TestApp } from '../helpers/app.ts';
import { rest } from '../helpers/client.ts';
import { CreateActivity, ok, seedAccessory } from '../helpers/fixtures.ts';
import { fetchBytes, makeClip, mediaPath, upload, waitFor, type Clip } from './helpers.ts';

// The queue on the embedded database and the filesystem store only: what it does does not
// depend on either (media.test.ts covers both of each).
describe('the packaging queue', () => {
  let clip: Clip;
  let t: TestApp;
  let ingest: string;
  let reader: string;
  let accessoryId: string;

  beforeAll(async () => {
    clip = await makeClip();
    // ffmpeg, slowed down, so that jobs overlap and a manifest can be asked for too early.
    const ffmpeg = path.join(clip.dir, 'slow-ffmpeg');
    const real = JSON.stringify(requireTool('ffmpeg'));
    await fs.writeFile(ffmpeg, `#!/bin/sh\nsleep 0.4\nexec ${real} "$@"\n`, { mode: 0o755 });
    t = await startApp('pglite', {
      FFMPEG_PATH: ffmpeg,
      MEDIA_PACKAGER_CONCURRENCY: '1',
      MEDIA_PACKAGER_QUEUE_MAX: '1',
      MEDIA_PACKAGER_POLL_MS: '200',
      MEDIA_SEGMENT_S: '1',
    });
    ({ ingest, accessoryId } = await seedAccessory(t, 'queue-user', 'cam-queue'));
    reader = await t.token(['activities_basic'], 'queue-user');
  });
  afterAll(async () => {
    await t?.close();
    await fs.rm(clip.dir, { recursive: true, force: true });
  });

  const media = async (activityId: string) =>
    (await rest(t.url, reader, 'GET', `/api/accessories/${accessoryId}/activities/${activityId}`))
      .body.media;

  it('runs one ffmpeg at a time, bounds its queue, and answers 503 until a package is ready', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const { createActivity } = await ok(t, ingest, CreateActivity, {
        accessoryId,
        input: { createdAt: new Date(Date.now() - (10 - i) * 60_000).toISOString() },
      });
      ids.push(createActivity.activityId);
    }
    const packager = t.app.services.media.packager;
    const seen = { running: 0, queued: 0 };
    const sampler = setInterval(() => {
      seen.running = Math.max(seen.running, packager.stats.running);
      seen.queued = Math.max(seen.queued, packager.stats.queued);
    }, 5);
    try {
      for (const id of ids) {
        const res = await upload(t, ingest, accessoryId, id, 'mp4', clip.mp4);
        expect(res.status).toBe(201);
        expect(res.body.packaging).toBe('queued');
      }
      // Not packaged yet: no manifest URLs, and the manifest paths ask to come back.
      const early = await media(ids[2]!);
      expect(early.mp4).toMatch(/\/mp4$/);
      expect(early.hls).toBeNull();
      expect(early.mpd).toBeNull();
      const auth = { authorization: `Bearer ${reader}` };
      const pending = await fetchBytes(`${t.url}${mediaPath(accessoryId, ids[2]!)}/mpd`, auth);
      expect(pending.status).toBe(503);
      expect(pending.headers.get('retry-after')).toBe('2');
      expect(JSON.parse(pending.bytes.toString()).error.code).toBe('UNAVAILABLE');
      // The MP4 itself is there at once.
      expect((await fetchBytes(`${t.url}${early.mp4}`, { range: 'bytes=0-0' })).status).toBe(206);

      // The third upload found the queue full: it waited in the database for the poll.
      for (const id of ids) {
        await waitFor(`packaging of ${id}`, async () => (await media(id)).hls);
      }
    } finally {
      clearInterval(sampler);
    }
    expect(seen.running).toBe(1);
    expect(seen.queued).toBeLessThanOrEqual(1);
  });

  it('records a clip that cannot be packaged as failed, keeping the MP4', async () => {
    const { createActivity } = await ok(t, ingest, CreateActivity, { accessoryId, input: {} });
    const id = createActivity.activityId;
    // An ISO file header followed by nothing playable.
    const junk = Buffer.concat([
      Buffer.from('00000018667479706d703432', 'hex'),
      Buffer.alloc(4096, 7),
    ]);
    expect((await upload(t, ingest, accessoryId, id, 'mp4', junk)).status).toBe(201);
    const status = async () =>
      (
        await t.app.services.db.pool.query<{ package_status: string; package_error: string }>(
          `SELECT package_status, package_error FROM media_objects WHERE activity_id = $1`,
          [id],
        )
      ).rows[0];
    const failed = await waitFor('the packaging to fail', async () =>
      (await status())?.package_status === 'failed' ? status() : undefined,
    );
    expect(failed!.package_error).toMatch(/ffmpeg/);
    const urls = await media(id);
    expect(urls.mp4).toMatch(/\/mp4$/);
    expect(urls.hls).toBeNull();
    const auth = { authorization: `Bearer ${reader}` };
    const res = await fetchBytes(`${t.url}${mediaPath(accessoryId, id)}/hls/activity.m3u8`, auth);
    expect(res.status).toBe(404);
    // Nothing of the failed run is left in the store besides the upload.
    const keys = await t.app.services.media.store.list(`${accessoryId}/${id}/`);
    expect(keys.map((k) => k.split('/').slice(3).join('/'))).toEqual(['clip.mp4']);
  });
});

describe('an instance without ffmpeg', () => {
  let clip: Clip;
  let t: TestApp;

  beforeAll(async () => {
    clip = await makeClip();
    t = await startApp('pglite', {}, (config) => (config.media.packager.ffmpeg = false));
  });
  afterAll(async () => {
    await t?.close();
    await fs.rm(clip.dir, { recursive: true, force: true });
  });

  it('keeps and serves MP4 uploads, marking them failed to package at once', async () => {
    const { ingest, accessoryId } = await seedAccessory(t, 'plain-user', 'cam-plain');
    const reader = await t.token(['activities_basic'], 'plain-user');
    const { createActivity } = await ok(t, ingest, CreateActivity, { accessoryId, input: {} });
    const id = createActivity.activityId;
    const res = await upload(t, ingest, accessoryId, id, 'mp4', clip.mp4);
    expect(res.status).toBe(201);
    expect(res.body.packaging).toBe('failed');
    const { rows } = await t.app.services.db.pool.query(
      `SELECT package_status, package_error, package_attempts FROM media_objects WHERE activity_id = $1`,
      [id],
    );
    expect(rows).toEqual([
      { package_status: 'failed', package_error: NO_FFMPEG, package_attempts: 0 },
    ]);
    const urls = (await rest(t.url, reader, 'GET', mediaPath(accessoryId, id))).body.media;
    expect(urls.hls).toBeNull();
    expect(urls.mpd).toBeNull();
    const mp4 = await fetchBytes(`${t.url}${urls.mp4}`);
    expect(mp4.status).toBe(200);
    expect(mp4.bytes.equals(clip.mp4)).toBe(true);
    const auth = { authorization: `Bearer ${reader}` };
    for (const file of ['mpd', 'hls/activity.m3u8']) {
      const manifest = await fetchBytes(`${t.url}${mediaPath(accessoryId, id)}/${file}`, auth);
      expect(manifest.status).toBe(404);
    }
    expect(t.app.services.media.packager.stats).toEqual({ queued: 0, running: 0 });
  });
});
