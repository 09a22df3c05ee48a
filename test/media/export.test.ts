import fs from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireTool } from '../../src/media/ffmpeg.ts';
import { graphql } from '../generated/index.ts';
import { backends, startApp, type Backend, type TestApp } from '../helpers/app.ts';
import { gql } from '../helpers/client.ts';
import { CreateActivity, FinishActivity, ok, seedAccessory } from '../helpers/fixtures.ts';
import {
  fetchBytes,
  ffprobe,
  makeClip,
  run,
  startS3,
  upload,
  waitFor,
  type Clip,
} from './helpers.ts';

const ExportUrl = graphql(`
  query ExportUrl($accessoryId: ID!, $start: DateTime!, $end: DateTime!) {
    accessory(id: $accessoryId) {
      exportUrl(start: $start, end: $end)
    }
  }
`);

const ExportSetRetention = graphql(`
  mutation ExportSetRetention($accountId: ID!, $retentionDays: Int!) {
    setRetention(accountId: $accountId, retentionDays: $retentionDays) {
      retentionDays
    }
  }
`);

let clip: Clip;
let scratch: string;
beforeAll(async () => {
  clip = await makeClip();
  scratch = await fs.mkdtemp(path.join(os.tmpdir(), 'clipgate-export-'));
});
afterAll(async () => {
  await fs.rm(clip.dir, { recursive: true, force: true });
  await fs.rm(scratch, { recursive: true, force: true });
});

/** ffprobe's view of an export's bytes (written to a file: a fragmented MP4 is indexed at its end). */
async function probe(bytes: Buffer) {
  const file = path.join(scratch, `${crypto.randomUUID()}.mp4`);
  await fs.writeFile(file, bytes);
  try {
    const result = await ffprobe(file);
    return { ...result, duration: Number(result.format.duration) };
  } finally {
    await fs.rm(file, { force: true });
  }
}

const iso = (ms: number) => new Date(ms).toISOString();
const exportPath = (accessoryId: string, start: number | string, end: number | string) =>
  `/api/accessories/${accessoryId}/export.mp4?${new URLSearchParams({
    start: typeof start === 'number' ? iso(start) : start,
    end: typeof end === 'number' ? iso(end) : end,
  })}`;

/** An activity of `seconds` from `startMs` (finished unless `inProgress`), with the clip when `mp4`. */
async function activity(
  t: TestApp,
  ingest: string,
  accessoryId: string,
  startMs: number,
  options: { seconds?: number; mp4?: Buffer; inProgress?: boolean } = {},
): Promise<string> {
  const { createActivity } = await ok(t, ingest, CreateActivity, {
    accessoryId,
    input: { createdAt: iso(startMs) },
  });
  const id = createActivity.activityId;
  if (!options.inProgress) {
    await ok(t, ingest, FinishActivity, {
      accessoryId,
      activityId: id,
      endTime: iso(startMs + (options.seconds ?? 3) * 1000),
    });
  }
  if (options.mp4) {
    expect((await upload(t, ingest, accessoryId, id, 'mp4', options.mp4)).status).toBe(201);
  }
  return id;
}

const cases = backends.flatMap((backend) =>
  (['fs', 's3'] as const).map((store) => ({ backend, store })),
);

