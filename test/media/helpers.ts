import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import S3rver from 's3rver';
import { expect, vi } from 'vitest';
import { requireTool } from '../../src/media/ffmpeg.ts';
import type { TestApp } from '../helpers/app.ts';

export const run = promisify(execFile);

/** An S3-protocol server (s3rver) on a loopback port, with one bucket, in a temporary directory. */
export async function startS3(): Promise<{ env: Record<string, string>; close(): Promise<void> }> {
  const directory = await fs.mkdtemp(path.join(os.tmpdir(), 'clipgate-s3-'));
  const bucket = 'clipgate-media';
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    directory,
    silent: true,
    configureBuckets: [{ name: bucket }],
  });
  const { port } = await server.run();
  return {
    env: {
      MEDIA_S3_BUCKET: bucket,
      MEDIA_S3_ENDPOINT: `http://127.0.0.1:${port}`,
      MEDIA_S3_REGION: 'us-east-1',
      MEDIA_S3_ACCESS_KEY_ID: 'S3RVER',
      MEDIA_S3_SECRET_ACCESS_KEY: 'S3RVER',
    },
    close: async () => {
      server.httpServer?.closeAllConnections();
      await server.close();
      await fs.rm(directory, { recursive: true, force: true });
    },
  };
}

export interface Clip {
  dir: string;
  mp4: Buffer;
  jpg: Buffer;
  sha256: { mp4: string; jpg: string };
}

/** A 3-second 320x240 H.264 clip (a keyframe a second) and a JPG, made with ffmpeg. */
export async function makeClip(): Promise<Clip> {
  const ffmpeg = requireTool('ffmpeg');
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'clipgate-clip-'));
  const mp4 = path.join(dir, 'clip.mp4');
  const jpg = path.join(dir, 'image.jpg');
  const lavfi = ['-nostdin', '-v', 'error', '-f', 'lavfi'];
  await run(ffmpeg, [
    ...lavfi,
    ...['-i', 'testsrc=duration=3:size=320x240:rate=25', '-c:v', 'libx264', '-g', '25'],
    ...['-pix_fmt', 'yuv420p', '-movflags', '+faststart', mp4],
  ]);
  await run(ffmpeg, [...lavfi, '-i', 'testsrc=size=160x120', '-frames:v', '1', jpg]);
  const [mp4Bytes, jpgBytes] = await Promise.all([fs.readFile(mp4), fs.readFile(jpg)]);
  return {
    dir,
    mp4: mp4Bytes,
    jpg: jpgBytes,
    sha256: { mp4: sha256(mp4Bytes), jpg: sha256(jpgBytes) },
  };
}

/**
 * A 2-second 640x480 clip of incompressible frames (about 24 MB): more than the socket buffers
 * hold, so that an export whose client does not read (or reads slowly) stays running.
 */
export async function makeBigClip(dir: string): Promise<Buffer> {
  const file = path.join(dir, `big-${crypto.randomUUID()}.mp4`);
  await run(requireTool('ffmpeg'), [
    ...['-nostdin', '-v', 'error', '-f', 'lavfi'],
    ...['-i', 'nullsrc=s=640x480:d=2:r=25,geq=random(1)*255:128:128'],
    ...['-c:v', 'libx264', '-preset', 'ultrafast', '-qp', '0', '-g', '25'],
    ...['-pix_fmt', 'yuv420p', '-y', file],
  ]);
  try {
    return await fs.readFile(file);
  } finally {
    await fs.rm(file, { force: true });
  }
}

/**
 * A GET over a raw socket that reads its answer slowly: the first chunk at once (the status
 * line), then `bytes` every `everyMs`, as an attacker holding a download open would. The
 * socket is paused otherwise, so the kernel's buffers fill and the server waits on it.
 */
