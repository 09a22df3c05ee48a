import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';

/**
 * Debian's Chromium, driven by playwright-core, for the tests of what runs in a browser (the
 * dashboard, GraphiQL). Without it such a suite is skipped locally and fails in CI (CI set):
 * install it with `apt-get install -y chromium` or set CHROMIUM_PATH.
 */
export const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const hasChromium = existsSync(executablePath);

/** Whether a browser suite runs: with Chromium, or in CI, where its absence fails it. */
export function browserSuiteRuns(name: string): boolean {
  if (!hasChromium && !process.env.CI) {
    console.warn(`${name} skipped: no Chromium at ${executablePath}`);
  }
  return hasChromium || Boolean(process.env.CI);
}

/** Starts a headless Chromium; throws, saying how to install it, when there is none. */
export async function launchChromium(): Promise<Browser> {
  if (!hasChromium) {
    throw new Error(
      `Chromium is not installed at ${executablePath}: run \`apt-get install -y chromium\` ` +
        '(or set CHROMIUM_PATH); the browser tests do not skip in CI',
    );
  }
  return chromium.launch({
    executablePath,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/**
 * Lets the context's pages reach the service at `serviceUrl` only (and data: and blob: URLs):
 * a request to any other host is aborted and its URL kept in `elsewhere`; `served` keeps the
 * paths fetched from the service.
 */
export async function onlyFrom(
  context: BrowserContext,
  serviceUrl: string,
): Promise<{ elsewhere: string[]; served: string[] }> {
  const service = new URL(serviceUrl);
  const elsewhere: string[] = [];
  const served: string[] = [];
  await context.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (url.host === service.host) served.push(url.pathname);
    if (url.host === service.host || url.protocol === 'data:' || url.protocol === 'blob:') {
      return route.continue();
    }
    elsewhere.push(url.href);
    return route.abort();
  });
  return { elsewhere, served };
}
