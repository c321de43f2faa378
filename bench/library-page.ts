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

type Ev = { name: string; ph: string; ts: number; dur?: number; tdur?: number; pid: number; tid: number; args?: { name?: string } };

/** The renderer main thread's thread time (µs) in a trace by event, self time (children taken out), and its total. */
export function mainThreadSelf(buf: Buffer): Map<string, number> {
  const events = (JSON.parse(buf.toString()) as { traceEvents: Ev[] }).traceEvents;
  const self = new Map<string, number>();
  const main = events.find((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain');
  if (!main) return self;
  const xs = events
    .filter((e) => e.pid === main.pid && e.tid === main.tid && e.ph === 'X' && e.tdur !== undefined)
    .sort((a, b) => a.ts - b.ts || b.dur! - a.dur!);
  const stack: Array<{ end: number; name: string; child: number; tdur: number }> = [];
  const close = (upTo: number) => {
    while (stack.length && stack[stack.length - 1].end <= upTo) {
      const e = stack.pop()!;
      self.set(e.name, (self.get(e.name) ?? 0) + e.tdur - e.child);
      if (stack.length) stack[stack.length - 1].child += e.tdur;
    }
  };
  let total = 0;
  for (const e of xs) {
    close(e.ts);
    if (!stack.length) total += e.tdur!;
    stack.push({ end: e.ts + e.dur!, name: e.name, child: 0, tdur: e.tdur! });
  }
  close(Infinity);
  self.set('total', total);
  return self;
}
