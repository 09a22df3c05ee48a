/**
 * GraphiQL as a person meets it: `/graphql` opened in a browser without a token, every file from
 * the service itself (the network to any other host is cut and no request may try it), and a
 * query typed into it, with a token pasted into its headers editor, answered.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.ts';
import { browserSuiteRuns, launchChromium, onlyFrom } from '../helpers/browser.ts';
import { ok, UpsertAccount } from '../helpers/fixtures.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startApp('pglite');
});
afterAll(() => t.close());

const page = () => fetch(`${t.url}/graphql`, { headers: { accept: 'text/html' } });

describe('the GraphiQL page', () => {
  it('is served to a browser without a token, from this origin only', async () => {
    const res = await page();
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toMatch(
      /^default-src 'none'; script-src 'self';/,
    );
    const html = await res.text();
    const links = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map(([, url]) => url!);
    // Its own files, and the link to the REST API's reference.
    const files = links.filter((url) => url !== '/docs');
    expect([files.length, links.length]).toEqual([4, 5]);
    for (const file of files) {
      expect(file).toMatch(/^\/graphiql\/[\d.]+\//);
      const asset = await fetch(t.url + file, { headers: { 'accept-encoding': 'gzip' } });
      expect([file, asset.status]).toEqual([file, 200]);
      expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect((await asset.arrayBuffer()).byteLength).toBeGreaterThan(0);
    }
    // The hint for a token, in the headers editor's first content.
    expect(html).toContain('npm run -s token');
    expect((await fetch(`${t.url}/graphiql/0.0.0/graphiql.js`)).status).toBe(404);
    const post = await fetch(`${t.url}${files[0]}`, { method: 'POST' });
    expect([post.status, post.headers.get('allow')]).toEqual([405, 'GET, HEAD']);
  });

  it('leaves the API behind its token, a GET query too', async () => {
    const query = new URLSearchParams({ query: '{ viewer { clientId } }' });
    for (const init of [
      { method: 'GET', url: `${t.url}/graphql?${query}` },
      { method: 'GET', url: `${t.url}/graphql?${query}`, accept: 'application/json' },
      { method: 'POST', url: `${t.url}/graphql`, accept: 'text/html' },
    ]) {
      const res = await fetch(init.url, {
        method: init.method,
        headers: {
          'content-type': 'application/json',
          ...(init.accept && { accept: init.accept }),
        },
        body:
          init.method === 'POST' ? JSON.stringify({ query: '{ viewer { clientId } }' }) : undefined,
      });
      expect([init, res.status]).toEqual([init, 401]);
    }
  });
});

describe.runIf(browserSuiteRuns('GraphiQL browser test'))('GraphiQL in Chromium', () => {
  let browser: Browser;
  let tab: Page;
  /** Requests the page tried towards any host but this loopback service. */
  let elsewhere: string[];
  /** The paths it fetched from the service. */
  let served: string[];
  const pageErrors: string[] = [];

  beforeAll(async () => {
    browser = await launchChromium();
    const context = await browser.newContext({
      viewport: { width: 1400, height: 900 },
      permissions: ['clipboard-read', 'clipboard-write'],
    });
    ({ elsewhere, served } = await onlyFrom(context, t.url));
    tab = await context.newPage();
    tab.on('pageerror', (err) => pageErrors.push(err.message));
    tab.on('console', (message) => {
      // The schema's first fetch, with the headers editor's hint for a token, is refused: 401.
      const refused = message.text().includes('status of 401');
      if (message.type() === 'error' && !refused) pageErrors.push(message.text());
    });
  }, 60_000);
  afterAll(() => browser?.close());

  /** Replaces an editor's text as a person pastes it (typing would get brackets closed for it). */
  const paste = async (section: string, text: string) => {
    await tab
      .locator(`section[aria-label="${section}"] .graphiql-editor:not(.hidden) .view-lines`)
      .click();
    await tab.keyboard.press('ControlOrMeta+A');
    await tab.evaluate((value) => navigator.clipboard.writeText(value), text);
    await tab.keyboard.press('ControlOrMeta+V');
  };

  it('opens without a token and answers a query typed into it with the token pasted in its headers', async () => {
    const ingest = await t.token(['ingest'], 'graphiql-user');
    const { upsertAccount } = await ok(t, ingest, UpsertAccount, { subject: 'graphiql-user' });
    const token = await t.token(['activities_basic'], 'graphiql-user', 'graphiql');

    const opened = await tab.goto(`${t.url}/graphql`);
    expect(opened?.status()).toBe(200);
    await tab.getByRole('button', { name: 'Execute query (Ctrl-Enter)' }).waitFor();
    await paste('Headers', JSON.stringify({ authorization: `Bearer ${token}` }));
    const operation = tab.locator('section[aria-label="Operation Editor"] .view-lines');
    await operation.click();
    await tab.keyboard.press('ControlOrMeta+A');
    await tab.keyboard.press('Delete');
    await tab.keyboard.type('{ viewer { accountId clientId } }');
    await tab.keyboard.press('Escape'); // the completion list, if open
    const [request] = await Promise.all([
      tab.waitForRequest(
        (r) => r.method() === 'POST' && (r.postData() ?? '').includes('accountId clientId'),
      ),
      tab.getByRole('button', { name: 'Execute query (Ctrl-Enter)' }).click(),
    ]);
    expect((await request.allHeaders()).authorization).toBe(`Bearer ${token}`);
    const result = tab.locator('section[aria-label="Result Window"] .view-lines');
    await expect
      .poll(async () => (await result.innerText()).replace(/\s+/g, ''), { timeout: 15_000 })
      .toContain(`"accountId":"${upsertAccount.accountId}","clientId":"graphiql"`);

    expect(elsewhere).toEqual([]);
    expect(pageErrors).toEqual([]);
    // The editor's workers too came from the service.
    for (const worker of ['editor', 'json', 'graphql']) {
      expect(served).toContainEqual(expect.stringMatching(new RegExp(`/${worker}\\.worker\\.js$`)));
    }
  }, 60_000);
});
