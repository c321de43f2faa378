/**
 * Opening the app, two builds side by side (issue 30 "Opening"): for each build in turn (the order
 * alternating round by round) the built web host of that build (`<tree>/out/host/main.js`, which
 * serves `<tree>/out/renderer`) is started on the UI bench's archive (N posts, default 1M:
 * bench/ui-archive.ts must have built it), and Debian Chromium opens `…#library` in a fresh context
 * (no cache) right after the host prints its address, then reloads RELOADS times. Printed per open:
 * the frame after the first result row, from the navigation's start (the UI bench's figure), the
 * first row in the DOM, DOMContentLoaded, when each script and each /api request of the page
 * started and ended, and the page's long tasks; a timeline of what ran before the first rows.
 *
 * `V=base=/tmp/base,new=. ROUNDS=3 npx tsx bench/open-ab.ts` (a tree holds out/host and
 * out/renderer, and a node_modules the host can load its externals from: a symlink is enough);
 * TRACE=<dir> also writes a Chromium trace of each first open and prints its renderer main thread's
 * busiest events before the first row painted, wall and the thread's own CPU time each, and at the
 * end each build's main-thread CPU before the first rows (on a shared machine the wall figures
 * mostly count the waits for a core; the CPU figures compare builds). Also printed: the host
 * process's CPU (all its threads, from /proc) from its address line to each first open's rows.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type Page } from '@playwright/test';
import { uiDataDir } from './ui-archive';
import { FIRST_ROWS_PROBE } from './ui-open';

const n = Number(process.env.N ?? 1_000_000);
const rounds = Number(process.env.ROUNDS ?? 1);
const reloads = Number(process.env.RELOADS ?? 2);
const quiet = !!process.env.QUIET;
const variants = (process.env.V ?? `cur=${resolve('.')}`).split(',').map((s) => {
  const [name, dir] = s.split('=');
  return { name, dir: resolve(dir) };
});
const traceDir = process.env.TRACE;
const load = (): number => Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
/** a process's CPU time (user + system, all its threads), ms; null where /proc is not there */
function cpuMs(pid: number | undefined): number | null {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(f[11]) + Number(f[12])) * 10;
  } catch {
    return null;
  }
}

const TIMELINE_PROBE = String.raw`(() => {
  const t = (window.__open = { long: [] });
  try {
    new PerformanceObserver((l) => { for (const e of l.getEntries()) t.long.push({ start: e.startTime, ms: e.duration }); }).observe({ type: 'longtask', buffered: true });
  } catch {}
})()`;

interface Open {
  ms: number;
  row: number;
  dcl: number;
  res: Array<{ name: string; start: number; end: number }>;
  long: Array<{ start: number; ms: number }>;
}

async function measure(page: Page, go: () => Promise<unknown>): Promise<Open> {
  await go();
  const ok = await page.evaluate(`new Promise((res) => {
    const t0 = Date.now();
    const check = () => window.__firstRows && window.__firstRows.painted !== null ? res(true) : Date.now() - t0 > 60000 ? res(false) : setTimeout(check, 20);
    check();
  })`);
  if (ok !== true) throw new Error('no rows within 60 s');
  return (await page.evaluate(`(() => {
    const nav = performance.getEntriesByType('navigation')[0];
    const res = performance.getEntriesByType('resource').map((e) => ({ name: e.name.replace(location.origin, '').replace(/[?].*$/, ''), start: e.startTime, end: e.responseEnd }));
    return { ms: window.__firstRows.painted, row: window.__firstRows.row, dcl: nav ? nav.domContentLoadedEventEnd : 0, res, long: window.__open.long };
  })()`)) as Open;
}

function show(label: string, o: Open): void {
  console.log(
    `${label}: first rows painted ${o.ms.toFixed(0)} ms (row in the DOM ${o.row.toFixed(0)}, DOMContentLoaded ${o.dcl.toFixed(0)})`,
  );
  if (quiet) return;
  const before = (x: { start: number }) => x.start <= o.ms;
  for (const r of o.res.filter(before).sort((a, b) => a.start - b.start))
    console.log(`   ${r.start.toFixed(0).padStart(5)} → ${r.end.toFixed(0).padStart(5)}  ${r.name.replace(/^\/assets\//, '')}`);
  const long = o.long.filter(before);
  if (long.length) console.log(`   long tasks: ${long.map((x) => `${x.start.toFixed(0)}+${x.ms.toFixed(0)}`).join(', ')}`);
}

