/**
 * The dashboard (web/) in a real browser: Debian's Chromium driven by playwright-core, against
 * the whole service on the embedded database (test/helpers/browser.ts: skipped without
 * Chromium, except in CI).
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rest } from '../helpers/client.ts';
import { startApp, type TestApp } from '../helpers/app.ts';
import { browserSuiteRuns, launchChromium } from '../helpers/browser.ts';
import {
  AssociateAccessory,
  CreateActivity,
  FinishActivity,
  ok,
  seedAccessory,
  seedActivities,
} from '../helpers/fixtures.ts';
import { parseActivityId } from '../../src/activity-ids.ts';
import { ffprobe, makeClip, upload } from '../media/helpers.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));

describe.runIf(browserSuiteRuns('dashboard browser test'))('dashboard in Chromium', () => {
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  let outDir: string;
  let ingest: string;
  let accountId: string;
  let accessoryId: string;
  let ids: string[];
  const pageErrors: string[] = [];

  beforeAll(async () => {
    // Build the current web/ source, so that a stale web/dist is never what gets tested.
    outDir = await fs.mkdtemp(path.join(os.tmpdir(), 'clipgate-web-'));
    const { build } = await import('vite');
    await build({
      configFile: path.join(root, 'web/vite.config.ts'),
      build: { outDir, emptyOutDir: true, sourcemap: false },
      logLevel: 'warn',
    });
    process.env.WEB_DIST_DIR = outDir;

    t = await startApp('pglite');
    ({ ingest, accountId, accessoryId } = await seedAccessory(t));
    ids = await seedActivities(t, ingest, accessoryId, 30); // the page holds 20
    const clip = await makeClip();
    const newest = ids[ids.length - 1]!;
    expect((await upload(t, ingest, accessoryId, newest, 'mp4', clip.mp4)).status).toBe(201);
    expect((await upload(t, ingest, accessoryId, newest, 'image', clip.jpg)).status).toBe(201);
    await fs.rm(clip.dir, { recursive: true, force: true });

    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    page.on('pageerror', (err) => pageErrors.push(err.message));
    page.on('console', (msg) => {
      if (msg.type() === 'error') pageErrors.push(msg.text());
    });
    page.on('response', (res) => {
      if (res.status() >= 400) pageErrors.push(`HTTP ${res.status()} ${res.url()}`);
    });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    delete process.env.WEB_DIST_DIR;
    if (outDir) await fs.rm(outDir, { recursive: true, force: true });
  });

  const rowIds = () =>
    page
      .locator('[data-activity]')
      .evaluateAll((els) => els.map((e) => e.getAttribute('data-activity')));

  it('serves the build with content types and cache headers', async () => {
    const html = await fetch(`${t.url}/app`);
    expect(html.status).toBe(200);
    expect(html.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(html.headers.get('cache-control')).toBe('no-cache');
    const script = /src="(\/app\/assets\/[^"]+\.js)"/.exec(await html.text())?.[1];
    expect(script).toBeDefined();
    const js = await fetch(`${t.url}${script}`);
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(js.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect((await fetch(`${t.url}/app/assets/nope.js`)).status).toBe(404);
    // Without a build: a 503 that says what to run.
    process.env.WEB_DIST_DIR = path.join(outDir, 'missing');
    const unbuilt = await fetch(`${t.url}/app`);
    process.env.WEB_DIST_DIR = outDir;
    expect(unbuilt.status).toBe(503);
    expect(await unbuilt.text()).toContain('npm run build:web');
    expect((await fetch(`${t.url}/app/..%2f..%2fpackage.json`)).status).toBe(404);
  });

  it('shows the newest page, loads older ones on scroll, and live arrivals', async () => {
    const token = await t.token(['activities_basic', 'zones', 'notifications']);
    await page.goto(`${t.url}/app#token=${token}`);
    await page.getByRole('button', { name: /Camera camera-1/ }).waitFor();
    // The token left the address bar and this history entry at once; a reload still works,
    // from this tab's sessionStorage.
    expect(page.url()).toBe(`${t.url}/app`);
    expect(await page.evaluate(() => [location.hash, history.state])).toEqual(['', null]);
    // The API reference, a link away.
    expect(await page.getByRole('link', { name: 'API reference' }).getAttribute('href')).toBe(
      '/docs',
    );
    await page.reload();
    await page.getByRole('button', { name: /Camera camera-1/ }).waitFor();
    expect(page.url()).toBe(`${t.url}/app`);
    await page.locator(`[data-activity="${ids[29]}"]`).waitFor();
    expect(await rowIds()).toEqual(ids.slice(10).reverse());

    // The last 24 hours per hour: the 30 seeded activities, in the bars of the page's clock.
    const counted = () =>
      page
        .locator('#counts .hour')
        .evaluateAll((bars) => bars.map((b) => Number(b.getAttribute('data-count'))));
    await expect.poll(async () => (await counted()).length).toBe(24);
    expect((await counted()).reduce((a, b) => a + b, 0)).toBe(30);
    // A live query (`query @live`) keeps them: no request of the page's own.
    // (the page before the reload ends its own as its socket closes).
    await expect
      .poll(async () => (await t.app.services.metrics.liveQueries.get()).values[0]?.value)
      .toBe(1);

    // Scrolling to the end loads the older page.
    await page.locator('#scroller').evaluate((el) => (el.scrollTop = el.scrollHeight));
    await page.locator(`[data-activity="${ids[0]}"]`).waitFor();
    expect(await rowIds()).toEqual([...ids].reverse());
    await page.getByText('No older activities.').waitFor();

    // A new activity appears without a reload, then its update (finished).
    await page.locator('#live.on').waitFor();
    const { createActivity } = await ok(t, ingest, CreateActivity, {
      accessoryId,
      input: { relevanceLevel: 3 },
    });
    const row = page.locator(`[data-activity="${createActivity.activityId}"]`);
    await row.waitFor();
    expect((await rowIds())[0]).toBe(createActivity.activityId);
    // The chart counts it too: the server sends its live query again.
    await expect
      .poll(async () => (await counted()).reduce((a, b) => a + b, 0), { timeout: 10_000 })
      .toBe(31);
    await row.locator('.live-badge').waitFor();
    await ok(t, ingest, FinishActivity, {
      accessoryId,
      activityId: createActivity.activityId,
      endTime: new Date(Date.now() + 2000).toISOString(),
    });
    await row.locator('.live-badge').waitFor({ state: 'detached' });
  }, 60_000);

  it('plays the clip of a selected activity', async () => {
    await page.locator(`[data-activity="${ids[29]}"]`).click();
    const video = page.locator('#media video');
    await video.waitFor();
    expect(await video.getAttribute('src')).toMatch(/\/signed\/[^/]+\/mp4$/);
    await video.evaluate(async (v: HTMLVideoElement) => {
      v.muted = true;
      await v.play();
    });
    await page.waitForFunction(
      () => (document.querySelector('#media video') as HTMLVideoElement).currentTime > 0.3,
    );
    // One without media says so.
    await page.locator(`[data-activity="${ids[28]}"]`).click();
    await page.locator('#media .no-media').getByText('No media').waitFor();
    await page.locator(`[data-activity="${ids[29]}"]`).click();
    await page.locator('#media video').waitFor();
  }, 60_000);

  it('exports the clips of the time box as one MP4', async () => {
    // The box around the newest seeded activity, the one with a clip (the others are a minute
    // apart and 20 s long), typed as the browser's local time.
    const start = parseActivityId(ids[29]!)!.getTime();
    const local = (ms: number) =>
      page.evaluate((at) => {
        const d = new Date(at);
        const p = (n: number) => String(n).padStart(2, '0');
        return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
      }, ms);
    const exportButton = page.getByRole('button', { name: 'Export MP4' });
    const status = page.locator('#export-status');

    // A box without any clip says so.
    await page.locator('#from').fill(await local(start - 20 * 60_000));
    await page.locator('#to').fill(await local(start - 19 * 60_000));
    await exportButton.click();
    await status.getByText('No clip with video in this time box.').waitFor();

    await page.locator('#from').fill(await local(start - 30_000));
    await page.locator('#to').fill(await local(start + 30_000));
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.locator(`[data-activity="${ids[29]}"]`).waitFor();
    const [download] = await Promise.all([page.waitForEvent('download'), exportButton.click()]);
    expect(download.suggestedFilename()).toMatch(new RegExp(`^export-${accessoryId}-.+\\.mp4$`));
    const file = await download.path();
    const probe = await ffprobe(file);
    expect(probe.streams[0]).toMatchObject({ codec_name: 'h264', width: 320, height: 240 });
    expect(Math.abs(Number(probe.format.duration) - 3)).toBeLessThanOrEqual(1);
    await status.getByRole('link', { name: 'download again' }).waitFor();
  }, 60_000);

  it('edits zones by dragging a corner and by its coordinates, and saves them', async () => {
    await page.getByRole('button', { name: 'Add zone' }).click();
    await page.locator('#zone-0-v0-x').fill('0.2');
    // Drag the third corner to the frame's center.
    const handle = page.locator('[data-handle="0.2"]');
    const box = (await handle.boundingBox())!;
    const frame = (await page.locator('#overlay').boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(frame.x + frame.width * 0.6, frame.y + frame.height * 0.5, { steps: 5 });
    await page.mouse.up();
    expect(Number(await page.locator('#zone-0-v2-x').inputValue())).toBeCloseTo(0.6, 1);
    await page.getByRole('button', { name: 'Save zones' }).click();
    await page.locator('#zones-status').getByText('Saved').waitFor();
    const saved = await rest(
      t.url,
      await t.token(['activities_basic']),
      'GET',
      `/api/accessories/${accessoryId}/zones`,
    );
    const vertices = saved.body.zones[0].vertices;
    expect(vertices[0].x).toBe(0.2);
    expect(vertices[2].x).toBeCloseTo(0.6, 1);
    expect(vertices[2].y).toBeCloseTo(0.5, 1);
    // The notifications panel answers for this client (none registered).
    await page.getByText('No receiver registered for this client.').waitFor();
    // A registration shows with its filter.
    const filter = 'relevanceLevel >= 2 AND contains(motionZones, "z1")';
    const notifier = await t.token(['notifications']); // the page's subject and client
    const registered = await rest(t.url, notifier, 'PUT', '/api/accounts/self/notifications', {
      url: 'https://receiver.example.com/hooks',
      authKey: 'a-receiver-key-of-enough-length',
      eventTypes: ['account_deleted'],
      filter,
    });
    expect(registered.status).toBe(200);
    await page.locator('#notif-refresh').click();
    await page.locator('#notif-body code.filter', { hasText: filter }).waitFor();

    // The frame with the saved zone over the clip, for the record.
    await page.locator('.detail').evaluate((el) => (el.scrollTop = 0));
    await fs.mkdir(path.join(root, 'test/artifacts'), { recursive: true });
    await page.screenshot({ path: path.join(root, 'test/artifacts/dashboard.png') });
    expect(pageErrors).toEqual([]);
  }, 60_000);

  it("shows the receiver's health and enables a disabled one", async () => {
    const token = await t.token(['notifications']);
    const registered = await rest(t.url, token, 'PUT', '/api/accounts/self/notifications', {
      url: 'https://hooks.example.com/clipgate',
      authKey: 'dashboard-receiver-key-0123',
      eventTypes: ['activity_created'],
      maxPerSecond: 5,
    });
    expect(registered.status).toBe(200);
    // Disabled as 72 hours of failures would leave it (the receiver test covers how).
    await t.app.services.db.pool.query(
      `UPDATE notification_registrations
          SET disabled_at = now(), disabled_reason = 'every attempt failed for 72 hours'`,
    );
    await page.getByRole('button', { name: 'Refresh delivery log' }).click();
    const health = page.locator('#receiver-health');
    await health.getByText('disabled').waitFor();
    expect(await health.textContent()).toContain('every attempt failed for 72 hours');
    expect(await health.textContent()).toContain('at most 5 per second');
    expect(await health.textContent()).toContain('signed hmac-sha256');
    expect(await health.textContent()).not.toContain('key rotation');
    await health.getByRole('button', { name: 'Enable' }).click();
    await health.getByText('healthy').waitFor();
    expect(await health.textContent()).toMatch(/^Health: active/);
    // Its signing mode, and a rotation's overlap while one is on.
    const rotated = await rest(t.url, token, 'POST', '/api/accounts/self/notifications/rotate', {
      overlapSeconds: 3600,
    });
    expect(rotated.status).toBe(200);
    const ed25519 = await rest(t.url, token, 'PUT', '/api/accounts/self/notifications', {
      url: 'https://hooks.example.com/clipgate',
      authKey: 'dashboard-receiver-key-0123',
      eventTypes: ['activity_created'],
      signing: 'ed25519',
    });
    await rest(t.url, token, 'POST', '/api/accounts/self/notifications/rotate', {});
    await page.getByRole('button', { name: 'Refresh delivery log' }).click();
    await health.getByText('key rotation').waitFor();
    expect(await health.textContent()).toContain('signed ed25519 (public key whpk_');
    expect(await health.textContent()).not.toContain(ed25519.body.publicKey); // rotated since
    // The operational event of it arrives live.
    const enabled = page.locator('#receiver-events li[data-event-type="receiver_enabled"]');
    await enabled.waitFor();
    expect(await enabled.textContent()).toContain(
      "receiver_enabled client-1's receiver https://hooks.example.com/clipgate enabled",
    );
    expect(pageErrors).toEqual([]);
  }, 60_000);

  it('registers an mqtt destination through the form and shows its kind, never its password', async () => {
    const form = page.locator('#destination-form');
    const password = 'a-broker-password-never-shown';
    const topic = 'clipgate/{accountId}/{accessoryId}/{eventType}';
    // The form holds the registration as it is: a webhook, with no broker fields.
    await expect.poll(() => form.locator('#dest-kind').inputValue()).toBe('webhook');
    expect(await form.locator('#dest-url').inputValue()).toBe('https://hooks.example.com/clipgate');
    expect(await form.locator('#dest-topic').isVisible()).toBe(false);
    expect(await form.locator('#dest-password').isVisible()).toBe(false);
    // An AMQP destination has an exchange and a routing key; MQTT a topic and no exchange.
    await form.locator('#dest-kind').selectOption('amqp');
    expect(await form.locator('#dest-exchange').isVisible()).toBe(true);
    expect(await form.locator('label[for="dest-topic"]').textContent()).toBe('Routing key');
    await form.locator('#dest-kind').selectOption('mqtt');
    expect(await form.locator('#dest-exchange').isVisible()).toBe(false);
    await form.locator('#dest-url').fill('mqtts://broker.example.com:8883');
    await form.locator('#dest-topic').fill(topic);
    await form.locator('#dest-username').fill('house');
    await form.locator('#dest-password').fill(password);
    await form.locator('#dest-auth-key').fill('dashboard-broker-key-0123456789');
    await form.locator('#dest-event-types').fill('account_deleted');
    await form.getByRole('button', { name: 'Register' }).click();
    await page.locator('#destination-status').getByText('Registered: mqtt').waitFor();

    const line = page.locator('#destination[data-kind="mqtt"]');
    await line.waitFor();
    expect(await line.textContent()).toMatch(
      `Destination mqtt mqtts://broker.example.com:8883 topic ${topic}, credentials set for account_deleted (updated `,
    );
    // Write-only: the page holds the password nowhere, nor the key.
    expect(await form.locator('#dest-password').inputValue()).toBe('');
    expect(await form.locator('#dest-auth-key').inputValue()).toBe('');
    expect(await page.content()).not.toContain(password);
    expect(await form.locator('#dest-kind').inputValue()).toBe('mqtt');
    const registered = await rest(
      t.url,
      await t.token(['notifications']),
      'GET',
      '/api/accounts/self/notifications',
    );
    expect(registered.body).toMatchObject({
      kind: 'mqtt',
      url: 'mqtts://broker.example.com:8883',
      topic,
      exchange: null,
      hasCredentials: true,
      eventTypes: ['account_deleted'],
      signing: 'ed25519', // kept from the registration it replaced
    });
    await page.locator('#notifications').screenshot({
      path: path.join(root, 'test/artifacts/dashboard-destination.png'),
    });
    expect(pageErrors).toEqual([]);
  }, 60_000);

  it("shows every camera's activities on one timeline, with its counts and live arrivals", async () => {
    const { associateAccessory: second } = await ok(t, ingest, AssociateAccessory, {
      accountId,
      deviceId: 'camera-2',
      name: 'Camera camera-2',
    });
    // Three activities among the first camera's newest ones, a minute apart.
    const secondIds = await seedActivities(t, ingest, second.id, 3, 90_000);
    await page.goto(`${t.url}/app`); // the token stays in this tab's sessionStorage
    await page.getByRole('button', { name: 'Clear' }).click();
    await page.getByRole('button', { name: /All cameras/ }).click();
    await page.locator(`[data-accessory-id="${second.id}"]`).first().waitFor();

    // The rows are the account timeline's first page, the second camera's among them.
    const rows = () =>
      page
        .locator('[data-activity]')
        .evaluateAll((els) =>
          els.map(
            (e) => `${e.getAttribute('data-activity')}:${e.getAttribute('data-accessory-id')}`,
          ),
        );
    const timeline = await rest(
      t.url,
      await t.token(['activities_basic']),
      'POST',
      '/api/activities',
      {
        limit: 20,
      },
    );
    const expected = timeline.body.activities.map(
      (a: { activityId: string; accessoryId: string }) => `${a.activityId}:${a.accessoryId}`,
    );
    await expect.poll(rows).toEqual(expected);
    for (const id of secondIds) expect(expected).toContain(`${id}:${second.id}`);
    expect(await page.locator('.activity .camera', { hasText: 'Camera camera-2' }).count()).toBe(3);

    // Every camera's counts: the first camera's 31 and the second's 3.
    const counted = () =>
      page
        .locator('#counts .hour')
        .evaluateAll((bars) =>
          bars.reduce((sum, b) => sum + Number(b.getAttribute('data-count')), 0),
        );
    await expect.poll(counted).toBe(34);

    // An activity of either camera arrives at the top, and in the counts.
    await page.locator('#live.on').waitFor();
    const { createActivity } = await ok(t, ingest, CreateActivity, {
      accessoryId: second.id,
      input: { relevanceLevel: 2 },
    });
    const row = page.locator(
      `[data-activity="${createActivity.activityId}"][data-accessory-id="${second.id}"]`,
    );
    await row.waitFor();
    expect((await rows())[0]).toBe(`${createActivity.activityId}:${second.id}`);
    await expect.poll(counted, { timeout: 10_000 }).toBe(35);

    // Selecting an activity shows its camera and that camera's zones: the first camera's (the
    // one selected before All cameras) has the zone saved above, the second's none. An export
    // needs one camera.
    await page.locator(`[data-accessory-id="${accessoryId}"]`).first().click();
    await page.locator('#facts dd', { hasText: 'Camera camera-1' }).waitFor();
    await page.locator('#zone-0-name').waitFor();
    await row.click();
    await page.locator('#facts dd', { hasText: 'Camera camera-2' }).waitFor();
    await expect.poll(() => page.locator('#zones input').count()).toBe(0);
    await page.getByRole('button', { name: 'Export MP4' }).click();
    await page
      .locator('#export-status')
      .getByText('Choose a camera to export its clips.')
      .waitFor();
    expect(pageErrors).toEqual([]);
  }, 60_000);
});
