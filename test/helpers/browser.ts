import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

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
