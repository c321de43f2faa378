/**
 * The scroll benches' opening (scroll-ab.ts, scroll-diag.ts, scroll-lab.ts): the web host over the
 * UI bench's archive of `n` posts, serving `staticDir` (a renderer build; the project's own when
 * undefined), and a Debian Chromium page on its Library with the first rows shown and the
 * Performance domain enabled. `close` ends the browser and then the host.
 */
import { chromium, type Browser, type CDPSession, type Page } from '@playwright/test';
import { MemorySecretStore } from '../src/core/secrets/index';
import { startHost } from '../src/host/index';
import { uiDataDir } from './ui-archive';

export interface LibraryPage {
  browser: Browser;
  page: Page;
  cdp: CDPSession;
  close(): Promise<void>;
}

export async function openLibraryPage(n: number, staticDir: string | undefined): Promise<LibraryPage> {
  const host = await startHost({
    port: 0,
    dataDir: uiDataDir(n),
    staticDir,
    secrets: new MemorySecretStore(),
    envKey: null,
    baseUrl: null,
    sandbox: { seed: 1 },
  });
  let browser: Browser | null = null;
  const close = async (): Promise<void> => {
    await browser?.close();
    await host.close();
  };
  try {
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
    const page = await (await browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage();
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Performance.enable');
    await page.goto(`${host.url}#library`);
    await page.getByTestId('result-row').first().waitFor({ timeout: 60_000 });
    return { browser, page, cdp, close };
  } catch (e) {
    await close();
    throw e;
  }
}
