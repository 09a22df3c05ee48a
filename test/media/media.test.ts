import fs from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { purgeExpiredActivities } from '../../src/activities/retention.ts';
import { graphql } from '../generated/index.ts';
import { backends, startApp, type TestApp } from '../helpers/app.ts';
import { gql, rest } from '../helpers/client.ts';
import { CreateActivity, FinishActivity, ok, seedAccessory } from '../helpers/fixtures.ts';
import {
  expectPlayable,
  fetchBytes,
  makeClip,
  mediaPath,
  rawRequest,
  sha256,
  startS3,
  upload,
  waitFor,
  type Clip,
} from './helpers.ts';

const MediaOfActivity = graphql(`
  query MediaOfActivity($accessoryId: ID!, $activityId: String!) {
    accessory(id: $accessoryId) {
      activity(activityId: $activityId) {
        activityId
        media {
          image
          mp4
          mpd
          hls
        }
      }
      activities(first: 5) {
        edges {
          node {
            activityId
            media {
              mp4
            }
          }
        }
      }
    }
  }
`);

const MediaSetRetention = graphql(`
  mutation MediaSetRetention($accountId: ID!, $retentionDays: Int!) {
    setRetention(accountId: $accountId, retentionDays: $retentionDays) {
      retentionDays
    }
  }
`);

const MediaDeleteAccount = graphql(`
  mutation MediaDeleteAccount($accountId: ID!) {
    deleteAccount(accountId: $accountId)
  }
`);

let clip: Clip;
beforeAll(async () => {
  clip = await makeClip();
});
afterAll(async () => {
  await fs.rm(clip.dir, { recursive: true, force: true });
});

const cases = backends.flatMap((backend) =>
  (['fs', 's3'] as const).map((store) => ({ backend, store })),
);

