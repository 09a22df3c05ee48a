/**
 * The API reference at /docs as a person meets it: every file from the service itself (the
 * network to any other host is cut and no request may try it), every REST operation and webhook
 * of /openapi.json listed, every channel, operation and message of /asyncapi.json shown, and an
 * operation tried with a token given to the Authorize button.
 */
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.ts';
import { browserSuiteRuns, launchChromium, onlyFrom } from '../helpers/browser.ts';
import { seedAccessory } from '../helpers/fixtures.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startApp('pglite');
});
afterAll(() => t.close());

const views = ['/docs', '/docs/events'];

/** The files a page links to (stylesheets, icon, scripts). */
const linked = (html: string) => [...html.matchAll(/(?:src|href)="(\/docs\/files\/[^"]+)"/g)];

describe('the reference pages', () => {
  it('are served without a token, from this origin only, their files cached for good', async () => {
    const types: Record<string, string> = {
      js: 'text/javascript; charset=utf-8',
      css: 'text/css; charset=utf-8',
      png: 'image/png',
    };
    for (const view of views) {
      const res = await fetch(t.url + view);
      expect([view, res.status]).toEqual([view, 200]);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(res.headers.get('cache-control')).toBe('no-cache');
      // Neither page may evaluate code: no 'unsafe-eval'.
      expect(res.headers.get('content-security-policy')).toMatch(
        /^default-src 'none'; script-src 'self'; .*connect-src 'self';/,
      );
      const html = await res.text();
      // The hint for a token, above the reference that tries operations.
      expect([view, html.includes('npm run -s token')]).toEqual([view, view === '/docs']);
      const files = linked(html).map(([, url]) => url!);
      // The icon, the reference's stylesheet and the bar's, and the scripts.
      expect([view, files.length]).toEqual([view, view === '/docs' ? 5 : 4]);
      for (const file of files) {
        const asset = await fetch(t.url + file, { headers: { 'accept-encoding': 'gzip' } });
        expect([file, asset.status]).toEqual([file, 200]);
        expect(asset.headers.get('content-type')).toBe(types[file.split('.').pop()!]);
        expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
        expect((await asset.arrayBuffer()).byteLength).toBeGreaterThan(0);
        const head = await fetch(t.url + file, { method: 'HEAD' });
        expect([file, head.status, await head.text()]).toEqual([file, 200, '']);
      }
    }
  });

  it('answers 404 for a file it does not have and 405 for a method other than GET or HEAD', async () => {
    const [, script] = linked(await (await fetch(`${t.url}/docs`)).text())[0]!;
    const stale = script!.replace(/\/docs\/files\/[^/]+\//, '/docs/files/0/');
    for (const target of [stale, '/docs/files/', '/docs/elsewhere']) {
      expect([target, (await fetch(t.url + target)).status]).toEqual([target, 404]);
    }
    for (const target of [...views, script!]) {
      const post = await fetch(t.url + target, { method: 'POST' });
      expect([target, post.status, post.headers.get('allow')]).toEqual([target, 405, 'GET, HEAD']);
    }
  });

  it('answers 503 with what to run when the dashboard, which holds its files, is not built', async () => {
    // The files are found as the app starts (this file runs in a process of its own).
    process.env.WEB_DIST_DIR = path.join(os.tmpdir(), `clipgate-unbuilt-${process.pid}`);
    const unbuilt = await startApp('pglite');
    delete process.env.WEB_DIST_DIR;
    try {
      for (const view of [...views, '/docs/files/x/swagger-ui.js']) {
        const res = await fetch(unbuilt.url + view);
        expect([view, res.status]).toEqual([view, 503]);
        expect(await res.text()).toContain('npm run build:web');
      }
    } finally {
      await unbuilt.close();
    }
  });
});

interface OpenApi {
  paths: Record<string, Record<string, unknown>>;
  webhooks: Record<string, Record<string, unknown>>;
  components: { schemas: Record<string, unknown> };
}

interface AsyncApi {
  channels: Record<string, { description: string; messages: Record<string, { $ref: string }> }>;
  operations: Record<string, { action: string; channel: { $ref: string } }>;
  components: {
    messages: Record<string, { name: string; payload: { $ref: string } }>;
    schemas: Record<string, { properties: Record<string, unknown> }>;
  };
}

describe.runIf(browserSuiteRuns('API reference browser test'))(
  'the API reference in Chromium',
  () => {
    let browser: Browser;
    let tab: Page;
    /** Requests the pages tried towards any host but this loopback service. */
    let elsewhere: string[];
    const pageErrors: string[] = [];

    beforeAll(async () => {
      browser = await launchChromium();
      const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
      ({ elsewhere } = await onlyFrom(context, t.url));
      tab = await context.newPage();
      tab.on('pageerror', (err) => pageErrors.push(err.message));
      tab.on('console', (message) => {
        if (message.type() === 'error') pageErrors.push(message.text());
      });
    }, 60_000);
    afterAll(() => browser?.close());

    /** The operations the page lists, as `METHOD path` (a webhook's path is its name). */
    const listed = (section: string) =>
      tab
        .locator(`${section} .opblock-summary`)
        .evaluateAll((summaries) =>
          summaries.map(
            (s) =>
              `${s.querySelector('.opblock-summary-method')!.textContent} ${s.querySelector('.opblock-summary-path')!.getAttribute('data-path')}`,
          ),
        );

    it('lists every REST operation and webhook of /openapi.json, and tries one with a bearer token', async () => {
      const { paths, webhooks, components } = (await (
        await fetch(`${t.url}/openapi.json`)
      ).json()) as OpenApi;
      const expected = (entries: Record<string, Record<string, unknown>>) =>
        Object.entries(entries)
          .flatMap(([path, item]) =>
            Object.keys(item)
              .filter((key) => ['get', 'put', 'post', 'delete', 'patch', 'head'].includes(key))
              .map((method) => `${method.toUpperCase()} ${path}`),
          )
          .sort();
      expect(Object.keys(webhooks).length).toBeGreaterThan(0);

      expect((await tab.goto(`${t.url}/docs`))?.status()).toBe(200);
      await tab.locator('.opblock').first().waitFor({ timeout: 30_000 });
      expect((await listed('.webhooks')).sort()).toEqual(expected(webhooks));
      expect((await listed('#reference')).sort()).toEqual(
        [...expected(paths), ...expected(webhooks)].sort(),
      );

      // Every schema under Schemas; each webhook with its signature headers and payload.
      const models = await tab
        .locator('section.models article[data-json-schema-level="0"]')
        .evaluateAll((schemas) =>
          schemas.map((schema) => schema.querySelector('.json-schema-2020-12__title')!.textContent),
        );
      expect(models.sort()).toEqual(Object.keys(components.schemas).sort());
      for (const name of Object.keys(webhooks)) {
        const webhook = tab.locator('.webhooks .opblock').filter({
          has: tab.locator(`.opblock-summary-path[data-path="${name}"]`),
        });
        await webhook.locator('.opblock-summary-control').click();
        const body = webhook.locator('.opblock-section-request-body');
        await body.waitFor();
        expect([name, await webhook.locator('.parameters').innerText()]).toEqual([
          name,
          expect.stringContaining('webhook-signature'),
        ]);
        expect([name, await body.innerText()]).toEqual([
          name,
          expect.stringContaining(`"eventType": "${name}"`),
        ]);
      }

      // Try it out: GET /api/accessories with the token given to Authorize.
      await seedAccessory(t, 'docs-user', 'docs-camera');
      const token = await t.token(['activities_basic'], 'docs-user', 'docs');
      await tab.getByRole('button', { name: 'Authorize' }).first().click();
      const dialog = tab.locator('.auth-container').first();
      await dialog.locator('input').fill(token);
      await dialog.getByRole('button', { name: 'Apply credentials' }).click();
      await dialog.getByRole('button', { name: 'Close' }).click();
      const operation = tab.locator('#operations-default-listAccessories');
      await operation.locator('.opblock-summary-control').click();
      await operation.getByRole('button', { name: 'Try it out' }).click();
      const [request] = await Promise.all([
        tab.waitForRequest((r) => new URL(r.url()).pathname === '/api/accessories'),
        operation.getByRole('button', { name: 'Execute' }).click(),
      ]);
      expect((await request.allHeaders()).authorization).toBe(`Bearer ${token}`);
      const answer = await (
        await fetch(`${t.url}/api/accessories`, { headers: { authorization: `Bearer ${token}` } })
      ).text();
      const shown = operation.locator('.live-responses-table .response-col_description pre');
      await expect
        .poll(async () => JSON.parse((await shown.first().textContent()) || 'null') as unknown, {
          timeout: 15_000,
        })
        .toEqual(JSON.parse(answer));
      expect(
        await operation
          .locator('.live-responses-table td.response-col_status:not(.col_header)')
          .innerText(),
      ).toBe('200');
      expect(answer).toContain('Camera docs-camera');

      expect(elsewhere).toEqual([]);
      expect(pageErrors).toEqual([]);
    }, 90_000);

    it('shows every channel, operation and message of /asyncapi.json: the live events and the notifications', async () => {
      const document = (await (await fetch(`${t.url}/asyncapi.json`)).json()) as AsyncApi;
      expect(Object.keys(document.channels)).toEqual([
        'accountEvents',
        'accessoryEvents',
        'notifications',
        'brokerNotifications',
      ]);

      expect((await tab.goto(`${t.url}/docs/events`))?.status()).toBe(200);
      await tab.locator('#operations').waitFor({ timeout: 30_000 });
      const shown = new Set<string>();
      for (const [id, operation] of Object.entries(document.operations)) {
        const name = operation.channel.$ref.split('/').pop()!;
        const channel = document.channels[name]!;
        // The operation on the channel, with the channel's description and each of its messages.
        const text = await tab.locator(`#operation-${operation.action}-${id}`).innerText();
        expect([id, text]).toEqual([
          id,
          expect.stringContaining(channel.description.replace(/`/g, '')),
        ]);
        // Each message by its id, with its event type and its payload's properties.
        for (const { $ref } of Object.values(channel.messages)) {
          const messageId = $ref.split('/').pop()!;
          const { name, payload } = document.components.messages[messageId]!;
          const message = await tab.locator(`#message-${id}-${messageId}`).innerText();
          expect([messageId, message]).toEqual([messageId, expect.stringContaining(name)]);
          const schema = document.components.schemas[payload.$ref.split('/').pop()!]!;
          for (const property of Object.keys(schema.properties)) {
            expect([messageId, message]).toEqual([messageId, expect.stringContaining(property)]);
          }
        }
        shown.add(name);
      }
      expect([...shown].sort()).toEqual(Object.keys(document.channels).sort());

      expect(elsewhere).toEqual([]);
      expect(pageErrors).toEqual([]);
    }, 60_000);
  },
);
