/**
 * A camera simulator: drives a running service through its ingest API the way a camera pipeline
 * would, so that a dashboard has something to show.
 *
 *   npm run simulate -- --url http://127.0.0.1:4000 --accessories 3 --rate 6
 *
 * `--rate` is new activities per minute per accessory (default 6: one every ~10 s each, with
 * jitter). Each activity: motion started, createActivity, a few updateActivity calls as the
 * object moves (relevance, motionZones and objectLocations accumulate), a thumbnail and a clip
 * when the service has the media routes and ffmpeg is installed, finishActivity, motion ended.
 * Tokens are development tokens signed with the service's dev secret (DATA_DIR, as
 * scripts/token.ts does), for subject `demo` unless `--subject` says otherwise.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { loadDevSecret, signDevToken } from '../src/accounts/auth.ts';
import { loadConfig } from '../src/config.ts';
import { requireTool } from '../src/media/ffmpeg.ts';
import { rectangle } from '../src/zones/geometry.ts';

export interface SimulatorOptions {
  /** The service's base URL. */
  url: string;
  accessories: number;
  /** New activities per minute per accessory. */
  rate: number;
  subject: string;
  /** Stop after this many seconds; 0: until aborted. */
  durationS: number;
  /** auto: upload media when the service and ffmpeg allow; off: never; on: fail without. */
  media: 'auto' | 'on' | 'off';
  /** A token with ingest and zones scopes; default: a dev token signed here. */
  token?: string;
  signal?: AbortSignal;
  log?: (message: string) => void;
}

export const defaults: SimulatorOptions = {
  url: 'http://127.0.0.1:4000',
  accessories: 3,
  rate: 6,
  subject: 'demo',
  durationS: 0,
  media: 'auto',
};

const names = ['Porch', 'Driveway', 'Garden', 'Garage', 'Back door', 'Hallway', 'Side gate'];

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });

/** A development token for the simulator, signed with the dev secret of DATA_DIR. */
export async function simulatorToken(subject: string, ttlSeconds = 7 * 86400): Promise<string> {
  const config = loadConfig();
  if (config.auth.mode !== 'dev') {
    throw new Error(
      `the service is configured for ${config.auth.mode} authentication: pass --token`,
    );
  }
  const { secret } = await loadDevSecret(config.dataDir, config.auth.secret);
  const scope = (name: string) => `${config.scopePrefix}:${name}`;
  return signDevToken(secret, {
    sub: subject,
    clientId: 'simulator',
    scopes: [scope('ingest'), scope('zones'), scope('activities_basic')],
    ttlSeconds,
  });
}

class Api {
  constructor(
    private readonly url: string,
    private readonly token: string,
  ) {}

  async gql<T>(query: string, variables: Record<string, unknown> = {}): Promise<T> {
    const res = await fetch(`${this.url}/graphql`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/graphql-response+json, application/json',
        authorization: `Bearer ${this.token}`,
      },
      body: JSON.stringify({ query, variables }),
    });
    const body = (await res.json().catch(() => ({}))) as {
      data?: T;
      errors?: { message: string; extensions?: { code?: string } }[];
    };
    if (body.errors?.length || !body.data) {
      const e = body.errors?.[0];
      throw new Error(`${e?.extensions?.code ?? `HTTP ${res.status}`}: ${e?.message ?? 'no data'}`);
    }
    return body.data;
  }

  async put(pathname: string, contentType: string, body: Buffer): Promise<void> {
    const res = await fetch(`${this.url}${pathname}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${this.token}`, 'content-type': contentType },
      body: Uint8Array.from(body),
    });
    if (!res.ok) throw new Error(`PUT ${pathname}: HTTP ${res.status} ${await res.text()}`);
  }
}

interface Clip {
  mp4: Buffer;
  jpg: Buffer;
}

