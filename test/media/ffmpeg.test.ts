import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { locate } from '../../src/media/ffmpeg.ts';
import { startApp, type TestApp } from '../helpers/app.ts';
import { rest } from '../helpers/client.ts';
import { CreateActivity, ok, seedAccessory } from '../helpers/fixtures.ts';
import { expectPlayable, makeClip, mediaPath, upload, waitFor, type Clip } from './helpers.ts';

describe('finding ffmpeg and ffprobe', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'clipgate-path-'));
    await fs.writeFile(path.join(dir, 'ffmpeg'), '#!/bin/sh\n', { mode: 0o755 });
    await fs.writeFile(path.join(dir, 'ffprobe'), '#!/bin/sh\n', { mode: 0o644 });
  });
  afterAll(() => fs.rm(dir, { recursive: true, force: true }));

  it('takes FFMPEG_PATH as given, then the PATH, then the build npm ships', () => {
    const elsewhere = path.join(os.tmpdir(), 'nowhere');
    expect(locate('ffmpeg', { FFMPEG_PATH: '/opt/ff/ffmpeg', PATH: dir })).toBe('/opt/ff/ffmpeg');
    expect(locate('ffmpeg', { PATH: [elsewhere, dir].join(path.delimiter) })).toBe(
      path.join(dir, 'ffmpeg'),
    );
    // Not executable: passed over for the shipped build.
    expect(locate('ffprobe', { PATH: dir })).toMatch(/@ffprobe-installer/);
    expect(locate('ffmpeg', { PATH: '' })).toMatch(/@ffmpeg-installer/);
  });
});

// The build npm ships (what a machine without ffmpeg gets, and CI's fresh machines) packages
// with the service's exact ffmpeg arguments, whatever the system here has.
describe('packaging with the npm-shipped ffmpeg', () => {
  let clip: Clip;
  let t: TestApp;

  beforeAll(async () => {
    clip = await makeClip();
    t = await startApp('pglite', {
      FFMPEG_PATH: locate('ffmpeg', { PATH: '' })!,
      MEDIA_SEGMENT_S: '1',
    });
  });
  afterAll(async () => {
    await t?.close();
    await fs.rm(clip.dir, { recursive: true, force: true });
  });

  it('writes HLS and DASH that ffprobe reads', async () => {
    const { ingest, accessoryId } = await seedAccessory(t, 'shipped-user', 'cam-shipped');
    const reader = await t.token(['activities_basic'], 'shipped-user');
    const { createActivity } = await ok(t, ingest, CreateActivity, { accessoryId, input: {} });
    const id = createActivity.activityId;
    expect((await upload(t, ingest, accessoryId, id, 'mp4', clip.mp4)).status).toBe(201);
    const media = await waitFor('packaging', async () => {
      const urls = (await rest(t.url, reader, 'GET', mediaPath(accessoryId, id))).body.media;
      return urls.hls ? (urls as { hls: string; mpd: string }) : undefined;
    });
    await expectPlayable(t, media);
  });
});
