/**
 * UI benchmark ("speed an analyst feels", issue 14): Debian Chromium drives the web host
 * (src/host) over a 1M-post archive (50k with --quick; LOUPE_BENCH_ROWS overrides) in the
 * Library view and measures, in the page:
 *
 *  - the web host as `npm run serve` runs it: start → first response (bench/ui-open.ts);
 *  - the app's address (`…#library`) → first Library rows painted, from the navigation's start
 *    (the first open after the host starts, then after page reloads);
 *  - a filter change (network select, "Until" date), a sort change (column header) and a label
 *    change (label-condition value) → the changed rows painted: from the input event's
 *    timestamp to the frame after a MutationObserver sees the row set change (rAF + a message,
 *    i.e. after that frame's paint). Every query state is visited once, so no answer comes
 *    from the page's query cache;
 *  - with 10,000 rows loaded, typing in the text filter (no commit: keys 60 ms apart, then
 *    erased): each key event's handler time (window capture → window bubble, and Event Timing's
 *    processingEnd − processingStart), plus long tasks;
 *  - scrolling the virtualised table (wheel events: down while pages load to 10,000 rows, then
 *    back up; then down and up again beside two CPU burners, load 2): the largest gap between
 *    animation frames.
 *
 * The renderer is built first when out/renderer is missing or older than its sources (the same
 * check `npm run serve` makes). Only 127.0.0.1. `LOUPE_BENCH_UI_DATA=<dir>` keeps the archive
 * between runs (bench/ui-archive.ts); LOUPE_CHROMIUM overrides /usr/bin/chromium;
 * LOUPE_BENCH_UI_RENDERER=<dir> serves another renderer build (an A/B of two builds of the same
 * archive, e.g. the code before a change built with `vite build --outDir`);
 * LOUPE_BENCH_UI_THROTTLE=<n> slows the page's main thread n times (CDP) during the two scroll
 * phases only (a diagnosis of what a loaded machine does to the frames; not the target). The
 * second scroll's note gives the JSON size of a 200-row page and the JS heap after a collection.
 *
 * Notes (README "Benchmarks"): the results table builds only the rows it draws (no row model over
 * every loaded row); A/B of six interleaved pairs at 1M on the shared 2 cores (load 5–9): frames over
 * 50 ms while pages load 60 → 17.5 (median; 3.4× fewer), p99 gap 125 → 67 ms, long animation frames
 * 79 → 21.5; with 10,000 rows loaded 9.5 → 6 frames over 50 ms; first rows after opening 248 → 186
 * ms. The largest single gap (the target, < 50 ms) is still over it in every run of both builds: on
 * this machine it is set by CPU contention; read the counts of long frames. The next round's trace
 * (docs/renderer.md "Scrolling the results table"): a 900 px step's frame takes 15–20 ms of
 * main-thread thread time and 40–150 ms of wall time at load 7–13; at load 3–5 the same code gives
 * 117 / 83 ms (3 / 1 frames over 50 ms).
 */
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from '@playwright/test';
import { MemorySecretStore } from '../src/core/secrets/index';
import { startHost, type Host } from '../src/host/index';
import { buildUiDataDir, uiDataDir } from './ui-archive';
import { cpuBurners, FIRST_ROWS_PROBE, firstRowsFromNavigation, measureHostStart } from './ui-open';
import { below, loadNow, percentile, type BenchContext, type Result } from './types';

export const name = 'ui';

const CHROMIUM = process.env.LOUPE_CHROMIUM ?? '/usr/bin/chromium';
const CHANGE_TIMEOUT_MS = 15_000;
const ROWS_FOR_TYPING = 10_000;

