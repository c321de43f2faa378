/**
 * The Playwright fixtures every browser spec uses:
 *   - `host`: a fresh web host (src/host) on 127.0.0.1:<free port>, a fresh temp data folder, the
 *     in-process sandbox (seed 1, time scale 60) behind it, and a memory key store;
 *   - `sandboxAdmin`: the sandbox's admin handle (advance the clock, set the balance, read charges…);
 *   - `page`: already navigated to the host URL (with the session token) and rendered.
 * Screenshots: `await shot(page, 'name')` → e2e/screenshots/name.png.
 * When /usr/bin/chromium is missing every spec is skipped with that reason.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test as base, expect, type Page } from '@playwright/test';
import { startHost, type Host } from '../src/host/index';
import { MemorySecretStore } from '../src/core/secrets/index';
import type { SandboxAdmin } from '../src/sandbox/index';
import { existsSync } from 'node:fs';

const CHROMIUM = process.env.LOUPE_CHROMIUM ?? '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);

export const SCREENSHOTS = join(process.cwd(), 'e2e', 'screenshots');

export interface LoupeFixtures {
  host: Host;
  sandboxAdmin: SandboxAdmin;
  /** options for the host of this test (override with test.use) */
  hostOptions: { sandbox?: { seed?: number; balance?: number; timeScale?: number; freeCalls?: number } };
}

export const test = base.extend<LoupeFixtures>({
  hostOptions: [{}, { option: true }],

  host: async ({ hostOptions }, use) => {
    test.skip(!hasChromium, `Chromium is not installed at ${CHROMIUM} (apt-get install chromium)`);
    const dataDir = mkdtempSync(join(tmpdir(), 'loupe-e2e-'));
    const host = await startHost({
      port: 0,
      dataDir,
      secrets: new MemorySecretStore(),
      envKey: null,
      baseUrl: null,
      sandbox: { seed: 1, timeScale: 60, ...hostOptions.sandbox },
    });
    try {
      await use(host);
    } finally {
      await host.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  },

  sandboxAdmin: async ({ host }, use) => {
    // the sandbox starts on first need; make sure it is running before a test drives it
    const r = await fetch(`${host.origin}/api/app.info`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-loupe-token': host.token },
      body: '{}',
    });
    expect(r.ok).toBe(true);
    const sb = host.sandbox();
    if (!sb) throw new Error('the host is not using the sandbox');
    await use(sb.admin);
  },

  page: async ({ page, host }, use) => {
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    page.on('console', (m) => {
      if (m.type() === 'error' && /Content Security Policy|Refused to/i.test(m.text())) problems.push(`console: ${m.text()}`);
    });
    await page.goto(host.url);
    await use(page);
    expect(problems, 'no page errors and no CSP violations').toEqual([]);
  },
});

export async function shot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: false });
}

export { expect };