type Ev = { name: string; ph: string; ts: number; dur?: number; tdur?: number; pid: number; tid: number; args?: Record<string, unknown> };

/**
 * The renderer main thread's top-level events between navigation and the first rows' paint. The
 * app's renderer is the one that asked for the app's script; the page's clock is placed on the
 * trace's by its DOMContentLoaded (a navigationStart is not always traced in that process).
 */
function traceTimeline(buf: Buffer, paintedMs: number, dclMs: number): number | null {
  const events = (JSON.parse(buf.toString()) as { traceEvents: Ev[] }).traceEvents;
  const data = (e: Ev) => (e.args?.data ?? {}) as { url?: string; frame?: string };
  const ask = events.find((e) => e.name === 'ResourceSendRequest' && /\/assets\/index-[^/]*\.js/.test(String(data(e).url)));
  if (!ask) return null;
  const frame = data(ask).frame;
  const main = events.find(
    (e) => e.ph === 'M' && e.name === 'thread_name' && e.pid === ask.pid && (e.args as { name?: string })?.name === 'CrRendererMain',
  );
  // the app's DOMContentLoaded (after its module scripts ran), not the blank document's before it
  const dcl = events.find(
    (e) => e.name === 'domContentLoadedEventEnd' && e.pid === ask.pid && e.ts > ask.ts && (e.args as { frame?: string })?.frame === frame,
  );
  if (!main || !dcl) return null;
  const t0 = dcl.ts - dclMs * 1000;
  const end = t0 + paintedMs * 1000;
  const xs = events
    .filter((e) => e.pid === main.pid && e.tid === main.tid && e.ph === 'X' && e.dur !== undefined && e.ts >= t0 && e.ts <= end)
    .sort((a, b) => a.ts - b.ts);
  let lastEnd = 0;
  const top: Ev[] = [];
  for (const e of xs)
    if (e.ts >= lastEnd) {
      top.push(e);
      lastEnd = e.ts + e.dur!;
    }
  const busy = top.reduce((a, e) => a + e.dur!, 0);
  // the thread's own CPU time (tdur): on a shared machine wall time counts the waits for a core
  const cpu = top.reduce((a, e) => a + (e.tdur ?? 0), 0);
  console.log(
    `   trace: main thread busy ${(busy / 1000).toFixed(0)} ms (CPU ${(cpu / 1000).toFixed(0)} ms) of ${paintedMs.toFixed(0)}; its tasks ≥ 5 ms (wall/CPU):`,
  );
  for (const e of top.filter((x) => x.dur! >= 5000)) {
    // the biggest children of this task, to name it
    const kids = xs.filter((k) => k !== e && k.ts >= e.ts && k.ts + k.dur! <= e.ts + e.dur!);
    const by = new Map<string, number>();
    for (const k of kids) {
      const d = (k.args?.data as { url?: string; functionName?: string } | undefined) ?? {};
      const name = k.name + (d.url ? ` ${String(d.url).split('/').pop()}` : '') + (d.functionName ? ` ${d.functionName}` : '');
      by.set(name, Math.max(by.get(name) ?? 0, k.dur!));
    }
    const parts = [...by]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 4)
      .map(([k, d]) => `${k} ${(d / 1000).toFixed(0)}`)
      .join('; ');
    console.log(
      `   ${((e.ts - t0) / 1000).toFixed(0).padStart(5)} +${(e.dur! / 1000).toFixed(0).padStart(4)}/${((e.tdur ?? 0) / 1000).toFixed(0).padStart(3)} ms ${e.name}  [${parts}]`,
    );
  }
  return cpu / 1000;
}

