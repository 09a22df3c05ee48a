import fs from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireTool } from '../../src/media/ffmpeg.ts';
import { ExportUrlDocument } from '../generated/graphql.ts';
import { startApp, type TestApp } from '../helpers/app.ts';
import { gql } from '../helpers/client.ts';
import { CreateActivity, FinishActivity, ok, seedAccessory } from '../helpers/fixtures.ts';
import {
  fetchBytes,
  ffprobe,
  makeBigClip,
  makeClip,
  slowReader,
  startS3,
  upload,
  waitFor,
  type Clip,
} from './helpers.ts';

// What keeps one client from holding the exports of an instance: slots shared by
// account, a minimum read rate, a deadline that kills ffmpeg, a rate limit per signed URL and a
// cap on the bytes one export joins (and, with S3, copies to disk first). Each suite has an
// instance with small settings of its own. These limits are the instance's, not the
// database's: they run on the embedded database only.

let clip: Clip;
let big: Buffer;
let scratch: string;
beforeAll(async () => {
  scratch = await fs.mkdtemp(path.join(os.tmpdir(), 'clipgate-export-limits-'));
  [clip, big] = await Promise.all([makeClip(), makeBigClip(scratch)]);
}, 60_000);
afterAll(async () => {
  await fs.rm(clip.dir, { recursive: true, force: true });
  await fs.rm(scratch, { recursive: true, force: true });
});

const iso = (ms: number) => new Date(ms).toISOString();
const exportPath = (accessoryId: string, range: { start: Date; end: Date }) =>
  `/api/accessories/${accessoryId}/export.mp4?${new URLSearchParams({
    start: range.start.toISOString(),
    end: range.end.toISOString(),
  })}`;

interface Owner {
  reader: string;
  accessoryId: string;
  /** A range holding the owner's clips. */
  range: { start: Date; end: Date };
}

/** An account whose accessory has one finished activity per clip, 10 s apart, from 10 min ago. */
async function owner(t: TestApp, subject: string, clips: Buffer[]): Promise<Owner> {
  const { ingest, accessoryId } = await seedAccessory(t, subject, `cam-${subject}`);
  const t0 = Math.floor((Date.now() - 600_000) / 1000) * 1000;
  for (const [i, mp4] of clips.entries()) {
    const start = t0 + i * 10_000;
    const { createActivity } = await ok(t, ingest, CreateActivity, {
      accessoryId,
      input: { createdAt: iso(start) },
    });
    const activityId = createActivity.activityId;
    await ok(t, ingest, FinishActivity, { accessoryId, activityId, endTime: iso(start + 3000) });
    expect((await upload(t, ingest, accessoryId, activityId, 'mp4', mp4)).status).toBe(201);
  }
  return {
    reader: await t.token(['activities_basic'], subject),
    accessoryId,
    range: { start: new Date(t0 - 1000), end: new Date(t0 + clips.length * 10_000) },
  };
}

const bearer = (o: Owner) => ({ authorization: `Bearer ${o.reader}` });

/** The value of an export metric (a reason's count, or the slots in use). */
async function metric(
  t: TestApp,
  name: 'exportCuts' | 'exportRefusals' | 'exportSlots',
  reason?: string,
): Promise<number> {
  const { values } = (await t.app.services.metrics[name]?.get()) ?? { values: [] };
  return values.find((v) => reason === undefined || v.labels.reason === reason)?.value ?? 0;
}

const exportDirs = async (t: TestApp) =>
  (await fs.readdir(path.join(t.config.dataDir, 'tmp', 'media'))).filter((f) =>
    f.startsWith('export-'),
  );

/** ffprobe's duration of an export's bytes. */
async function duration(bytes: Buffer): Promise<number> {
  const file = path.join(scratch, `${crypto.randomUUID()}.mp4`);
  await fs.writeFile(file, bytes);
  try {
    return Number((await ffprobe(file)).format.duration);
  } finally {
    await fs.rm(file, { force: true });
  }
}

