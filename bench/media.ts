// bench/media: concurrent byte-range reads of a 50 MB MP4. Prints MB/s and p50/p99 time to first
// byte for 64 KiB and 1 MiB ranges at random offsets, through a signed URL and through the
// bearer form of the service (embedded database, filesystem store), beside the same file served
// by a bare Node fs.createReadStream handler, with the ratios, all measured in this one run. Also
// prints the upload rate and the time to package HLS and DASH.
//
//   npm run bench:media [-- --seconds 5 --concurrency 16 --mb 50]
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs, promisify } from 'node:util';
import { Pool } from 'undici';
import { signDevToken } from '../src/accounts/auth.ts';
import { load, startServer, type LoadResult } from './lib/load.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '5' },
    concurrency: { type: 'string', default: '16' },
    mb: { type: 'string', default: '50' },
  },
});
const seconds = Number(values.seconds);
const concurrency = Number(values.concurrency);
const targetBytes = Number(values.mb) * 1024 * 1024;
const run = promisify(execFile);

const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'clipgate-bench-media-'));
const clip = path.join(dir, 'clip.mp4');
{
  // A real H.264 clip of the wanted size: 2 s of lossless 720p, looped without re-encoding.
  const seed = path.join(dir, 'seed.mp4');
  const quiet = ['-nostdin', '-v', 'error', '-y'];
  await run('ffmpeg', [
    ...quiet,
    ...['-f', 'lavfi', '-i', 'testsrc2=size=1280x720:rate=25', '-t', '2'],
    ...['-c:v', 'libx264', '-preset', 'ultrafast', '-qp', '0', '-pix_fmt', 'yuv420p', '-g', '25'],
    seed,
  ]);
  const { size } = await fs.stat(seed);
  const loops = Math.ceil(targetBytes / size) + 1;
  await run('ffmpeg', [
    ...quiet,
    ...['-stream_loop', String(loops), '-i', seed, '-c', 'copy', '-fs', String(targetBytes)],
    ...['-movflags', '+faststart', clip],
  ]);
}
const size = (await fs.stat(clip)).size;
const body = Uint8Array.from(await fs.readFile(clip));
console.log(`clip: ${(size / 1e6).toFixed(1)} MB`);

const SECRET = 'bench-secret-0123456789abcdef0123456789';
const token = (scopes: string[]) =>
  signDevToken(SECRET, { sub: 'bench', clientId: 'bench', scopes, ttlSeconds: 3600 });
const ingest = await token(['service:ingest']);
const reader = await token(['service:activities_basic']);

const service = await startServer('src/main.ts', {
  PORT: '0',
  DATA_DIR: path.join(dir, 'data'),
  AUTH_DEV_SECRET: SECRET,
  MEDIA_URL_SECRET: 'bench-media-url-secret-0123456789',
  MEDIA_URL_TTL_S: '3600',
  // One token drives the whole load: per-client rate limits would measure 429s instead.
  RATE_LIMIT_RPS: '0',
  // startServer waits for the 'listening' line.
  LOG_LEVEL: 'info',
});
const base = `http://127.0.0.1:${service.port}`;

type Data = Record<string, Record<string, string>>;

