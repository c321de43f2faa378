/**
 * Issue 30 "Opening" and "Scrolling at load 2", for the UI bench (bench/ui.bench.ts):
 *
 *  - the web host as `npm run serve` runs it (the built out/host/main.js, built first when stale):
 *    from its spawn to the URL line and to the first HTTP response, on the bench's archive;
 *  - the first Library rows from navigation: an init script in the page notes when the first
 *    result row is in the DOM and the frame after it painted, in the page's clock, whose zero is
 *    the navigation's start (performance.timeOrigin): nothing before the address is typed;
 *  - CPU burners: busy processes beside the browser (load 2 on an otherwise idle machine), started
 *    and stopped by their own ids.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';
import type { Page } from '@playwright/test';
import { loadNow } from './types';

const root = resolve(import.meta.dirname, '..');

/** Builds out/host when it is missing or older than its sources (what `npm run serve` does). */
async function builtHost(log: (m: string) => void): Promise<string> {
  const b = (await import(/* @vite-ignore */ '../scripts/build-host.mjs' as string)) as {
    hostIsStale(): boolean;
    buildHost(o?: { quiet?: boolean }): Promise<string>;
  };
  if (b.hostIsStale()) {
    log('building the web host (out/host)');
    await b.buildHost({ quiet: true });
  }
  return join(root, 'out', 'host', 'main.js');
}

export interface HostStart {
  /** spawn → the URL line, spawn → the first response, ms; the load when it started */
  runs: Array<{ url: number; served: number; load: number }>;
}

/** `runs` starts of the built host on `dataDir`, one after another (each stopped by its pid). */
export async function measureHostStart(dataDir: string, runs: number, log: (m: string) => void): Promise<HostStart> {
  const main = await builtHost(log);
  const out: HostStart['runs'] = [];
  for (let i = 0; i < runs; i++) {
    const load = await loadNow();
    const t0 = performance.now();
    const p = spawn(process.execPath, [main, '--port', '0', '--data-dir', dataDir], {
      stdio: ['ignore', 'pipe', 'pipe'],
      // no key and no service from the environment: the built-in sandbox
      env: Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'LOUPE_API_KEY' && k !== 'LOUPE_BASE_URL')),
    });
    try {
      const url = await new Promise<string>((res, rej) => {
        let buf = '';
        let err = '';
        p.stdout!.on('data', (d: Buffer) => {
          buf += d.toString();
          const m = /(http:\/\/127\.0\.0\.1:\d+\/\S*)/.exec(buf);
          if (m) res(m[1]);
        });
        p.stderr!.on('data', (d: Buffer) => (err += d.toString()));
        p.on('exit', (code) => rej(new Error(`the host exited (${code}) before it served: ${err.slice(-300)}`)));
      });
      const tUrl = performance.now() - t0;
      const r = await fetch(url);
      await r.arrayBuffer();
      if (r.status !== 200) throw new Error(`the host's first page answered ${r.status}`);
      out.push({ url: tUrl, served: performance.now() - t0, load });
    } finally {
      await stop(p);
    }
  }
  return { runs: out };
}

function stop(p: ChildProcess): Promise<void> {
  if (p.exitCode !== null || p.signalCode !== null) return Promise.resolve();
  return new Promise((res) => {
    p.once('exit', () => res());
    p.kill('SIGINT');
    setTimeout(() => p.kill('SIGKILL'), 5000).unref();
  });
}

/** Installed before the app's scripts run: the first result row, and the frame after it painted. */
export const FIRST_ROWS_PROBE = String.raw`(() => {
  const marks = (window.__firstRows = { row: null, painted: null });
  const seen = () => {
    if (marks.row !== null || !document.querySelector('[data-testid="result-row"]')) return;
    marks.row = performance.now();
    mo.disconnect();
    requestAnimationFrame(() => {
      const ch = new MessageChannel();
      ch.port1.onmessage = () => { marks.painted = performance.now(); };
      ch.port2.postMessage(0);
    });
  };
  const mo = new MutationObserver(seen);
  const start = () => mo.observe(document.documentElement, { childList: true, subtree: true });
  if (document.documentElement) start(); else document.addEventListener('readystatechange', start, { once: true });
})()`;

/**
 * Navigates (or reloads) and returns the ms from the navigation's start to the frame after the
 * first result row, with the page's own marks of its load (the first script, DOMContentLoaded).
 */
export async function firstRowsFromNavigation(
  page: Page,
  go: () => Promise<unknown>,
  timeoutMs: number,
): Promise<{ ms: number; domContentLoaded: number; firstQueryEnd: number | null }> {
  await go();
  // polled inside the page by a string evaluated over CDP (waitForFunction's predicate is an eval,
  // which the app's content security policy refuses)
  const painted = await page.evaluate(`new Promise((res) => {
    const t0 = Date.now();
    const check = () => window.__firstRows && window.__firstRows.painted !== null ? res(true) : Date.now() - t0 > ${timeoutMs} ? res(false) : setTimeout(check, 20);
    check();
  })`);
  if (painted !== true) throw new Error(`no rows within ${timeoutMs} ms`);
  return (await page.evaluate(`(() => {
    const nav = performance.getEntriesByType('navigation')[0];
    const q = performance.getEntriesByType('resource').find((e) => e.name.includes('/api/library.query'));
    return { ms: window.__firstRows.painted, domContentLoaded: nav ? nav.domContentLoadedEventEnd : 0, firstQueryEnd: q ? q.responseEnd : null };
  })()`)) as { ms: number; domContentLoaded: number; firstQueryEnd: number | null };
}

/** `n` busy processes (a loop each) until `stop()`: the load beside what is measured. */
export function cpuBurners(n: number): { stop(): Promise<void> } {
  const ps = Array.from({ length: n }, () => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
  return { stop: async () => void (await Promise.all(ps.map(stop))) };
}