describe('export slots, shared by account', () => {
  let t: TestApp;
  let alice: Owner;
  let bob: Owner;
  let carol: Owner;

  beforeAll(async () => {
    // Two slots (one per account by default); no minimum read rate, so that the shares alone
    // are at work here.
    t = await startApp('pglite', { EXPORT_CONCURRENCY: '2', EXPORT_MIN_READ_BYTES_PER_S: '0' });
    alice = await owner(t, 'alice', [big]);
    bob = await owner(t, 'bob', [big]);
    carol = await owner(t, 'carol', [clip.mp4]);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  it("keeps slow raw sockets on Alice's signed URL from starving Bob's exports", async () => {
    // As reported: two raw sockets reading 1 KiB at a time on Alice's signed export URL.
    const url = t.app.services.media.signer.exportUrl(alice.accessoryId, alice.range);
    const first = slowReader(t.url, url, { bytes: 1024, everyMs: 1000 });
    expect(await first.status).toBe(200);
    const second = slowReader(t.url, url, { bytes: 1024, everyMs: 1000 });
    const secondStatus = await second.status;
    try {
      // Bob's export gets the other slot, and all of his clip.
      const res = await fetchBytes(
        `${t.url}${exportPath(bob.accessoryId, bob.range)}`,
        bearer(bob),
      );
      expect(res.status).toBe(200);
      expect(res.bytes.length).toBeGreaterThan(big.length * 0.9);
      expect(Math.abs((await duration(res.bytes)) - 2)).toBeLessThanOrEqual(1);
      // Alice's second socket was refused: her account holds its share (one of two slots).
      expect(secondStatus).toBe(429);
      expect(await metric(t, 'exportSlots')).toBe(1); // the first still runs
      const own = await fetchBytes(
        `${t.url}${exportPath(alice.accessoryId, alice.range)}`,
        bearer(alice),
      );
      expect(own.status).toBe(429);
      expect(own.headers.get('retry-after')).toBe('5');
      expect(JSON.parse(own.bytes.toString()).error).toMatchObject({
        code: 'RATE_LIMITED',
        details: { limit: 'EXPORT_CONCURRENCY_PER_ACCOUNT', max: 1 },
      });
      expect(await metric(t, 'exportRefusals', 'account_busy')).toBe(2);

      // With a slot of each account taken, the instance is busy for everyone: 503.
      const bobHolds = slowReader(
        t.url,
        t.app.services.media.signer.exportUrl(bob.accessoryId, bob.range),
      );
      try {
        expect(await bobHolds.status).toBe(200);
        const busy = await fetchBytes(
          `${t.url}${exportPath(carol.accessoryId, carol.range)}`,
          bearer(carol),
        );
        expect(busy.status).toBe(503);
        expect(JSON.parse(busy.bytes.toString()).error.code).toBe('UNAVAILABLE');
        expect(await metric(t, 'exportRefusals', 'busy')).toBe(1);
      } finally {
        bobHolds.destroy();
      }
    } finally {
      first.destroy();
      second.destroy();
    }
    // Alice's slot is freed when her client goes away.
    await waitFor('the slots to free', async () => (await metric(t, 'exportSlots')) === 0);
    const again = await fetchBytes(
      `${t.url}${exportPath(alice.accessoryId, alice.range)}`,
      bearer(alice),
    );
    expect(again.status).toBe(200);
    expect(again.bytes.length).toBeGreaterThan(big.length * 0.9);
  }, 60_000);
});

describe('slow readers and signed URLs', () => {
  let t: TestApp;
  let alice: Owner;
  let bob: Owner;

  beforeAll(async () => {
    // One slot: Bob's export gets it once Alice's slow reader has lost it.
    t = await startApp('pglite', {
      EXPORT_CONCURRENCY: '1',
      EXPORT_MIN_READ_BYTES_PER_S: String(256 * 1024),
      EXPORT_READ_WINDOW_S: '1',
      EXPORT_URL_RATE_PER_MINUTE: '1',
      EXPORT_URL_BURST: '2',
    });
    alice = await owner(t, 'alice', [big]);
    bob = await owner(t, 'bob', [clip.mp4, clip.mp4]);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  it('cuts an export whose client reads slower than EXPORT_MIN_READ_BYTES_PER_S', async () => {
    // 1 KiB every 200 ms: each read resets an idle timeout, so only the rate catches it.
    const slow = slowReader(t.url, exportPath(alice.accessoryId, alice.range), {
      headers: bearer(alice),
      bytes: 1024,
      everyMs: 200,
    });
    try {
      expect(await slow.status).toBe(200);
      const bobs = await waitFor(
        "the slow reader to be cut, and Bob's export to get the slot",
        async () => {
          const res = await fetchBytes(
            `${t.url}${exportPath(bob.accessoryId, bob.range)}`,
            bearer(bob),
          );
          return res.status !== 503 && res;
        },
        15_000,
      );
      expect(bobs.status).toBe(200);
    } finally {
      slow.destroy();
    }
    expect(await metric(t, 'exportCuts', 'slow_reader')).toBe(1);
    await waitFor('the work directory to go', async () => (await exportDirs(t)).length === 0);

    // A client that reads as fast as the export is made is not cut, however long it takes.
    const res = await fetchBytes(
      `${t.url}${exportPath(alice.accessoryId, alice.range)}`,
      bearer(alice),
    );
    expect(res.status).toBe(200);
    expect(res.bytes.length).toBeGreaterThan(big.length * 0.9);
    expect(await metric(t, 'exportCuts', 'slow_reader')).toBe(1);
  }, 60_000);

  it('limits the requests of each signed export URL (429 RATE_LIMITED, Retry-After)', async () => {
    const signer = t.app.services.media.signer;
    const signed = signer.exportUrl(bob.accessoryId, bob.range);
    const url = `${t.url}${signed}`;
    expect((await fetchBytes(url, {}, 'HEAD')).status).toBe(200);
    expect((await fetchBytes(url)).status).toBe(200);
    const refused = await fetchBytes(url);
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(50); // one request a minute
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(refused.headers.get('ratelimit-policy')).toBe('"export-url";q=2;w=120');
    expect(JSON.parse(refused.bytes.toString()).error).toMatchObject({
      code: 'RATE_LIMITED',
      details: { limit: 'EXPORT_URL_RATE_PER_MINUTE', retryAfterSeconds: retryAfter },
    });
    expect((await fetchBytes(url, {}, 'HEAD')).status).toBe(429);
    expect(await metric(t, 'exportRefusals', 'url_rate_limited')).toBe(2);

    // Another URL has a bucket of its own, and a bearer export its caller's rate limit.
    const other = { start: bob.range.start, end: new Date(bob.range.end.getTime() + 1000) };
    expect((await fetchBytes(`${t.url}${signer.exportUrl(bob.accessoryId, other)}`)).status).toBe(
      200,
    );
    expect(
      (await fetchBytes(`${t.url}${exportPath(bob.accessoryId, bob.range)}`, bearer(bob))).status,
    ).toBe(200);
    // A signature that does not verify is a 403 and takes nothing from any bucket.
    const forged = signed.replace(/\.([\w-])/, (_m, c: string) => `.${c === 'A' ? 'B' : 'A'}`);
    for (let i = 0; i < 3; i++) expect((await fetchBytes(`${t.url}${forged}`)).status).toBe(403);
  });
});

describe('the export deadline (EXPORT_TIMEOUT_S) and ffmpeg', () => {
  let t: TestApp;
  let alice: Owner;
  let bob: Owner;
  let bin: string;
  /** What the wrapped ffmpeg does with an export: join (the real one), or hang. */
  const mode = (m: 'join' | 'silent' | 'stall') => fs.writeFile(path.join(bin, 'mode'), m);
  const pids = async () =>
    (await fs.readFile(path.join(bin, 'pids'), 'utf8').catch(() => ''))
      .split('\n')
      .filter(Boolean)
      .map(Number);
  const alive = (pid: number) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };

  beforeAll(async () => {
    // An ffmpeg that runs the real one, except for exports while told to hang: then it writes
    // nothing (silent) or a few bytes (stall) and sleeps, as a stuck ffmpeg would.
    bin = await fs.mkdtemp(path.join(scratch, 'bin-'));
    const wrapper = path.join(bin, 'ffmpeg');
    await fs.writeFile(
      wrapper,
      `#!/bin/sh
case " $* " in
  *" -f concat "*)
    echo $$ >> '${bin}/pids'
    case "$(cat '${bin}/mode' 2>/dev/null)" in
      silent) exec sleep 600 ;;
      stall) printf 'stalled'; exec sleep 600 ;;
    esac ;;
esac
exec '${requireTool('ffmpeg')}' "$@"
`,
      { mode: 0o755 },
    );
    await mode('join');
    // One slot: the next export gets it once the deadline has freed it.
    t = await startApp('pglite', {
      FFMPEG_PATH: wrapper,
      EXPORT_CONCURRENCY: '1',
      EXPORT_TIMEOUT_S: '2',
      EXPORT_MIN_READ_BYTES_PER_S: '0',
    });
    alice = await owner(t, 'alice', [big]);
    bob = await owner(t, 'bob', [clip.mp4]);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  it('cuts an export at its deadline, whatever its client reads, and kills ffmpeg', async () => {
    // A client that reads nothing (the idle timeout is a minute): ffmpeg blocks on its output.
    const res = await new Promise<http.IncomingMessage>((resolve, reject) =>
      http
        .get(
          `${t.url}${exportPath(alice.accessoryId, alice.range)}`,
          { headers: bearer(alice) },
          resolve,
        )
        .on('error', reject),
    );
    res.on('error', () => {});
    expect(res.statusCode).toBe(200);
    const [pid] = await pids();
    expect(alive(pid!)).toBe(true);
    const next = await waitFor(
      'the deadline to cut the export and free its slot',
      async () => {
        const answer = await fetchBytes(
          `${t.url}${exportPath(bob.accessoryId, bob.range)}`,
          bearer(bob),
        );
        return answer.status !== 503 && answer;
      },
      10_000,
    );
    expect(next.status).toBe(200);
    await waitFor('ffmpeg to be killed', async () => !alive(pid!));
    expect(await metric(t, 'exportCuts', 'deadline')).toBe(1);
    res.destroy();
  }, 30_000);

  it('kills an ffmpeg that stalls: the download ends broken, not short', async () => {
    await mode('stall');
    const started = Date.now();
    const res = await fetch(`${t.url}${exportPath(alice.accessoryId, alice.range)}`, {
      headers: bearer(alice),
    });
    expect(res.status).toBe(200);
    await expect(res.arrayBuffer()).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(10_000);
    const pid = (await pids()).at(-1)!;
    await waitFor('ffmpeg to be killed', async () => !alive(pid));
    expect(await metric(t, 'exportCuts', 'deadline')).toBe(2);
  }, 30_000);

  it('answers 503 when ffmpeg writes nothing before the deadline', async () => {
    await mode('silent');
    const started = Date.now();
    const res = await fetchBytes(
      `${t.url}${exportPath(alice.accessoryId, alice.range)}`,
      bearer(alice),
    );
    expect(res.status).toBe(503);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(res.headers.get('retry-after')).toBe('5');
    expect(JSON.parse(res.bytes.toString()).error.message).toMatch(/EXPORT_TIMEOUT_S/);
    const pid = (await pids()).at(-1)!;
    await waitFor('ffmpeg to be killed', async () => !alive(pid));
    await waitFor('the work directory to go', async () => (await exportDirs(t)).length === 0);
    await mode('join');
    expect(
      (await fetchBytes(`${t.url}${exportPath(bob.accessoryId, bob.range)}`, bearer(bob))).status,
    ).toBe(200);
  }, 30_000);
});

describe('the bytes one export joins (EXPORT_MAX_BYTES), with the S3 store', () => {
  let t: TestApp;
  let s3: Awaited<ReturnType<typeof startS3>>;
  let alice: Owner;
  const copied: string[] = [];

  beforeAll(async () => {
    s3 = await startS3();
    // Room for two clips of three.
    t = await startApp('pglite', {
      ...s3.env,
      MEDIA_MAX_MP4_BYTES: String(clip.mp4.length),
      EXPORT_MAX_BYTES: String(2 * clip.mp4.length),
    });
    alice = await owner(t, 'alice', [clip.mp4, clip.mp4, clip.mp4]);
    // Every copy the store makes for an export (packaging makes its own), to see that a
    // refused one makes none.
    const store = t.app.services.media.store;
    const localCopy = store.localCopy.bind(store);
    store.localCopy = (key, dir, signal) => {
      if (path.basename(dir).startsWith('export-')) copied.push(key);
      return localCopy(key, dir, signal);
    };
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await s3?.close();
  });

  it('refuses a range whose clips add up to more, before copying any (400 naming end)', async () => {
    const two = { start: alice.range.start, end: new Date(alice.range.start.getTime() + 15_000) };
    const ok2 = await fetchBytes(`${t.url}${exportPath(alice.accessoryId, two)}`, bearer(alice));
    expect(ok2.status).toBe(200);
    expect(Math.abs((await duration(ok2.bytes)) - 6)).toBeLessThanOrEqual(1);
    expect(copied).toHaveLength(2);

    const res = await fetchBytes(
      `${t.url}${exportPath(alice.accessoryId, alice.range)}`,
      bearer(alice),
    );
    expect(res.status).toBe(400);
    expect(JSON.parse(res.bytes.toString()).error).toMatchObject({
      code: 'INVALID_ARGUMENT',
      details: {
        field: 'end',
        limit: 'EXPORT_MAX_BYTES',
        max: 2 * clip.mp4.length,
        measured: 3 * clip.mp4.length,
      },
    });
    expect(copied).toHaveLength(2); // nothing staged for it
    expect(await exportDirs(t)).toEqual([]);
    const head = await fetchBytes(
      `${t.url}${exportPath(alice.accessoryId, alice.range)}`,
      bearer(alice),
      'HEAD',
    );
    expect(head.status).toBe(400);
    // GraphQL hands out no URL for it either.
    const url = await gql(t.url, alice.reader, ExportUrlDocument, {
      accessoryId: alice.accessoryId,
      start: alice.range.start.toISOString(),
      end: alice.range.end.toISOString(),
    });
    expect(url.errors?.[0]?.extensions).toMatchObject({
      code: 'INVALID_ARGUMENT',
      details: { field: 'end', limit: 'EXPORT_MAX_BYTES' },
    });
    expect(await metric(t, 'exportRefusals', 'too_large')).toBe(3);
  });
});