async function gql(query: string, variables: Record<string, unknown>): Promise<Data> {
  const res = await fetch(`${base}/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ingest}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  const json = (await res.json()) as { data: Data; errors?: unknown };
  if (json.errors) throw new Error(JSON.stringify(json.errors));
  return json.data;
}
const { upsertAccount } = await gql(
  'mutation { upsertAccount(subject: "bench") { accountId } }',
  {},
);
const { associateAccessory } = await gql(
  'mutation($a: ID!) { associateAccessory(accountId: $a, deviceId: "cam", name: "Bench") { id } }',
  { a: upsertAccount!.accountId },
);
const accessoryId = associateAccessory!.id!;
const { createActivity } = await gql(
  'mutation($x: ID!) { createActivity(accessoryId: $x, input: {}) { activityId } }',
  { x: accessoryId },
);
const activityPath = `/api/accessories/${accessoryId}/activities/${createActivity!.activityId}`;

const uploadStart = performance.now();
const put = await fetch(`${base}${activityPath}/mp4`, {
  method: 'PUT',
  headers: { authorization: `Bearer ${ingest}`, 'content-type': 'video/mp4' },
  body,
});
if (put.status !== 201) throw new Error(`upload: ${put.status} ${await put.text()}`);
const uploadMs = performance.now() - uploadStart;
let media: { mp4: string; hls: string | null };
for (;;) {
  const res = await fetch(`${base}${activityPath}`, {
    headers: { authorization: `Bearer ${reader}` },
  });
  media = ((await res.json()) as { media: typeof media }).media;
  if (media.hls) break;
  await new Promise((r) => setTimeout(r, 100));
}
const packagedMs = performance.now() - uploadStart - uploadMs;
console.log(
  `upload: ${(size / 1e6 / (uploadMs / 1000)).toFixed(0)} MB/s (${uploadMs.toFixed(0)} ms); HLS + DASH packaged ${packagedMs.toFixed(0)} ms later`,
);

interface RangeResult extends LoadResult {
  mbps: number;
  ttfbP50: number;
  ttfbP99: number;
}

/** Random single ranges of `rangeBytes`, each read to the end; TTFB = until the headers. */
async function ranges(
  origin: string,
  pathname: string,
  headers: Record<string, string>,
  rangeBytes: number,
): Promise<RangeResult> {
  const http = new Pool(origin, { connections: concurrency });
  const ttfb: number[] = [];
  let recording = false;
  const warmupMs = 1000;
  setTimeout(() => (recording = true), warmupMs);
  const result = await load(
    concurrency,
    seconds * 1000,
    async () => {
      const start = Math.floor(Math.random() * (size - rangeBytes));
      const started = performance.now();
      const res = await http.request({
        method: 'GET',
        path: pathname,
        headers: { ...headers, range: `bytes=${start}-${start + rangeBytes - 1}` },
      });
      if (recording) ttfb.push(performance.now() - started);
      let got = 0;
      for await (const chunk of res.body) got += (chunk as Buffer).length;
      if (res.statusCode !== 206 || got !== rangeBytes) {
        throw new Error(`${pathname}: ${res.statusCode}, ${got} bytes`);
      }
    },
    warmupMs,
  );
  await http.close();
  ttfb.sort((a, b) => a - b);
  const at = (q: number) => ttfb[Math.min(ttfb.length - 1, Math.floor(q * ttfb.length))]!;
  return {
    ...result,
    mbps: (result.rps * rangeBytes) / 1e6,
    ttfbP50: at(0.5),
    ttfbP99: at(0.99),
  };
}

const show = (name: string, r: RangeResult) =>
  console.log(
    `${name.padEnd(34)} ${r.mbps.toFixed(0).padStart(6)} MB/s ${r.rps.toFixed(0).padStart(6)} req/s  TTFB p50 ${r.ttfbP50.toFixed(2).padStart(6)} ms  p99 ${r.ttfbP99.toFixed(2).padStart(6)} ms`,
  );

console.log(`\n${concurrency} concurrent clients, ${seconds} s per figure, random offsets\n`);
const results: Record<string, Record<string, RangeResult>> = {};
const sizes = [
  ['64 KiB', 64 * 1024],
  ['1 MiB', 1024 * 1024],
] as const;
// Untimed: the service's code paths compiled before the first figure.
await ranges(base, media.mp4, {}, 64 * 1024);
for (const [label, bytes] of sizes) {
  const signed = await ranges(base, media.mp4, {}, bytes);
  show(`clipgate signed URL, ${label}`, signed);
  const bearer = await ranges(
    base,
    `${activityPath}/mp4`,
    { authorization: `Bearer ${reader}` },
    bytes,
  );
  show(`clipgate bearer token, ${label}`, bearer);
  results[label] = { signed, bearer };
}
await service.stop();

const bare = await startServer('bench/bare-media-server.ts', { BENCH_FILE: clip });
await ranges(`http://127.0.0.1:${bare.port}`, '/', {}, 64 * 1024);
for (const [label, bytes] of sizes) {
  const r = await ranges(`http://127.0.0.1:${bare.port}`, '/', {}, bytes);
  show(`bare fs.createReadStream, ${label}`, r);
  results[label]!.bare = r;
}
await bare.stop();

console.log('\nratios (clipgate signed / bare): MB/s higher is better, TTFB p99 lower is better');
for (const [label] of sizes) {
  const { signed, bearer, bare: b } = results[label]!;
  console.log(
    `${label.padEnd(7)} signed: MB/s x${(signed!.mbps / b!.mbps).toFixed(2)}, TTFB p99 x${(signed!.ttfbP99 / b!.ttfbP99).toFixed(2)}` +
      `   bearer: MB/s x${(bearer!.mbps / b!.mbps).toFixed(2)}, TTFB p99 x${(bearer!.ttfbP99 / b!.ttfbP99).toFixed(2)}`,
  );
}
await fs.rm(dir, { recursive: true, force: true });
