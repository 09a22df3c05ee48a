import fs from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends, startApp, type TestApp } from '../helpers/app.ts';
import { CreateActivity, FinishActivity, ok, seedAccessory } from '../helpers/fixtures.ts';
import {
  AccessoryEvents,
  accessoryEvent,
  subscribe,
  waitFor,
  wsClient,
} from '../events/live-helpers.ts';
import { fetchBytes, makeClip, upload, type Clip } from '../media/helpers.ts';
import { queuedDeliveries, register, startReceiver, type Receiver } from './helpers.ts';

const TTL_S = 900;
/** ffmpeg packaging on a loaded machine can take a while. */
const PACKAGING_TIMEOUT_MS = 60_000;

describe.each(backends)('activity_media_ready on %s', (backend) => {
  let clip: Clip;
  const apps: TestApp[] = [];
  const receivers: Receiver[] = [];
  let subjects = 0;

  beforeAll(async () => {
    clip = await makeClip();
  });
  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.close()));
    await Promise.all(apps.map((t) => t.close()));
    await fs.rm(clip.dir, { recursive: true, force: true });
  });

  async function app(withFfmpeg: boolean): Promise<TestApp> {
    const t = await startApp(
      backend,
      {
        WEBHOOK_ALLOW_HTTP: 'true',
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        NOTIFICATION_MEDIA_URL_TTL_S: String(TTL_S),
        MEDIA_SEGMENT_S: '1',
      },
      (config) => {
        if (!withFfmpeg) config.media.packager.ffmpeg = false;
      },
    );
    apps.push(t);
    return t;
  }

  /** An account with an accessory, a receiver registered for media-ready, a live subscriber. */
  async function setup(t: TestApp) {
    const subject = `media-ready-${++subjects}`;
    const seeded = await seedAccessory(t, subject, `cam-${subjects}`);
    const authKey = `key-of-${subject}-0123456789`;
    const rx = await startReceiver(authKey);
    receivers.push(rx);
    await register(t, await t.token(['notifications'], subject), {
      url: rx.url,
      authKey,
      eventTypes: ['activity_finished', 'activity_media_ready'],
    });
    const ws = wsClient(t.url, `Bearer ${await t.token(['activities_basic'], subject)}`);
    const live = subscribe(
      ws.client,
      AccessoryEvents,
      { accessoryId: seeded.accessoryId },
      accessoryEvent,
    );
    const { createActivity } = await ok(t, seeded.ingest, CreateActivity, {
      accessoryId: seeded.accessoryId,
      input: { createdAt: new Date(Date.now() - 60_000).toISOString(), relevanceLevel: 2 },
    });
    const finish = () =>
      ok(t, seeded.ingest, FinishActivity, {
        accessoryId: seeded.accessoryId,
        activityId: createActivity.activityId,
        endTime: new Date(Date.now() - 30_000).toISOString(),
      });
    const put = async (kind: 'image' | 'mp4') => {
      const res = await upload(
        t,
        seeded.ingest,
        seeded.accessoryId,
        createActivity.activityId,
        kind,
        kind === 'mp4' ? clip.mp4 : clip.jpg,
      );
      expect(res.status).toBeLessThan(300);
    };
    const mediaReady = () =>
      rx.receipts.filter((r) => r.body?.eventType === 'activity_media_ready');
    const liveReady = () => live.items.filter((e) => e.eventType === 'activity_media_ready');
    return {
      ...seeded,
      activityId: createActivity.activityId,
      rx,
      ws,
      live,
      finish,
      put,
      mediaReady,
      liveReady,
    };
  }

  it(
    'is sent once the finished clip is packaged, signed, with media URLs that work',
    async () => {
      const t = await app(true);
      const s = await setup(t);
      await s.put('image');
      await s.put('mp4');
      const before = Math.floor(Date.now() / 1000);
      await s.finish();
      await s.rx.waitFor(() => s.mediaReady().length === 1, 'the media-ready notification', 45_000);
      await waitFor(() => s.liveReady().length === 1, 'the media-ready live event');

      const [receipt] = s.mediaReady();
      expect(receipt!.standard && receipt!.vendor).toBe(true);
      const data = receipt!.body.eventData;
      expect(data).toMatchObject({
        accessoryId: s.accessoryId,
        activityId: s.activityId,
        relevanceLevel: 2,
        inProgress: false,
        packaging: { status: 'ready', error: null },
      });
      const expires = Date.parse(data.mediaExpiresAt) / 1000;
      expect(expires).toBeGreaterThanOrEqual(before + TTL_S);
      expect(expires).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + TTL_S);
      for (const kind of ['image', 'mp4', 'hls', 'mpd']) {
        expect(data.media[kind]).toContain(`/signed/${expires}.`);
      }
      // The URLs work without a token.
      const mp4 = await fetchBytes(`${t.url}${data.media.mp4}`);
      expect(mp4.status).toBe(200);
      expect(mp4.bytes.equals(clip.mp4)).toBe(true);
      const hls = await fetchBytes(`${t.url}${data.media.hls}`);
      expect(hls.status).toBe(200);
      expect(hls.bytes.toString()).toContain('#EXTM3U');

      // Subscribers see the same event; activity_finished came before it, in both.
      const [event] = s.liveReady();
      expect(event!.eventId).toBe(receipt!.webhookId);
      expect(event!.eventData).toEqual(data);
      const types = s.live.items.map((e) => e.eventType);
      expect(types.indexOf('activity_finished')).toBeLessThan(
        types.indexOf('activity_media_ready'),
      );
      const finished = s.rx.receipts.find((r) => r.body?.eventType === 'activity_finished');
      expect(Number(finished!.webhookId)).toBeLessThan(Number(receipt!.webhookId));

      // Exactly once, whatever happens afterwards.
      await t.app.services.media.packager.idle();
      await t.app.services.media.packager.poll();
      const queued = await queuedDeliveries(t, s.accountId);
      expect(queued.filter((d) => d.event_type === 'activity_media_ready')).toHaveLength(1);
      await s.ws.dispose();
    },
    PACKAGING_TIMEOUT_MS,
  );

  it(
    'waits for the activity to finish when the clip is packaged first',
    async () => {
      const t = await app(true);
      const s = await setup(t);
      await s.put('mp4');
      await t.app.services.media.packager.idle();
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(s.mediaReady()).toHaveLength(0);
      expect(s.liveReady()).toHaveLength(0);
      await s.finish();
      await s.rx.waitFor(() => s.mediaReady().length === 1, 'the media-ready notification', 45_000);
      const data = s.mediaReady()[0]!.body.eventData;
      expect(data.packaging.status).toBe('ready');
      expect(data.media.image).toBeNull();
      expect(data.media.hls).not.toBeNull();
      await waitFor(() => s.liveReady().length === 1, 'the media-ready live event');
      await s.ws.dispose();
    },
    PACKAGING_TIMEOUT_MS,
  );

  it(
    'says packaging is unavailable on an instance without ffmpeg, once the clip is stored',
    async () => {
      const t = await app(false);
      const s = await setup(t);
      await s.finish();
      expect(s.mediaReady()).toHaveLength(0);
      await s.put('mp4');
      await s.rx.waitFor(() => s.mediaReady().length === 1, 'the media-ready notification', 45_000);
      const data = s.mediaReady()[0]!.body.eventData;
      expect(data.packaging.status).toBe('unavailable');
      expect(data.packaging.error).toMatch(/ffmpeg/);
      expect(data.media.hls).toBeNull();
      expect(data.media.mpd).toBeNull();
      const mp4 = await fetchBytes(`${t.url}${data.media.mp4}`);
      expect(mp4.status).toBe(200);
      await waitFor(() => s.liveReady().length === 1, 'the media-ready live event');
      await s.ws.dispose();
    },
    PACKAGING_TIMEOUT_MS,
  );
});