/** The in-page probe, as source text (functions handed to page.evaluate would carry tsx's helpers). */
const PROBE = String.raw`(() => {
  if (window.__ui) return;
  const ui = { before: '', t0: null, armed: false, done: true, mo: null, resolve: null, result: null,
    frames: null, longtasks: [], keys: [], events: [] };
  window.__ui = ui;
  // the input event that makes the change: its timeStamp is when the browser received it
  for (const t of ['click', 'input', 'change']) document.addEventListener(t, (e) => { if (ui.armed) ui.t0 = e.timeStamp; }, true);
  ui.sig = () => {
    let s = '';
    for (const r of document.querySelectorAll('[data-testid="result-row"]')) s += r.getAttribute('data-id') + ',';
    return s;
  };
  ui.arm = () => {
    if (ui.mo) ui.mo.disconnect();
    ui.armId = (ui.armId || 0) + 1;
    ui.before = ui.sig();
    ui.t0 = null;
    ui.armed = true;
    ui.done = false;
    ui.result = new Promise((res) => { ui.resolve = res; });
    ui.mo = new MutationObserver(() => {
      if (ui.done) return;
      const s = ui.sig();
      if (s === ui.before || s === '') return;
      ui.done = true;
      ui.mo.disconnect();
      const seen = performance.now();
      requestAnimationFrame(() => {
        const ch = new MessageChannel();
        ch.port1.onmessage = () => {
          ui.armed = false;
          ui.resolve(ui.t0 === null ? { error: 'no input event seen' } : { ms: performance.now() - ui.t0, domMs: seen - ui.t0 });
        };
        ch.port2.postMessage(0);
      });
    });
    ui.mo.observe(document.body, { childList: true, subtree: true, attributes: true, attributeFilter: ['data-id'] });
    return ui.before.length;
  };
  // a timer of an earlier wait must not end a later measurement: each arm has its own id
  ui.wait = (timeout) => {
    const id = ui.armId;
    return Promise.race([ui.result, new Promise((res) => setTimeout(() => {
      if (ui.armId === id && !ui.done) { ui.done = true; ui.armed = false; ui.mo.disconnect(); }
      res({ timeout: true });
    }, timeout))]);
  };
  // frames
  // long animation frames while scrolling: where a slow frame's time goes (tasks before the
  // frame's rendering, mostly script; the frame's scroll events and rAF callbacks; style, layout, paint)
  ui.loaf = [];
  try {
    new PerformanceObserver((l) => {
      if (!ui.frames) return;
      for (const e of l.getEntries()) {
        const end = e.startTime + e.duration;
        const rs = e.renderStart || end;
        const sl = e.styleAndLayoutStart || end;
        ui.loaf.push({ ms: e.duration, before: rs - e.startTime, raf: sl - rs, layoutPaint: end - sl });
      }
    }).observe({ type: 'long-animation-frame', buffered: false });
  } catch {}
  ui.framesStart = () => {
    ui.loaf = [];
    ui.frames = [];
    const loop = (t) => { if (!ui.frames) return; ui.frames.push(t); requestAnimationFrame(loop); };
    requestAnimationFrame(loop);
  };
  ui.framesStop = () => {
    const f = ui.frames || [];
    ui.frames = null;
    const d = [];
    for (let i = 1; i < f.length; i++) d.push(f[i] - f[i - 1]);
    return { gaps: d, loaf: ui.loaf };
  };
  try {
    new PerformanceObserver((l) => { for (const e of l.getEntries()) ui.longtasks.push({ start: e.startTime, ms: e.duration }); }).observe({ type: 'longtask', buffered: false });
  } catch {}
  ui.longSince = (t) => ui.longtasks.filter((x) => x.start >= t).map((x) => x.ms);
  // keystrokes: the whole dispatch of each key event (window capture → window bubble, React's
  // handlers and the synchronous render they cause in between), and Event Timing entries
  ui.keyOn = false;
  const kt = new Map();
  for (const t of ['keydown', 'keypress', 'beforeinput', 'input', 'keyup']) {
    window.addEventListener(t, (e) => { if (ui.keyOn) kt.set(e, performance.now()); }, true);
    window.addEventListener(t, (e) => {
      if (!ui.keyOn || !kt.has(e)) return;
      ui.keys.push({ type: t, ms: performance.now() - kt.get(e) });
      kt.delete(e);
    }, false);
  }
  try {
    new PerformanceObserver((l) => {
      if (!ui.keyOn) return;
      for (const e of l.getEntries()) ui.events.push({ name: e.name, duration: e.duration, processing: e.processingEnd - e.processingStart });
    }).observe({ type: 'event', durationThreshold: 16, buffered: false });
    ui.eventTiming = true;
  } catch { ui.eventTiming = false; }
  ui.keyStart = () => { ui.keys = []; ui.events = []; ui.keyOn = true; ui.keyT0 = performance.now(); };
  ui.keyStop = () => { ui.keyOn = false; return { keys: ui.keys, events: ui.events, eventTiming: ui.eventTiming, long: ui.longSince(ui.keyT0) }; };
})()`;

type Frames = { gaps: number[]; loaf: Array<{ ms: number; before: number; raf: number; layoutPaint: number }> };