describe.each(cases)('clip export on $backend with the $store store', ({ backend, store }) => {
  let t: TestApp;
  let s3: Awaited<ReturnType<typeof startS3>> | undefined;
  let ingest: string;
  let reader: string;
  let accountId: string;
  let accessoryId: string;
  /** The clips: A [t0, t0+3s), B [t0+10s, +3s), C [t0+20s, +3s) without MP4, D [t0+30s, +3s), E from t0+60s in progress. */
  let t0: number;
  let old: number;
  const s = (seconds: number) => t0 + seconds * 1000;

  beforeAll(async () => {
    s3 = store === 's3' ? await startS3() : undefined;
    t = await startApp(backend, { ...s3?.env });
    ({ ingest, accountId, accessoryId } = await seedAccessory(t, 'export-user', 'cam-export'));
    reader = await t.token(['activities_basic'], 'export-user');
    old = Math.floor((Date.now() - 20 * 86_400_000) / 1000) * 1000;
    t0 = Math.floor((Date.now() - 30 * 60_000) / 1000) * 1000;
    await activity(t, ingest, accessoryId, old, { mp4: clip.mp4 });
    await activity(t, ingest, accessoryId, s(0), { mp4: clip.mp4 });
    await activity(t, ingest, accessoryId, s(10), { mp4: clip.mp4 });
    await activity(t, ingest, accessoryId, s(20));
    await activity(t, ingest, accessoryId, s(30), { mp4: clip.mp4 });
    await activity(t, ingest, accessoryId, s(60), { mp4: clip.mp4, inProgress: true });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await s3?.close();
  });

  /** A request with the reader's token, another one, or none (null). */
  const get = (url: string, token: string | null = reader, method = 'GET') =>
    fetchBytes(`${t.url}${url}`, token ? { authorization: `Bearer ${token}` } : {}, method);

  it('joins the MP4s of the clips overlapping the range into one MP4, by token', async () => {
    const res = await get(exportPath(accessoryId, s(-1), s(15)));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('video/mp4');
    expect(res.headers.get('content-disposition')).toMatch(
      new RegExp(
        `^attachment; filename="export-${accessoryId}-\\d{8}T\\d{6}Z-\\d{8}T\\d{6}Z\\.mp4"$`,
      ),
    );
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('content-length')).toBeNull();
    const probed = await probe(res.bytes);
    expect(probed.streams).toHaveLength(1);
    expect(probed.streams[0]).toMatchObject({ codec_name: 'h264', width: 320, height: 240 });
    expect(probed.duration).toBeGreaterThanOrEqual(5);
    expect(probed.duration).toBeLessThanOrEqual(7); // A and B: 2 × 3 s, within a keyframe

    // Whole clips: A (ends after t0+2s), B, not C (no MP4), D (starts before t0+31s).
    const three = await get(exportPath(accessoryId, s(2), s(31)));
    expect(three.status).toBe(200);
    expect(Math.abs((await probe(three.bytes)).duration - 9)).toBeLessThanOrEqual(1);

    // An activity in progress has not ended: E overlaps any range after its start.
    const live = await get(exportPath(accessoryId, s(600), s(610)));
    expect(live.status).toBe(200);
    expect(Math.abs((await probe(live.bytes)).duration - 3)).toBeLessThanOrEqual(1);

    // HEAD: the same answer, without running ffmpeg.
    const head = await get(exportPath(accessoryId, s(-1), s(15)), reader, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe('video/mp4');
    expect(head.bytes.length).toBe(0);
  });

  it('hands out a signed URL over GraphQL that works without a token', async () => {
    const { accessory } = await ok(t, reader, ExportUrl, {
      accessoryId,
      start: iso(s(-1)),
      end: iso(s(15)),
    });
    const url = accessory!.exportUrl!;
    expect(url).toMatch(
      new RegExp(`^/api/accessories/${accessoryId}/signed/\\d+\\.[\\w-]{43}/export\\.mp4\\?start=`),
    );
    const res = await get(url, null);
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(Math.abs((await probe(res.bytes)).duration - 6)).toBeLessThanOrEqual(1);

    // Nothing with an MP4 in [t0+3s, t0+10s): A ended at its start, B starts at its end; C has none.
    for (const [start, end] of [
      [3, 10],
      [20, 23],
    ] as const) {
      const none = await ok(t, reader, ExportUrl, {
        accessoryId,
        start: iso(s(start)),
        end: iso(s(end)),
      });
      expect(none.accessory!.exportUrl).toBeNull();
      const res404 = await get(exportPath(accessoryId, s(start), s(end)));
      expect(res404.status).toBe(404);
      expect(JSON.parse(res404.bytes.toString()).error.code).toBe('NOT_FOUND');
    }
  });

  it('refuses a tampered, expired or borrowed signature (403)', async () => {
    const range = { start: new Date(s(-1)), end: new Date(s(15)) };
    const { accessory } = await ok(t, reader, ExportUrl, {
      accessoryId,
      start: iso(s(-1)),
      end: iso(s(15)),
    });
    const url = new URL(accessory!.exportUrl!, t.url);
    const denied = async (target: string, message: RegExp) => {
      const res = await get(target, null);
      expect(res.status, target).toBe(403);
      const body = JSON.parse(res.bytes.toString());
      expect(body.error.code).toBe('PERMISSION_DENIED');
      expect(body.error.message).toMatch(message);
      expect(res.headers.get('www-authenticate')).toBeNull();
    };
    // Another range than the one signed.
    const wider = new URL(url);
    wider.searchParams.set('start', iso(s(-100)));
    await denied(`${wider.pathname}${wider.search}`, /not valid/);
    // Another MAC, another accessory.
    const forged = url.pathname.replace(
      /\.([\w-])/,
      (_m, c: string) => `.${c === 'A' ? 'B' : 'A'}`,
    );
    await denied(`${forged}${url.search}`, /not valid/);
    const other = url.pathname.replace(accessoryId, crypto.randomUUID());
    await denied(`${other}${url.search}`, /not valid/);
    // Expired.
    const signer = t.app.services.media.signer;
    const expired = signer.exportToken(accessoryId, range, Math.floor(Date.now() / 1000) - 1);
    await denied(signer.exportUrl(accessoryId, range, expired), /expired/);
    // An activity's media signature opens nothing else.
    const activityToken = signer.token(accessoryId, '20261121T204117Z');
    await denied(signer.exportUrl(accessoryId, range, activityToken), /not valid/);
  });

  it('answers 400 naming the field for a bad range, 404 for another account', async () => {
    const bad = async (url: string, field: string) => {
      const res = await get(url);
      expect(res.status, url).toBe(400);
      const body = JSON.parse(res.bytes.toString());
      expect(body.error).toMatchObject({ code: 'INVALID_ARGUMENT', details: { field } });
      return body.error;
    };
    await bad(`/api/accessories/${accessoryId}/export.mp4?end=${iso(s(5))}`, 'start');
    await bad(exportPath(accessoryId, 'yesterday', s(5)), 'start');
    await bad(exportPath(accessoryId, '2026-11-21T20:41:17', s(5)), 'start'); // no zone
    await bad(exportPath(accessoryId, s(0), '2026-13-01T00:00:00Z'), 'end');
    await bad(`${exportPath(accessoryId, s(0), s(5))}&start=${iso(s(1))}`, 'start');
    await bad(exportPath(accessoryId, s(5), s(5)), 'end');
    await bad(exportPath(accessoryId, s(5), s(0)), 'end');
    const tooLong = await bad(exportPath(accessoryId, s(0), s(3601)), 'end');
    expect(tooLong.details.max).toBe(3600);
    expect((await get(exportPath(accessoryId, s(0), s(3600)))).status).toBe(200);
    await bad(exportPath('not-a-uuid', s(0), s(5)), 'accessoryId');

    const gqlBad = await gql(t.url, reader, ExportUrl, {
      accessoryId,
      start: iso(s(0)),
      end: iso(s(3601)),
    });
    expect(gqlBad.errors?.[0]?.extensions).toMatchObject({
      code: 'INVALID_ARGUMENT',
      details: { field: 'end' },
    });

    // Another account's accessory, an unknown one: 404, as if it did not exist.
    const stranger = await t.token(['activities_basic'], 'export-stranger');
    await seedAccessory(t, 'export-stranger', 'cam-stranger');
    expect((await get(exportPath(accessoryId, s(0), s(5)), stranger)).status).toBe(404);
    const foreign = await ok(t, stranger, ExportUrl, {
      accessoryId,
      start: iso(s(0)),
      end: iso(s(5)),
    });
    expect(foreign.accessory).toBeNull();
    expect((await get(exportPath(crypto.randomUUID(), s(0), s(5)))).status).toBe(404);
    // Without a token, without the scope, another method.
    expect((await get(exportPath(accessoryId, s(0), s(5)), null)).status).toBe(401);
    expect((await get(exportPath(accessoryId, s(0), s(5)), ingest)).status).toBe(403);
    const post = await get(exportPath(accessoryId, s(0), s(5)), reader, 'POST');
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });

  it('leaves out what retention has expired and clips ffmpeg could not read', async () => {
    const range = [old - 1000, old + 5000] as const;
    expect((await get(exportPath(accessoryId, ...range))).status).toBe(200);
    const admin = await t.token(['admin'], 'export-admin');
    await ok(t, admin, ExportSetRetention, { accountId, retentionDays: 10 });
    expect((await get(exportPath(accessoryId, ...range))).status).toBe(404);
    const gone = await ok(t, reader, ExportUrl, {
      accessoryId,
      start: iso(range[0]),
      end: iso(range[1]),
    });
    expect(gone.accessory!.exportUrl).toBeNull();

    // An MP4 whose packaging failed (an ftyp box, then noise) is skipped, the others joined.
    const broken = Buffer.concat([clip.mp4.subarray(0, 32), Buffer.alloc(20_000, 7)]);
    const other = await seedAccessory(t, 'export-user', 'cam-broken');
    await activity(t, ingest, other.accessoryId, s(0), { mp4: clip.mp4 });
    await activity(t, ingest, other.accessoryId, s(10), { mp4: broken });
    await t.app.services.media.packager.idle();
    const res = await get(exportPath(other.accessoryId, s(0), s(20)));
    expect(res.status).toBe(200);
    expect(Math.abs((await probe(res.bytes)).duration - 3)).toBeLessThanOrEqual(1);
  });
});