function startHostChild(tree: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [join(tree, 'out', 'host', 'main.js'), '--port', '0', '--data-dir', uiDataDir(n)], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'LOUPE_API_KEY' && k !== 'LOUPE_BASE_URL')),
  });
  return new Promise((res, rej) => {
    let buf = '';
    let err = '';
    child.stdout!.on('data', (d: Buffer) => {
      buf += d.toString();
      const m = /(http:\/\/127\.0\.0\.1:\d+\/\S*)/.exec(buf);
      if (m) res({ url: m[1], child });
    });
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    child.on('exit', (code) => rej(new Error(`the host exited (${code}): ${err.slice(-300)}`)));
  });
}

function stop(p: ChildProcess): Promise<void> {
  if (p.exitCode !== null || p.signalCode !== null) return Promise.resolve();
  return new Promise((res) => {
    p.once('exit', () => res());
    p.kill('SIGINT');
    setTimeout(() => p.kill('SIGKILL'), 5000).unref();
  });
}

/** the host process's CPU (all threads) from its address line to the first rows painted, per first open */
const hostCpu: Record<string, Array<{ cpu: number; load: number }>> = {};

/** the renderer main thread's CPU before the first rows painted, per first open (TRACE only) */
const firstOpenCpu: Record<string, Array<{ cpu: number; load: number }>> = {};

async function one(browser: Browser, v: { name: string; dir: string }, round: number): Promise<number[]> {
  const { url, child } = await startHostChild(v.dir);
  const host0 = cpuMs(child.pid);
  try {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();
    await page.addInitScript(FIRST_ROWS_PROBE);
    await page.addInitScript(TIMELINE_PROBE);
    const l0 = load();
    if (traceDir)
      await browser.startTracing(page, {
        categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'v8.execute', 'blink.user_timing'],
      });
    const first = await measure(page, () => page.goto(`${url}#library`));
    const host1 = cpuMs(child.pid);
    if (host0 !== null && host1 !== null) {
      console.log(`round ${round} ${v.name}: the host's CPU from its address line to the first rows ${host1 - host0} ms`);
      (hostCpu[v.name] ??= []).push({ cpu: host1 - host0, load: l0 });
    }
    if (traceDir) {
      const buf = await browser.stopTracing();
      const file = join(traceDir, `open-${v.name}-${round}.json`);
      writeFileSync(file, buf);
      show(`round ${round} ${v.name} first open (load ${l0.toFixed(2)}; ${file})`, first);
      const cpu = traceTimeline(buf, first.ms, first.dcl);
      if (cpu !== null) (firstOpenCpu[v.name] ??= []).push({ cpu, load: l0 });
    } else show(`round ${round} ${v.name} first open (load ${l0.toFixed(2)})`, first);
    const out = [first.ms];
    for (let i = 0; i < reloads; i++) {
      await page.waitForTimeout(800);
      const r = await measure(page, () => page.reload());
      show(`round ${round} ${v.name} reload ${i + 1}`, r);
      out.push(r.ms);
    }
    await context.close();
    return out;
  } finally {
    await stop(child);
  }
}

async function main(): Promise<void> {
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  const all: Record<string, number[][]> = {};
  try {
    for (let r = 0; r < rounds; r++) {
      const order = r % 2 ? [...variants].reverse() : variants;
      for (const v of order) (all[v.name] ??= []).push(await one(browser, v, r));
    }
  } finally {
    await browser.close();
  }
  console.log('\nfirst open / reloads, ms:');
  for (const [k, xs] of Object.entries(all))
    console.log(
      `${k.padEnd(6)} ${xs
        .map(
          (x) =>
            `${x[0].toFixed(0)} / ${x
              .slice(1)
              .map((y) => y.toFixed(0))
              .join(', ')}`,
        )
        .join('   ')}`,
    );
  console.log("\nfirst open, the host's CPU from its address line to the first rows, ms (load):");
  for (const [k, xs] of Object.entries(hostCpu))
    console.log(`${k.padEnd(6)} ${xs.map((x) => `${x.cpu} (${x.load.toFixed(1)})`).join('   ')}`);
  if (traceDir) {
    console.log("\nfirst open, the page main thread's CPU before the first rows, ms (load):");
    for (const [k, xs] of Object.entries(firstOpenCpu))
      console.log(`${k.padEnd(6)} ${xs.map((x) => `${x.cpu.toFixed(0)} (${x.load.toFixed(1)})`).join('   ')}`);
  }
}

void main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