/** Long animation frames (≥ 50 ms): how many, and what share of their time went where. */
function loafNote(f: Frames): string {
  const l = f.loaf;
  if (!l.length) return 'no long animation frames reported';
  const sum = (k: 'ms' | 'before' | 'raf' | 'layoutPaint'): number => l.reduce((a, x) => a + x[k], 0);
  const pct = (k: 'before' | 'raf' | 'layoutPaint'): string => `${Math.round((100 * sum(k)) / sum('ms'))} %`;
  return `${l.length} long animation frames: ${pct('before')} tasks before rendering (script: wheel/scroll handlers, React renders, fetch answers), ${pct('raf')} scroll events and rAF (the virtualiser's synchronous render), ${pct('layoutPaint')} style+layout+paint`;
}

type Change = { ms?: number; domMs?: number; timeout?: boolean; error?: string };

interface Sample {
  kind: 'filter' | 'sort' | 'label';
  what: string;
  ms: number;
}

function sizeLabel(n: number): string {
  return n >= 1_000_000 && n % 1_000_000 === 0 ? `${n / 1_000_000}M` : n % 1000 === 0 ? `${n / 1000}k` : String(n);
}

const r1 = (x: number): string => (Number.isFinite(x) ? x.toFixed(x >= 100 ? 0 : 1) : 'n/a');

async function installProbe(page: Page): Promise<void> {
  await page.evaluate(PROBE);
}

/** Runs `act` and returns the ms from its input event to the paint of a changed row set. */
async function measure(page: Page, act: () => Promise<unknown>): Promise<Change> {
  await page.evaluate('window.__ui.arm()');
  await act();
  return (await page.evaluate(`window.__ui.wait(${CHANGE_TIMEOUT_MS})`)) as Change;
}

/** Lets the page settle (trailing requests and renders) between measured changes. */
async function settle(page: Page, ms = 150): Promise<void> {
  await page.waitForTimeout(ms);
  await page.evaluate('new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)))');
}

/** The page's used JS heap in MB after a forced full collection (CDP), or null when CDP is unavailable. */
async function heapAfterGc(page: Page): Promise<number | null> {
  try {
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('HeapProfiler.collectGarbage');
    const h = (await cdp.send('Runtime.getHeapUsage')) as { usedSize: number };
    await cdp.detach();
    return h.usedSize / 1e6;
  } catch {
    return null;
  }
}

async function rowsLoaded(page: Page): Promise<number> {
  const t = (await page.getByTestId('row-count').textContent()) ?? '';
  const m = /^\s*([\d,]+)/.exec(t);
  return m ? Number(m[1].replace(/,/g, '')) : 0;
}

