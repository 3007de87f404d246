import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

/** Debian's chromium; playwright-core brings no browser of its own. */
export const CHROMIUM = process.env.IVS_CHROMIUM ?? '/usr/bin/chromium';

/** Set by .ci/run: there, a missing browser fails the browser tests instead of skipping them. */
export const REQUIRE_BROWSER = process.env.IVS_REQUIRE_BROWSER === '1';

export const browserAvailable = existsSync(CHROMIUM);

/**
 * Call at the top of a file with browser tests: warns visibly that they are
 * skipped, or, under IVS_REQUIRE_BROWSER=1, fails the file.
 */
export function announceBrowser(what: string): void {
  if (browserAvailable) return;
  const problem = `${CHROMIUM} is missing (apt-get install -y chromium)`;
  if (REQUIRE_BROWSER) throw new Error(`${problem}, and IVS_REQUIRE_BROWSER=1 forbids skipping the ${what}`);
  console.warn(`${problem}: the ${what} are skipped`);
}

/** Headless chromium with a fresh profile, cut off from everything but the pages it is sent to. */
export async function launchBrowser(): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  const profile = mkdtempSync(join(tmpdir(), 'ivsync-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
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
    viewport: { width: 1280, height: 900 },
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