describe.each(cases)('media on $backend with the $store store', ({ backend, store }) => {
  let t: TestApp;
  let s3: Awaited<ReturnType<typeof startS3>> | undefined;
  let ingest: string;
  let reader: string;
  let accessoryId: string;
  let activityId: string;
  const base = () => mediaPath(accessoryId, activityId);

  /** The media URLs the API hands out for the activity (REST, GET one). */
  async function urls(id = activityId) {
    const res = await rest(
      t.url,
      reader,
      'GET',
      `/api/accessories/${accessoryId}/activities/${id}`,
    );
    expect(res.status).toBe(200);
    return res.body.media as { image: string; mp4: string; mpd: string; hls: string } | null;
  }

  beforeAll(async () => {
    s3 = store === 's3' ? await startS3() : undefined;
    t = await startApp(backend, {
      MEDIA_SEGMENT_S: '1',
      MEDIA_MAX_IMAGE_BYTES: String(64 * 1024),
      ...s3?.env,
    });
    ({ ingest, accessoryId } = await seedAccessory(t, 'media-user', 'cam-media'));
    reader = await t.token(['activities_basic'], 'media-user');
    const { createActivity } = await ok(t, ingest, CreateActivity, {
      accessoryId,
      input: { createdAt: new Date(Date.now() - 60_000).toISOString() },
    });
    activityId = createActivity.activityId;
  });
  afterAll(async () => {
    await t?.close();
    await s3?.close();
  });

  it('has no media URLs before anything is uploaded', async () => {
    expect(await urls()).toBeNull();
    const res = await fetchBytes(`${t.url}${base()}/mp4`, { authorization: `Bearer ${reader}` });
    expect(res.status).toBe(404);
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('stores uploads streamed, with their SHA-256, and packages the MP4', async () => {
    const image = await upload(t, ingest, accessoryId, activityId, 'image', clip.jpg);
    expect(image.status).toBe(201);
    expect(image.body).toMatchObject({
      kind: 'image',
      contentType: 'image/jpeg',
      size: clip.jpg.length,
      sha256: clip.sha256.jpg,
    });
    expect(image.headers.get('etag')).toBe(`"${clip.sha256.jpg}"`);

    const digest = `sha-256=:${Buffer.from(clip.sha256.mp4, 'hex').toString('base64')}:`;
    const mp4 = await upload(t, ingest, accessoryId, activityId, 'mp4', clip.mp4, {
      'content-digest': digest,
    });
    expect(mp4.status).toBe(201);
    expect(mp4.body).toMatchObject({ kind: 'mp4', size: clip.mp4.length, sha256: clip.sha256.mp4 });
    expect(['queued', 'running', 'ready']).toContain(mp4.body.packaging);

    const media = await waitFor('packaging', async () => {
      const m = await urls();
      return m?.hls ? m : undefined;
    });
    for (const url of Object.values(media)) {
      expect(url).toMatch(
        new RegExp(
          `^/api/accessories/${accessoryId}/activities/${activityId}/signed/\\d+\\.[\\w-]{43}/`,
        ),
      );
    }
    expect(media.image).toMatch(/\/image$/);
    expect(media.mp4).toMatch(/\/mp4$/);
    expect(media.mpd).toMatch(/\/mpd$/);
    expect(media.hls).toMatch(/\/hls\/activity\.m3u8$/);

    // While the activity is in progress, its media may be replaced.
    const replaced = await upload(t, ingest, accessoryId, activityId, 'image', clip.jpg);
    expect(replaced.status).toBe(200);

    const keys = await t.app.services.media.store.list(`${accessoryId}/`);
    expect(keys.some((k) => k.endsWith('/clip.mp4'))).toBe(true);
    expect(keys.some((k) => k.endsWith('/hls/activity.m3u8'))).toBe(true);
    expect(keys.some((k) => k.endsWith('/activity.mpd'))).toBe(true);
  });

  it('gives the same URLs in the REST list and in GraphQL', async () => {
    // Signed URLs expire at steps of a fifth of their lifetime: the requests below must not
    // straddle a step, or the expiry (and the URLs) change between them.
    const { signer } = t.app.services.media;
    while (signer.expiry() !== signer.expiry(Date.now() + 10_000)) {
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const list = await rest(t.url, reader, 'POST', `/api/accessories/${accessoryId}/activities`, {
      extraFields: ['media'],
    });
    const listed = list.body.activities[0];
    expect(listed.media).toEqual(await urls());
    const withoutExtra = await rest(
      t.url,
      reader,
      'POST',
      `/api/accessories/${accessoryId}/activities`,
      {},
    );
    expect(withoutExtra.body.activities[0]).not.toHaveProperty('media');

    const data = await ok(t, reader, MediaOfActivity, { accessoryId, activityId });
    expect(data.accessory!.activity!.media).toEqual(await urls());
    expect(data.accessory!.activities.edges[0]!.node.media!.mp4).toBe(listed.media.mp4);
  });

  it('serves the JPG and the MP4 with byte ranges, ETags and HEAD', async () => {
    const media = (await urls())!;
    const image = await fetchBytes(`${t.url}${media.image}`);
    expect(image.status).toBe(200);
    expect(image.headers.get('content-type')).toBe('image/jpeg');
    expect(image.bytes.equals(clip.jpg)).toBe(true);

    const mp4 = `${t.url}${media.mp4}`;
    const size = clip.mp4.length;
    const whole = await fetchBytes(mp4);
    expect(whole.status).toBe(200);
    expect(whole.headers.get('content-type')).toBe('video/mp4');
    expect(whole.headers.get('accept-ranges')).toBe('bytes');
    expect(whole.headers.get('content-length')).toBe(String(size));
    expect(whole.headers.get('etag')).toBe(`"${clip.sha256.mp4}"`);
    expect(whole.headers.get('cache-control')).toBe('max-age=10');
    expect(whole.bytes.equals(clip.mp4)).toBe(true);

    const part = await fetchBytes(mp4, { range: 'bytes=100-1099' });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 100-1099/${size}`);
    expect(part.headers.get('content-length')).toBe('1000');
    expect(part.bytes.equals(clip.mp4.subarray(100, 1100))).toBe(true);

    const open = await fetchBytes(mp4, { range: `bytes=${size - 10}-` });
    expect(open.status).toBe(206);
    expect(open.bytes.equals(clip.mp4.subarray(size - 10))).toBe(true);
    const suffix = await fetchBytes(mp4, { range: 'bytes=-5' });
    expect(suffix.headers.get('content-range')).toBe(`bytes ${size - 5}-${size - 1}/${size}`);
    expect(suffix.bytes.equals(clip.mp4.subarray(size - 5))).toBe(true);
    const past = await fetchBytes(mp4, { range: `bytes=${size - 1}-${size + 1000}` });
    expect(past.status).toBe(206);
    expect(past.bytes.equals(clip.mp4.subarray(size - 1))).toBe(true);

    const unsatisfiable = await fetchBytes(mp4, { range: `bytes=${size}-` });
    expect(unsatisfiable.status).toBe(416);
    expect(unsatisfiable.headers.get('content-range')).toBe(`bytes */${size}`);

    const cached = await fetchBytes(mp4, { 'if-none-match': `"${clip.sha256.mp4}"` });
    expect(cached.status).toBe(304);
    expect(cached.bytes.length).toBe(0);
    expect(cached.headers.get('etag')).toBe(`"${clip.sha256.mp4}"`);
    expect((await fetchBytes(mp4, { 'if-none-match': '"other"' })).status).toBe(200);
    // If-Range with an old validator: the whole (new) object instead of a range of it.
    const ifRange = await fetchBytes(mp4, { range: 'bytes=0-9', 'if-range': '"old"' });
    expect(ifRange.status).toBe(200);

    const head = await fetchBytes(mp4, { range: 'bytes=0-99' }, 'HEAD');
    expect(head.status).toBe(206);
    expect(head.headers.get('content-length')).toBe('100');
    expect(head.bytes.length).toBe(0);
    const headWhole = await fetchBytes(mp4, {}, 'HEAD');
    expect(headWhole.status).toBe(200);
    expect(headWhole.headers.get('content-length')).toBe(String(size));
  });

  it('serves HLS and DASH that ffprobe reads over HTTP through the signed URLs', async () => {
    const media = (await urls())!;
    const hls = await fetchBytes(`${t.url}${media.hls}`);
    expect(hls.headers.get('content-type')).toBe('application/vnd.apple.mpegurl');
    const playlist = hls.bytes.toString();
    expect(playlist).toContain('#EXT-X-MAP:URI="init.mp4"');
    expect(playlist).toContain('#EXT-X-ENDLIST');
    const mpd = await fetchBytes(`${t.url}${media.mpd}`);
    expect(mpd.headers.get('content-type')).toBe('application/dash+xml');
    expect(mpd.bytes.toString()).toContain('initialization="dash/init-');

    await expectPlayable(t, media);
    // A segment, by the relative URL the playlist names.
    const segment = playlist.split('\n').find((l) => l.endsWith('.m4s'))!;
    const seg = await fetchBytes(`${t.url}${media.hls.replace(/activity\.m3u8$/, segment)}`, {
      range: 'bytes=0-7',
    });
    expect(seg.status).toBe(206);
    expect(seg.headers.get('content-type')).toBe('video/iso.segment');
  });

  it('keeps the bearer form for the own account only', async () => {
    const auth = { authorization: `Bearer ${reader}` };
    const mp4 = await fetchBytes(`${t.url}${base()}/mp4`, { ...auth, range: 'bytes=0-3' });
    expect(mp4.status).toBe(206);
    expect(mp4.bytes.equals(clip.mp4.subarray(0, 4))).toBe(true);
    const hls = await fetchBytes(`${t.url}${base()}/hls/activity.m3u8`, auth);
    expect(hls.status).toBe(200);
    expect((await fetchBytes(`${t.url}${base()}/mpd`, auth)).status).toBe(200);
    expect((await fetchBytes(`${t.url}${base()}/image`, auth, 'HEAD')).status).toBe(200);

    expect((await fetchBytes(`${t.url}${base()}/mp4`)).status).toBe(401);
    const ingestOnly = await fetchBytes(`${t.url}${base()}/mp4`, {
      authorization: `Bearer ${ingest}`,
    });
    expect(ingestOnly.status).toBe(403);

    await seedAccessory(t, 'media-other', 'cam-other');
    const other = await t.token(['activities_basic'], 'media-other');
    const foreign = await fetchBytes(`${t.url}${base()}/mp4`, { authorization: `Bearer ${other}` });
    expect(foreign.status).toBe(404);
    expect(JSON.parse(foreign.bytes.toString()).error.code).toBe('NOT_FOUND');
    expect(
      (
        await fetchBytes(`${t.url}${base()}/hls/activity.m3u8`, {
          authorization: `Bearer ${other}`,
        })
      ).status,
    ).toBe(404);
    expect((await fetchBytes(`${t.url}${base()}/hls/..`, auth)).status).toBe(404);
    expect((await fetchBytes(`${t.url}${base()}/dash/nope.m4s`, auth)).status).toBe(404);
    const del = await fetchBytes(`${t.url}${base()}/mp4`, auth, 'DELETE');
    expect(del.status).toBe(405);
  });

  it('refuses tampered, foreign and expired signed URLs with 403', async () => {
    const media = (await urls())!;
    const [, token] = /\/signed\/([^/]+)\//.exec(media.mp4)!;
    const [expires, mac] = token!.split('.') as [string, string];
    const tampered = [
      media.mp4.replace(token!, `${Number(expires) + 60}.${mac}`),
      media.mp4.replace(
        token!,
        `${expires}.${mac.slice(0, -2)}${mac.endsWith('AA') ? 'BB' : 'AA'}`,
      ),
      media.mp4.replace(token!, 'garbage'),
    ];
    for (const url of tampered) {
      const res = await fetchBytes(`${t.url}${url}`);
      expect(res.status).toBe(403);
      expect(JSON.parse(res.bytes.toString()).error.code).toBe('PERMISSION_DENIED');
    }
    // The signature of one activity does not open another.
    const { createActivity } = await ok(t, ingest, CreateActivity, {
      accessoryId,
      input: { createdAt: new Date(Date.now() - 30_000).toISOString() },
    });
    const other = await fetchBytes(
      `${t.url}${media.mp4.replace(activityId, createActivity.activityId)}`,
    );
    expect(other.status).toBe(403);

    const signer = t.app.services.media.signer;
    const expired = signer.token(accessoryId, activityId, Math.floor(Date.now() / 1000) - 1);
    const res = await fetchBytes(`${t.url}${media.mp4.replace(token!, expired)}`);
    expect(res.status).toBe(403);
    expect(JSON.parse(res.bytes.toString()).error.message).toMatch(/expired/);
    // An older activity with media is no longer the newest: it stays readable.
    expect((await fetchBytes(`${t.url}${media.mp4}`, { range: 'bytes=0-0' })).status).toBe(206);
  });

  it('refuses wrong types, magic bytes, digests and sizes', async () => {
    const { createActivity } = await ok(t, ingest, CreateActivity, {
      accessoryId,
      input: { createdAt: new Date(Date.now() - 20_000).toISOString() },
    });
    const id = createActivity.activityId;
    const put = (kind: 'image' | 'mp4', body: Buffer, headers: Record<string, string> = {}) =>
      upload(t, ingest, accessoryId, id, kind, body, headers);

    expect((await put('image', clip.jpg, { 'content-type': 'image/png' })).status).toBe(415);
    expect((await put('mp4', clip.mp4, { 'content-type': 'application/json' })).status).toBe(415);
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
    const badImage = await put('image', png);
    expect(badImage.status).toBe(400);
    expect(badImage.body.error.code).toBe('INVALID_ARGUMENT');
    expect((await put('mp4', clip.jpg)).status).toBe(400);
    expect((await put('mp4', Buffer.alloc(0))).status).toBe(400);
    const wrongDigest = await put('image', clip.jpg, { 'x-checksum-sha256': sha256(clip.mp4) });
    expect(wrongDigest.status).toBe(400);
    expect(wrongDigest.body.error.details.sha256).toBe(clip.sha256.jpg);
    expect((await put('image', clip.jpg, { 'content-digest': 'sha-256=:nope:' })).status).toBe(400);

    // Declared too large: refused before the body is read.
    const declared = await rawRequest(`${t.url}${mediaPath(accessoryId, id)}/image`, {
      method: 'PUT',
      headers: {
        authorization: `Bearer ${ingest}`,
        'content-type': 'image/jpeg',
        'content-length': 64 * 1024 + 1,
      },
    });
    expect(declared.status).toBe(413);
    expect(JSON.parse(declared.body).error.code).toBe('PAYLOAD_TOO_LARGE');
    // Chunked, without a length: refused once the limit is passed.
    const big = Buffer.concat([clip.jpg, Buffer.alloc(64 * 1024)]);
    const streamed = await rawRequest(`${t.url}${mediaPath(accessoryId, id)}/image`, {
      method: 'PUT',
      headers: {
        authorization: `Bearer ${ingest}`,
        'content-type': 'image/jpeg',
        'transfer-encoding': 'chunked',
      },
      body: big,
    });
    expect(streamed.status).toBe(413);

    expect((await upload(t, reader, accessoryId, id, 'image', clip.jpg)).status).toBe(403);
    expect((await upload(t, undefined, accessoryId, id, 'image', clip.jpg)).status).toBe(401);
    expect(
      (await upload(t, ingest, accessoryId, '20200101T000000Z', 'image', clip.jpg)).status,
    ).toBe(404);
    expect((await upload(t, ingest, crypto.randomUUID(), id, 'image', clip.jpg)).status).toBe(404);

    // Nothing of the refused uploads is left behind.
    await t.app.services.media.cleanup.collectGarbage();
    expect(await t.app.services.media.store.list(`${accessoryId}/${id}/`)).toEqual([]);
    expect(await urls(id)).toBeNull();
  });

  it('caches for long once finished, when media can no longer change', async () => {
    // Creating newer activities finished this one (earlier tests); finish the newest too.
    const newest = await rest(t.url, reader, 'POST', `/api/accessories/${accessoryId}/activities`, {
      limit: 1,
    });
    if (newest.body.activities[0].inProgress) {
      await ok(t, ingest, FinishActivity, {
        accessoryId,
        activityId: newest.body.activities[0].activityId,
        endTime: new Date().toISOString(),
      });
    }
    const after = await fetchBytes(`${t.url}${(await urls())!.mp4}`, {}, 'HEAD');
    expect(after.headers.get('cache-control')).toBe('private, max-age=31536000, immutable');
    const hls = await fetchBytes(`${t.url}${(await urls())!.hls}`, {}, 'HEAD');
    expect(hls.headers.get('cache-control')).toBe('private, max-age=31536000, immutable');

    // Finished: immutable. The same bytes again are accepted (a retried upload), others are not.
    expect((await upload(t, ingest, accessoryId, activityId, 'mp4', clip.jpg)).status).toBe(400);
    const changed = Buffer.concat([clip.mp4, Buffer.from('x')]);
    const conflict = await upload(t, ingest, accessoryId, activityId, 'mp4', changed);
    expect(conflict.status).toBe(409);
    const again = await upload(t, ingest, accessoryId, activityId, 'mp4', clip.mp4);
    expect(again.status).toBe(200);
    expect(again.body.sha256).toBe(clip.sha256.mp4);
    const byDigest = await upload(t, ingest, accessoryId, activityId, 'mp4', clip.mp4, {
      'x-checksum-sha256': clip.sha256.mp4,
    });
    expect(byDigest.status).toBe(200);
    // With a digest, a change is refused before the body is read.
    const early = await upload(t, ingest, accessoryId, activityId, 'mp4', changed, {
      'x-checksum-sha256': sha256(changed),
    });
    expect(early.status).toBe(409);
  });

  it('describes the media operations in /openapi.json', async () => {
    const doc = (await rest(t.url, undefined, 'GET', '/openapi.json')).body;
    const path = '/api/accessories/{accessoryId}/activities/{activityId}';
    expect(doc.paths[`${path}/mp4`]).toHaveProperty('get');
    expect(doc.paths[`${path}/mp4`]).toHaveProperty('head');
    expect(doc.paths[`${path}/mp4`].put.requestBody.content).toHaveProperty('video/mp4');
    expect(doc.paths[`${path}/image`].put.requestBody.content).toHaveProperty('image/jpeg');
    expect(doc.paths[`${path}/hls/activity.m3u8`]).toHaveProperty('get');
    expect(doc.paths[`${path}/signed/{signature}/mpd`].get.security).toEqual([]);
  });

  it('deletes the stored media with the activity (retention) and with the account', async () => {
    const media = t.app.services.media;
    const admin = await t.token(['admin'], 'media-admin');
    // An activity 20 days old with media, then a retention of 10 days.
    const { accountId: oldAccount, accessoryId: oldAccessory } = await seedAccessory(
      t,
      'media-retention',
      'cam-retention',
    );
    const { createActivity } = await ok(t, ingest, CreateActivity, {
      accessoryId: oldAccessory,
      input: { createdAt: new Date(Date.now() - 20 * 86_400_000).toISOString() },
    });
    const old = createActivity.activityId;
    expect((await upload(t, ingest, oldAccessory, old, 'image', clip.jpg)).status).toBe(201);
    expect((await media.store.list(`${oldAccessory}/${old}/`)).length).toBe(1);
    await ok(t, admin, MediaSetRetention, { accountId: oldAccount, retentionDays: 10 });
    // Its day goes once past every account's window: at today's midnight plus the longest one.
    const { rows } = await t.app.services.db.pool.query<{ days: number }>(
      'SELECT max(retention_days)::int AS days FROM accounts',
    );
    const later = new Date((Math.floor(Date.now() / 86_400_000) + rows[0]!.days) * 86_400_000);
    expect(await purgeExpiredActivities(t.app.services.db, later)).toBeGreaterThanOrEqual(1);
    await media.cleanup.collectGarbage();
    expect(await media.store.list(`${oldAccessory}/`)).toEqual([]);

    // Deleting the account deletes every object of its accessories.
    const doomed = await seedAccessory(t, 'media-doomed', 'cam-doomed');
    const { createActivity: clipActivity } = await ok(t, ingest, CreateActivity, {
      accessoryId: doomed.accessoryId,
      input: {},
    });
    const doomedId = clipActivity.activityId;
    await upload(t, ingest, doomed.accessoryId, doomedId, 'image', clip.jpg);
    // A replaced upload waits a grace period before it goes, unless its activity goes first.
    await upload(t, ingest, doomed.accessoryId, doomedId, 'image', clip.jpg);
    await upload(t, ingest, doomed.accessoryId, doomedId, 'mp4', clip.mp4);
    await media.packager.idle();
    expect((await media.store.list(`${doomed.accessoryId}/`)).length).toBeGreaterThan(3);
    await ok(t, admin, MediaDeleteAccount, { accountId: doomed.accountId });
    await waitFor('the media to be deleted', async () =>
      (await media.store.list(`${doomed.accessoryId}/`)).length === 0 ? true : undefined,
    );
    const doomedReader = await t.token(['activities_basic'], 'media-doomed');
    const gone = await gql(t.url, doomedReader, MediaOfActivity, {
      accessoryId: doomed.accessoryId,
      activityId: doomedId,
    });
    expect(gone.data?.accessory ?? null).toBeNull();
  });
});