export async function run(ctx: BenchContext): Promise<Result[]> {
  if (!existsSync(CHROMIUM))
    return [{ metric: 'ui', value: null, unit: '', note: `Chromium is not installed at ${CHROMIUM} (apt-get install chromium)` }];
  const env = Number(process.env.LOUPE_BENCH_ROWS);
  const n = Number.isInteger(env) && env > 0 ? env : ctx.quick ? 200_000 : 1_000_000;
  const size = sizeLabel(n);

  // the renderer build the host serves
  const serve = (await import(/* @vite-ignore */ '../scripts/serve.mjs' as string)) as {
    rendererIsStale(): boolean;
    buildRenderer(): Promise<void>;
  };
  const staticDir = process.env.LOUPE_BENCH_UI_RENDERER || undefined;
  if (staticDir && !existsSync(join(staticDir, 'index.html')))
    throw new Error(`LOUPE_BENCH_UI_RENDERER=${staticDir} holds no renderer build (index.html)`);
  if (!staticDir && serve.rendererIsStale()) {
    ctx.log('building the renderer (out/renderer)');
    await serve.buildRenderer();
  }

  const keep = uiDataDir(n);
  const dataDir = keep;
  let host: Host | null = null;
  let browser: Browser | null = null;
  try {
    ctx.log(`archive of ${size} synthetic posts in ${dataDir}`);
    const built = await buildUiDataDir(dataDir, n, ctx.log);
    ctx.log(built.reused ? 'archive reused' : `archive built in ${(built.ms / 1000).toFixed(0)} s`);

    // the web host as `npm run serve` runs it, on this archive: start → serving (issue 30)
    ctx.log('starting the built web host');
    const hostStart = await measureHostStart(dataDir, 3, ctx.log);

    host = await startHost({
      port: 0,
      dataDir,
      staticDir,
      secrets: new MemorySecretStore(),
      envKey: null,
      baseUrl: null,
      sandbox: { seed: 1 },
    });
    if (!/^http:\/\/127\.0\.0\.1:\d+\//.test(host.url)) throw new Error(`the host is not on loopback: ${host.origin}`);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (e) => pageErrors.push(e.message));

    // server round trips of the Library's requests while changes are measured
    const trips: Record<string, number[]> = {};
    const pageBytes: number[] = [];
    page.on('requestfinished', (req) => {
      const m = /\/api\/(library\.[\w.]+)/.exec(req.url());
      if (!m) return;
      const t = req.timing();
      if (t.responseEnd > 0) (trips[m[1]] ??= []).push(t.responseEnd);
      // the JSON a 200-row Library page weighs (what the page parses on its main thread)
      if (m[1] === 'library.query')
        void req
          .response()
          .then((r) => r?.body())
          .then((b) => {
            if (b && b.length > 0 && /"limit":200\b/.test(req.postData() ?? '')) pageBytes.push(b.length);
          })
          .catch(() => {});
    });

    // ── first rows from navigation: the app's address, on the Library (issue 30) ──────────────
    ctx.log('opening the app on the Library');
    await page.addInitScript(FIRST_ROWS_PROBE);
    const cold = await firstRowsFromNavigation(page, () => page.goto(`${host!.url}#library`), 60_000).catch((e: unknown) => {
      throw new Error(`the Library showed no rows (${String(e)}); page errors: ${pageErrors.join('; ') || 'none'}`);
    });
    await page.getByTestId('nav-library').waitFor();
    await installProbe(page);
    await settle(page, 800);
    const first = (m: string): string => (trips[m]?.length ? `${m} ${r1(trips[m][0])} ms` : `${m} not seen`);
    const coldTrips = `server round trips: ${first('library.query')}, ${first('library.count')} (answered one at a time by the host's one thread)`;

    const samples: Sample[] = [];
    const misses: string[] = [];
    const visited = new Set<string>();
    const state = { platform: '', sort: 'default', until: '', intent: '' };
    const key = () => JSON.stringify(state);
    visited.add(key());
    const change = async (kind: Sample['kind'], what: string, next: Partial<typeof state>, act: () => Promise<unknown>): Promise<void> => {
      Object.assign(state, next);
      const k = key();
      if (visited.has(k)) throw new Error(`bench plan revisits a query state (${k}): the page's cache would answer`);
      visited.add(k);
      const r = await measure(page, act);
      if (r.ms !== undefined) samples.push({ kind, what, ms: r.ms });
      else misses.push(`${kind} ${what}: ${r.timeout ? 'no row change seen' : r.error}`);
      await settle(page);
    };

    // ── sort changes: column headers (desc first; a second click on the same column: asc) ──
    ctx.log('sort changes');
    const header = (label: string) => page.getByRole('columnheader', { name: new RegExp(`^${label}`) });
    const dirOf: Record<string, 'desc' | 'asc'> = {};
    const sortBy = async (label: string): Promise<void> => {
      const cur = state.sort.startsWith(label + ':') ? state.sort.split(':')[1] : null;
      const dir = cur === 'desc' ? 'asc' : 'desc';
      if (cur === 'asc') throw new Error('bench plan: a third click would remove the sort');
      dirOf[label] = dir;
      await change('sort', `${label} ${dir}`, { sort: `${label}:${dir}` }, () => header(label).click());
    };
    const platform = async (p: string): Promise<void> =>
      change('filter', `network ${p || 'any'}`, { platform: p }, () => page.getByTestId('library-platform').selectOption(p));
    // any: 8 sort states; micro_net and video_net: 7 new ones each (they are entered in the last one)
    for (const c of ['Likes', 'Views', 'Comments', 'Shares', 'Published', 'Published', 'Author', 'Author']) await sortBy(c);
    await platform('micro_net');
    for (const c of ['Likes', 'Views', 'Comments', 'Shares', 'Author', 'Published', 'Published']) await sortBy(c);
    await platform('video_net');
    for (const c of ['Likes', 'Views', 'Comments', 'Shares', 'Author', 'Author', 'Published']) await sortBy(c);

    // ── filter changes: "Until" dates (sorted newest first, every date moves the top rows) and
    //    networks, alternating; every state is new because each date is ──────────────────────
    ctx.log('filter changes');
    const until = page.getByLabel('Until');
    const nets = ['photo_net', 'short_video_net', 'forum_net', 'micro_net', 'video_net', ''];
    for (let i = 0; i < 12; i++) {
      const d = new Date(Date.UTC(2024, 11 - i, 1 + ((i * 7) % 27))).toISOString().slice(0, 10);
      await change('filter', `until ${d}`, { until: d }, () => until.fill(d));
      const p = nets.filter((x) => x !== state.platform)[i % 5];
      await platform(p);
    }

    // ── label changes: an intent condition, its value through every intent, in four networks ──
    ctx.log('label changes');
    await page.getByTestId('add-label-condition').click(); // sentiment = negative: posts have none
    await page
      .getByTestId('empty-state')
      .waitFor({ timeout: CHANGE_TIMEOUT_MS })
      .catch(() => {});
    await settle(page, 300);
    const cond = page.getByTestId('label-conditions');
    const intents = [
      'asking_for_recommendation',
      'comparing_options',
      'switching_away',
      'complaining',
      'promoting',
      'news_or_discussion',
      'other',
    ];
    await change('label', 'intent (from sentiment)', { intent: intents[0] }, () => cond.getByLabel('label family').selectOption('intent'));
    const value = cond.getByLabel('value', { exact: true });
    // the network the filters ended on first (entered above), then three others
    for (const p of [state.platform, ...['', 'photo_net', 'micro_net', 'forum_net'].filter((x) => x !== state.platform).slice(0, 3)]) {
      if (p !== state.platform) await platform(p);
      const entry = state.intent;
      for (const v of intents) if (v !== entry) await change('label', `intent ${v}`, { intent: v }, () => value.selectOption(v));
    }

    // ── scrolling while pages load, to 10,000 rows ──────────────────────────────────────────
    ctx.log(`scrolling to ${ROWS_FOR_TYPING.toLocaleString('en-US')} rows`);
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await page.getByTestId('results-table').waitFor();
    await settle(page, 800);
    const box = (await page.getByTestId('results-table').boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    // LOUPE_BENCH_UI_THROTTLE=n: the page's main thread slowed n times (CDP) while it scrolls, to
    // see on an idle machine what a loaded one does to the frames (a diagnosis, not the target)
    const throttle = Number(process.env.LOUPE_BENCH_UI_THROTTLE) > 1 ? Number(process.env.LOUPE_BENCH_UI_THROTTLE) : 0;
    const cdp = throttle ? await page.context().newCDPSession(page) : null;
    const slow = async (on: boolean): Promise<void> => {
      await cdp?.send('Emulation.setCPUThrottlingRate', { rate: on ? throttle : 1 });
    };
    await slow(true);
    await page.evaluate('window.__ui.framesStart()');
    const scrollT0 = Date.now();
    let loaded = await rowsLoaded(page);
    let wheels = 0;
    while (loaded < ROWS_FOR_TYPING && Date.now() - scrollT0 < 240_000) {
      for (let k = 0; k < 10; k++) {
        await page.mouse.wheel(0, 900);
        await page.waitForTimeout(16);
        wheels++;
      }
      loaded = await rowsLoaded(page);
    }
    const down = (await page.evaluate('window.__ui.framesStop()')) as Frames;
    await slow(false);
    const downSecs = (Date.now() - scrollT0) / 1000;
    if (loaded < ROWS_FOR_TYPING) misses.push(`scrolling loaded only ${loaded} rows in ${downSecs.toFixed(0)} s`);
    await settle(page, 1000);
    // the page's JS heap holding the loaded rows, after a full collection (CDP)
    const heapMb = await heapAfterGc(page);

    // ── typing with 10,000 rows loaded ──────────────────────────────────────────────────────
    ctx.log(`typing in the text filter with ${loaded.toLocaleString('en-US')} rows loaded`);
    const text = page.getByTestId('library-text');
    await text.click();
    await settle(page, 300);
    await page.evaluate('window.__ui.keyStart()');
    const word = 'kalominerusatovizebodafe';
    for (let round = 0; round < 2; round++) {
      await text.pressSequentially(word, { delay: 60 });
      for (let k = 0; k < word.length; k++) await page.keyboard.press('Backspace', { delay: 10 }).then(() => page.waitForTimeout(50));
    }
    await page.waitForTimeout(100);
    const keyRes = (await page.evaluate('window.__ui.keyStop()')) as {
      keys: Array<{ type: string; ms: number }>;
      events: Array<{ name: string; duration: number; processing: number }>;
      eventTiming: boolean;
      long: number[];
    };
    const stillLoaded = await rowsLoaded(page);
    await settle(page, 600);

    // ── scrolling back up with 10,000 rows loaded ───────────────────────────────────────────
    ctx.log('scrolling back up');
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await slow(true);
    await page.evaluate('window.__ui.framesStart()');
    for (let k = 0; k < 200; k++) {
      await page.mouse.wheel(0, -900);
      await page.waitForTimeout(16);
    }
    const up = (await page.evaluate('window.__ui.framesStop()')) as Frames;
    await slow(false);

    // ── scrolling with 10,000 rows loaded, two busy cores beside it (load 2) ──────────────────
    ctx.log('scrolling with two CPU burners beside it');
    const burners = cpuBurners(2);
    let busy: Frames;
    let busyLoad: number;
    try {
      await settle(page, 1000);
      await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
      await page.evaluate('window.__ui.framesStart()');
      for (let k = 0; k < 200; k++) {
        await page.mouse.wheel(0, k < 100 ? 900 : -900);
        await page.waitForTimeout(16);
      }
      busy = (await page.evaluate('window.__ui.framesStop()')) as Frames;
      busyLoad = await loadNow();
    } finally {
      await burners.stop();
    }

    // ── the app's address again: reloads (the server's caches warm) ─────────────────────────
    ctx.log('reloading');
    const warm: number[] = [];
    for (let i = 0; i < 4; i++) {
      await settle(page, 500);
      const r = await firstRowsFromNavigation(page, () => page.reload(), 60_000).catch((e: unknown) => String(e).split('\n')[0]);
      if (typeof r !== 'string') warm.push(r.ms);
      else misses.push(`reload ${i + 1}: no rows (${r})`);
    }

    // ── results ─────────────────────────────────────────────────────────────────────────────
    const out: Result[] = [];
    const trip = (m: string): string =>
      trips[m]?.length ? `${m} p50 ${r1(percentile(trips[m], 50))} / p95 ${r1(percentile(trips[m], 95))} ms` : `${m} n/a`;
    const tripNote = `server round trips over the run: ${trip('library.query')}, ${trip('library.count')}`;
    const served = hostStart.runs.map((r) => r.served);
    out.push({
      metric: `web host: start → first response (${size} archive) max`,
      value: served.length ? Math.max(...served) : null,
      unit: 'ms',
      target: '< 1000 ms',
      ok: below(served.length ? Math.max(...served) : null, 1000),
      load: hostStart.runs[0]?.load,
      note: `the built host (out/host/main.js, as npm run serve runs it), ${served.length} starts one after another: URL line at ${hostStart.runs.map((r) => r.url.toFixed(0)).join(', ')} ms, first response at ${served.map((x) => x.toFixed(0)).join(', ')} ms`,
    });
    out.push({
      metric: `first Library rows from navigation (${size}, first open after the host starts)`,
      value: cold.ms,
      unit: 'ms',
      target: '< 1000 ms',
      ok: below(cold.ms, 1000),
      note: `page.goto(the app's address#library) → the frame after the first row, in the page's clock (zero = navigation start); DOMContentLoaded at ${r1(cold.domContentLoaded)} ms, the first library.query answered at ${cold.firstQueryEnd === null ? 'n/a' : r1(cold.firstQueryEnd)} ms; ${coldTrips}`,
    });
    const warmMax = warm.length ? Math.max(...warm) : null;
    out.push({
      metric: `first Library rows from navigation (${size}, after a reload) max`,
      value: warmMax,
      unit: 'ms',
      target: '< 1000 ms',
      ok: below(warmMax, 1000),
      note: `${warm.length} reloads of the app's address: ${warm.map((x) => x.toFixed(0)).join(', ')} ms`,
    });
    for (const kind of ['filter', 'sort', 'label'] as const) {
      const s = samples.filter((x) => x.kind === kind);
      const ms = s.map((x) => x.ms);
      const p95 = s.length ? percentile(ms, 95) : null;
      const worst = s.reduce<Sample | null>((a, b) => (a && a.ms >= b.ms ? a : b), null);
      const what = { filter: 'network select / "Until" date', sort: 'column header click', label: 'label-condition value (intent)' }[kind];
      out.push({
        metric: `${kind} change → new rows painted p95 (${size})`,
        value: p95,
        unit: 'ms',
        target: '< 150 ms',
        ok: s.length >= 20 ? below(p95, 150) : false,
        note: `${s.length} changes (${what}); p50 ${r1(percentile(ms, 50))}, max ${r1(Math.max(...ms))} ms (${worst?.what ?? ''})${kind === 'filter' ? `; ${tripNote}` : ''}`,
      });
    }
    const keyMs = keyRes.keys.map((k) => k.ms);
    const etProc = keyRes.events.map((e) => e.processing);
    const handlerMax = Math.max(0, ...keyMs, ...etProc);
    const etDur = keyRes.events.length ? Math.max(...keyRes.events.map((e) => e.duration)) : null;
    out.push({
      metric: `keystroke handler max, text filter, ${stillLoaded.toLocaleString('en-US')} rows loaded (${size})`,
      value: keyRes.keys.length ? handlerMax : null,
      unit: 'ms',
      target: '< 50 ms',
      ok: stillLoaded >= ROWS_FOR_TYPING && keyRes.keys.length ? below(handlerMax, 50) : false,
      note: `${keyRes.keys.length} key events (${word.length * 2} keys typed, ${word.length * 2} erased, 60 ms apart); p95 ${r1(percentile(keyMs, 95))} ms; Event Timing: ${keyRes.eventTiming ? `${keyRes.events.length} entries ≥ 16 ms${etDur !== null ? `, longest input→paint ${r1(etDur)} ms` : ''}` : 'unavailable'}; long tasks while typing: ${keyRes.long.length}${keyRes.long.length ? ` (max ${r1(Math.max(...keyRes.long))} ms)` : ''}`,
    });
    const over = (g: number[]): number => g.filter((x) => x > 50).length;
    const scroll = (label: string, f: Frames, how: string): Result => {
      const max = f.gaps.length ? Math.max(...f.gaps) : null;
      return {
        metric: `scrolling the table ${label}: largest frame gap (${size})`,
        value: max,
        unit: 'ms',
        // the issue: "no frame gap over 50 ms". Gaps are requestAnimationFrame times, multiples of the
        // 16.7 ms refresh: 50.0 is three refreshes (not over 50), the next one up is 66.7
        target: '≤ 50 ms',
        ok: max === null ? undefined : Math.round(max * 10) / 10 <= 50,
        note: `${how}${throttle ? `; main thread slowed ${throttle}× (CDP CPU throttling)` : ''}; p99 ${r1(percentile(f.gaps, 99))} ms, ${over(f.gaps)} of ${f.gaps.length} frames > 50 ms; ${loafNote(f)}`,
      };
    };
    out.push(
      scroll(
        'while pages load',
        down,
        `down, ${wheels} wheel events of 900 px over ${downSecs.toFixed(0)} s, ${Math.round(loaded / 200)} pages of 200 loaded on the way to ${loaded.toLocaleString('en-US')} rows`,
      ),
    );
    const kib = (b: number): string => `${(b / 1024).toFixed(0)} KiB`;
    const pageNote = pageBytes.length
      ? `; a 200-row library.query page: ${kib(percentile(pageBytes, 50))} of JSON (median of ${pageBytes.length})`
      : '';
    const heapNote = heapMb !== null ? `; JS heap with the rows loaded, after GC: ${heapMb.toFixed(1)} MB` : '';
    out.push(scroll(`with ${loaded.toLocaleString('en-US')} rows loaded`, up, `back up, 200 wheel events of 900 px${heapNote}${pageNote}`));
    out.push({
      ...scroll(
        `with ${loaded.toLocaleString('en-US')} rows loaded, two CPU burners beside it`,
        busy,
        `two busy processes (load 2 on an idle machine; 1-minute load average ${busyLoad.toFixed(1)} at the end), 100 wheel events of 900 px down then 100 up`,
      ),
      load: busyLoad,
    });
    if (misses.length || pageErrors.length)
      out.push({
        metric: 'not measured',
        value: misses.length,
        unit: 'changes',
        note: [...misses, ...pageErrors.map((e) => `page error: ${e}`)].join('; ').slice(0, 600),
      });
    return out;
  } finally {
    await browser?.close().catch(() => {});
    await host?.close().catch(() => {});
    if (!keep) await rm(dataDir, { recursive: true, force: true });
  }
}