describe.each(backends)('clip export limits on %s', (backend: Backend) => {
  let t: TestApp;
  let reader: string;
  let accessoryId: string;
  let big: Buffer;
  const range = { start: '', end: '' };

  beforeAll(async () => {
    // A clip of incompressible frames (24 MB for 2 s): more than the socket buffers hold, so
    // an export whose client does not read stays running.
    const file = path.join(scratch, 'big.mp4');
    await run(requireTool('ffmpeg'), [
      ...['-nostdin', '-v', 'error', '-f', 'lavfi'],
      ...['-i', 'nullsrc=s=640x480:d=2:r=25,geq=random(1)*255:128:128'],
      ...['-c:v', 'libx264', '-preset', 'ultrafast', '-qp', '0', '-g', '25'],
      ...['-pix_fmt', 'yuv420p', '-y', file],
    ]);
    big = await fs.readFile(file);
    // No load shedding: the embedded database and the 24 MB upload may lag the loop on a busy machine.
    t = await startApp(backend, {
      EXPORT_CONCURRENCY: '1',
      RATE_LIMIT_RPS: '50',
      OVERLOAD_LAG_MS: '0',
    });
    let ingest: string;
    ({ ingest, accessoryId } = await seedAccessory(t, 'export-limits', 'cam-limits'));
    reader = await t.token(['activities_basic'], 'export-limits');
    const start = Math.floor((Date.now() - 60_000) / 1000) * 1000;
    await activity(t, ingest, accessoryId, start, { mp4: big, seconds: 2 });
    range.start = iso(start);
    range.end = iso(start + 10_000);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  /** An export request whose body is not read: it holds its slot until destroyed. */
  function hold(): Promise<{ status: number; destroy(): void }> {
    return new Promise((resolve, reject) => {
      const req = http.get(
        `${t.url}${exportPath(accessoryId, range.start, range.end)}`,
        { headers: { authorization: `Bearer ${reader}` } },
        (res) => resolve({ status: res.statusCode!, destroy: () => req.destroy() }),
      );
      req.on('error', reject);
    });
  }

  const exportDirs = async () =>
    (await fs.readdir(path.join(t.config.dataDir, 'tmp', 'media'))).filter((f) =>
      f.startsWith('export-'),
    );

  it('refuses an export over EXPORT_CONCURRENCY with 503 and Retry-After', async () => {
    const first = await hold();
    expect(first.status).toBe(200);
    const busy = await fetchBytes(`${t.url}${exportPath(accessoryId, range.start, range.end)}`, {
      authorization: `Bearer ${reader}`,
    });
    expect(busy.status).toBe(503);
    expect(busy.headers.get('retry-after')).toBe('5');
    expect(JSON.parse(busy.bytes.toString()).error.code).toBe('UNAVAILABLE');
    // Each export request is one request of the caller's budget.
    expect(busy.headers.get('ratelimit')).toMatch(/r=\d+/);

    // The client going away stops ffmpeg, frees the slot and removes the work directory.
    first.destroy();
    const res = await waitFor('the export slot to free', async () => {
      const answer = await fetchBytes(
        `${t.url}${exportPath(accessoryId, range.start, range.end)}`,
        {
          authorization: `Bearer ${reader}`,
        },
      );
      return answer.status !== 503 && answer;
    });
    expect(res.status).toBe(200);
    expect(res.bytes.length).toBeGreaterThan(big.length * 0.9);
    expect(Math.abs((await probe(res.bytes)).duration - 2)).toBeLessThanOrEqual(1);
    await waitFor('the work directories to go', async () => (await exportDirs()).length === 0);
  }, 60_000);

  it('cuts running exports at shutdown', async () => {
    const first = await hold();
    expect(first.status).toBe(200);
    await t.close();
    first.destroy();
  }, 30_000);
});