/** A few short H.264 clips and their first frames, made once with ffmpeg's test sources. */
async function makeClips(log: (m: string) => void): Promise<Clip[]> {
  const run = promisify(execFile);
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'clipgate-sim-'));
  const sources = [
    'testsrc2=size=320x240:rate=15',
    'smptebars=size=320x240:rate=15',
    'mandelbrot=size=320x240:rate=15',
    'life=size=320x240:rate=15:mold=10:ratio=0.1:life_color=#00ff00:death_color=#c83232',
  ];
  try {
    const ffmpeg = requireTool('ffmpeg');
    return await Promise.all(
      sources.map(async (source, i) => {
        const mp4 = path.join(dir, `clip-${i}.mp4`);
        const jpg = path.join(dir, `clip-${i}.jpg`);
        const lavfi = ['-nostdin', '-v', 'error', '-f', 'lavfi', '-i', source];
        await run(ffmpeg, [
          ...lavfi,
          ...['-t', '6', '-c:v', 'libx264', '-g', '15', '-pix_fmt', 'yuv420p'],
          ...['-movflags', '+faststart', mp4],
        ]);
        await run(ffmpeg, [...lavfi, '-frames:v', '1', jpg]);
        return { mp4: await fs.readFile(mp4), jpg: await fs.readFile(jpg) };
      }),
    );
  } catch (err) {
    log(`no media: ffmpeg failed (${err instanceof Error ? err.message.split('\n')[0] : err})`);
    return [];
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

/** Whether the service has the media upload routes (its OpenAPI document lists them). */
async function hasMediaRoutes(url: string): Promise<boolean> {
  try {
    const res = await fetch(`${url}/openapi.json`);
    const doc = (await res.json()) as { paths?: Record<string, Record<string, unknown>> };
    return Object.entries(doc.paths ?? {}).some(([p, ops]) => p.endsWith('/mp4') && 'put' in ops);
  } catch {
    return false;
  }
}

async function hasMutation(api: Api, name: string): Promise<boolean> {
  const data = await api.gql<{ __type: { fields: { name: string }[] } | null }>(
    '{ __type(name: "Mutation") { fields { name } } }',
  );
  return data.__type?.fields.some((f) => f.name === name) ?? false;
}

const defaultZones = [
  {
    id: 'z1',
    name: 'Door',
    color: '#ff8800',
    vertices: rectangle(0.05, 0.1, 0.35, 0.9),
  },
  {
    id: 'z2',
    name: 'Path',
    color: '#2b8cff',
    vertices: [
      { x: 0.45, y: 0.55 },
      { x: 0.95, y: 0.45 },
      { x: 0.95, y: 0.95 },
      { x: 0.55, y: 0.95 },
    ],
  },
];

/** Which of the default zones a grid cell (16x8) lies in, roughly. */
function zonesOfCell(cell: number): string[] {
  const x = ((cell % 16) + 0.5) / 16;
  const y = (Math.floor(cell / 16) + 0.5) / 8;
  const zones: string[] = [];
  if (x < 0.35 && y > 0.1 && y < 0.9) zones.push('z1');
  if (x > 0.5 && y > 0.5) zones.push('z2');
  return zones;
}

/** Runs until `durationS` passed or the signal aborts; resolves with the activities created. */
export async function simulate(options: SimulatorOptions): Promise<{ activities: number }> {
  const log = options.log ?? ((m: string) => console.log(`[simulate] ${m}`));
  const { signal } = options;
  const url = options.url.replace(/\/+$/, '');
  const api = new Api(url, options.token ?? (await simulatorToken(options.subject)));

  const { upsertAccount } = await api.gql<{ upsertAccount: { accountId: string } }>(
    'mutation($s: String!) { upsertAccount(subject: $s) { accountId } }',
    { s: options.subject },
  );
  const accessories: { id: string; name: string }[] = [];
  for (let i = 0; i < options.accessories; i++) {
    const name = names[i % names.length]! + (i >= names.length ? ` ${i + 1}` : '');
    const { associateAccessory } = await api.gql<{ associateAccessory: { id: string } }>(
      'mutation($a: ID!, $d: String!, $n: String!) { associateAccessory(accountId: $a, deviceId: $d, name: $n) { id } }',
      { a: upsertAccount.accountId, d: `sim-cam-${i + 1}`, n: name },
    );
    accessories.push({ id: associateAccessory.id, name });
    // Zones to draw over the frame, unless someone saved some already.
    try {
      const { accessory } = await api.gql<{
        accessory: { zones: { lastModified: string | null } } | null;
      }>('query($x: ID!) { accessory(id: $x) { zones { lastModified } } }', {
        x: associateAccessory.id,
      });
      if (accessory && !accessory.zones.lastModified) {
        await api.gql(
          'mutation($x: ID!, $z: [ZoneInput!]!) { saveZones(accessoryId: $x, zones: $z) { lastModified } }',
          { x: associateAccessory.id, z: defaultZones },
        );
      }
    } catch (err) {
      log(`zones not saved on ${name}: ${err instanceof Error ? err.message : err}`);
    }
  }
  log(
    `account ${upsertAccount.accountId} (subject ${options.subject}), ` +
      `accessories: ${accessories.map((a) => `${a.name} ${a.id}`).join(', ')}`,
  );

  const motion = await hasMutation(api, 'reportMotion').catch(() => false);
  let clips: Clip[] = [];
  if (options.media !== 'off') {
    if (await hasMediaRoutes(url)) clips = await makeClips(log);
    else log('no media: the service has no media upload routes');
    if (options.media === 'on' && clips.length === 0) throw new Error('--media on: no media');
  }
  log(
    `rate ${options.rate}/min per accessory, media ${clips.length ? 'on' : 'off'}, ` +
      `motion events ${motion ? 'on' : 'off'}`,
  );

  const stopAt = options.durationS > 0 ? Date.now() + options.durationS * 1000 : Infinity;
  const running = () => !signal?.aborted && Date.now() < stopAt;
  const intervalMs = 60_000 / Math.max(options.rate, 0.01);
  let created = 0;

  async function activity(accessory: { id: string; name: string }): Promise<void> {
    // Activities last 3..20 s and never outlast the interval between them.
    const lengthMs =
      Math.max(3_000, Math.min(20_000, intervalMs * 0.6)) * (0.6 + Math.random() * 0.4);
    let cell = Math.floor(Math.random() * 128);
    const cells = new Set([cell]);
    const zones = new Set(zonesOfCell(cell));
    let relevance = 0;
    if (motion) {
      await api.gql(
        'mutation($x: ID!, $z: [String!]) { reportMotion(accessoryId: $x, state: started, motionZones: $z) { eventId } }',
        { x: accessory.id, z: [...zones] },
      );
    }
    const { createActivity } = await api.gql<{ createActivity: { activityId: string } }>(
      'mutation($x: ID!, $i: CreateActivityInput!) { createActivity(accessoryId: $x, input: $i) { activityId } }',
      {
        x: accessory.id,
        i: { relevanceLevel: 0, motionZones: [...zones], objectLocations: [cell] },
      },
    );
    created++;
    const activityId = createActivity.activityId;
    const media = `/api/accessories/${accessory.id}/activities/${activityId}`;
    const clip = clips.length ? clips[Math.floor(Math.random() * clips.length)] : undefined;
    if (clip) await api.put(`${media}/image`, 'image/jpeg', clip.jpg).catch((e) => log(String(e)));
    const started = Date.now();
    while (Date.now() - started < lengthMs && !signal?.aborted) {
      await sleep(1000 + Math.random() * 1000, signal);
      // The object wanders to a neighbouring cell; what it crossed accumulates.
      const x = Math.min(15, Math.max(0, (cell % 16) + Math.round(Math.random() * 2 - 1)));
      const y = Math.min(7, Math.max(0, Math.floor(cell / 16) + Math.round(Math.random() * 2 - 1)));
      cell = y * 16 + x;
      cells.add(cell);
      for (const z of zonesOfCell(cell)) zones.add(z);
      relevance = Math.min(3, Math.max(relevance, Math.floor(cells.size / 3)));
      await api.gql(
        'mutation($x: ID!, $a: String!, $i: UpdateActivityInput!) { updateActivity(accessoryId: $x, activityId: $a, input: $i) { activityId } }',
        {
          x: accessory.id,
          a: activityId,
          i: { relevanceLevel: relevance, motionZones: [...zones], objectLocations: [...cells] },
        },
      );
    }
    if (clip) await api.put(`${media}/mp4`, 'video/mp4', clip.mp4).catch((e) => log(String(e)));
    await api.gql(
      'mutation($x: ID!, $a: String!, $e: DateTime!) { finishActivity(accessoryId: $x, activityId: $a, endTime: $e) { activityId } }',
      { x: accessory.id, a: activityId, e: new Date().toISOString() },
    );
    if (motion) {
      await api.gql(
        'mutation($x: ID!, $z: [String!]) { reportMotion(accessoryId: $x, state: ended, motionZones: $z) { eventId } }',
        { x: accessory.id, z: [...zones] },
      );
    }
    log(`${accessory.name}: ${activityId} relevance ${relevance} zones [${[...zones]}]`);
  }

  await Promise.all(
    accessories.map(async (accessory) => {
      // Spread the accessories over the first interval.
      await sleep(Math.random() * Math.min(intervalMs, 5_000), signal);
      while (running()) {
        const began = Date.now();
        try {
          await activity(accessory);
        } catch (err) {
          log(`${accessory.name}: ${err instanceof Error ? err.message : err}`);
        }
        const wait = intervalMs * (0.5 + Math.random()) - (Date.now() - began);
        await sleep(Math.max(1_000, Math.min(wait, stopAt - Date.now())), signal);
      }
    }),
  );
  return { activities: created };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      url: { type: 'string', default: defaults.url },
      accessories: { type: 'string', default: String(defaults.accessories) },
      rate: { type: 'string', default: String(defaults.rate) },
      subject: { type: 'string', default: defaults.subject },
      duration: { type: 'string', default: '0' },
      media: { type: 'string', default: 'auto' },
      token: { type: 'string' },
    },
  });
  const accessories = Number(values.accessories);
  const rate = Number(values.rate);
  const durationS = Number(values.duration);
  if (!Number.isInteger(accessories) || accessories < 1 || accessories > 100) {
    throw new Error('--accessories must be an integer 1..100');
  }
  if (!(rate > 0 && rate <= 600)) throw new Error('--rate must be activities per minute, 0..600');
  if (!(durationS >= 0)) throw new Error('--duration must be seconds (0: until Ctrl-C)');
  if (!['auto', 'on', 'off'].includes(values.media)) throw new Error('--media: auto, on or off');
  const controller = new AbortController();
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.once(sig, () => controller.abort());
  }
  const { activities } = await simulate({
    url: values.url,
    accessories,
    rate,
    subject: values.subject,
    durationS,
    media: values.media as SimulatorOptions['media'],
    token: values.token,
    signal: controller.signal,
  });
  console.log(`[simulate] done: ${activities} activities`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exitCode = 1;
  });
}