export function slowReader(
  baseUrl: string,
  target: string,
  options: { headers?: Record<string, string>; bytes?: number; everyMs?: number } = {},
): { status: Promise<number>; received(): number; destroy(): void } {
  const { hostname, port } = new URL(baseUrl);
  const socket = net.connect(Number(port), hostname);
  const headers = { host: `${hostname}:${port}`, ...options.headers };
  socket.write(
    `GET ${target} HTTP/1.1\r\n${Object.entries(headers)
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('')}\r\n`,
  );
  let received = 0;
  let timer: NodeJS.Timeout | undefined;
  const status = new Promise<number>((resolve, reject) => {
    socket.once('error', reject);
    socket.once('readable', () => {
      const first = socket.read() as Buffer | null;
      received += first?.length ?? 0;
      resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(first?.toString('latin1') ?? '')?.[1]));
      timer = setInterval(() => {
        const chunk = socket.read(options.bytes ?? 1024) as Buffer | null;
        received += chunk?.length ?? 0;
      }, options.everyMs ?? 1000);
    });
  });
  socket.on('error', () => {});
  socket.once('close', () => clearInterval(timer));
  return {
    status,
    received: () => received,
    destroy: () => {
      clearInterval(timer);
      socket.destroy();
    },
  };
}

export const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** PUTs media as the ingest client does. */
export async function upload(
  t: TestApp,
  token: string | undefined,
  accessoryId: string,
  activityId: string,
  kind: 'image' | 'mp4',
  body: Buffer,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; body: any }> {
  const res = await fetch(`${t.url}${mediaPath(accessoryId, activityId)}/${kind}`, {
    method: 'PUT',
    headers: {
      'content-type': kind === 'mp4' ? 'video/mp4' : 'image/jpeg',
      ...(token && { authorization: `Bearer ${token}` }),
      ...headers,
    },
    body: Uint8Array.from(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

export const mediaPath = (accessoryId: string, activityId: string) =>
  `/api/accessories/${accessoryId}/activities/${activityId}`;

/** A GET (or HEAD) of raw bytes. */
export async function fetchBytes(
  url: string,
  headers: Record<string, string> = {},
  method = 'GET',
): Promise<{ status: number; headers: Headers; bytes: Buffer }> {
  const res = await fetch(url, { method, headers });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

/**
 * A raw HTTP request whose body is written as given (or not at all), for what fetch hides:
 * a declared Content-Length larger than what is sent, chunked bodies.
 */
export function rawRequest(
  url: string,
  options: { method: string; headers: Record<string, string | number>; body?: Buffer },
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: options.method, headers: options.headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.flushHeaders();
    if (options.body) req.write(options.body);
    // With a declared Content-Length, the body stays incomplete: the server answers first.
    if (!options.headers['content-length']) req.end();
  });
}

/** ffprobe's view of a URL (read over HTTP from the service). */
export async function ffprobe(url: string): Promise<{
  streams: { codec_name: string; width?: number; height?: number }[];
  format: { format_name: string; duration?: string };
}> {
  const { stdout } = await run(requireTool('ffprobe'), [
    ...['-v', 'error', '-print_format', 'json', '-show_streams', '-show_format', url],
  ]);
  return JSON.parse(stdout);
}

/** ffprobe reads the clip made by {@link makeClip} from both manifests, over HTTP. */
export async function expectPlayable(t: TestApp, media: { hls: string; mpd: string }) {
  for (const url of [media.hls, media.mpd]) {
    const probe = await ffprobe(`${t.url}${url}`);
    expect(probe.streams[0]).toMatchObject({ codec_name: 'h264', width: 320, height: 240 });
    expect(Number(probe.format.duration)).toBeCloseTo(3, 0);
  }
}

export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined | null | false>,
  timeoutMs = 30_000,
): Promise<T> {
  return vi.waitFor(
    async () => {
      const value = await probe();
      if (!value) throw new Error(`timed out waiting for ${what}`);
      return value;
    },
    { timeout: timeoutMs, interval: 100 },
  );
}
