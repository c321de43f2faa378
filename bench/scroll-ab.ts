/**
 * Scrolling at load 2, two renderer builds side by side (issue 30): for each build in turn (the
 * order alternating round by round), the UI bench's archive (N posts, default 1M: bench/ui-archive.ts
 * must have built it) is served by its own web host, Debian Chromium opens the Library, scrolls down
 * until 10,000 rows are loaded, and then scrolls as the UI bench's "two CPU burners" phase does:
 * 100 wheel steps of 900 px down and 100 up, 16 ms apart, first alone, then beside two busy
 * processes (cpuBurners). Printed per phase: the largest frame gap, frames over 50 ms, the
 * renderer's main-thread CPU (CDP Performance.getMetrics ThreadTime) and the 1-minute load.
 *
 * `B=base=/tmp/base,new=out/renderer ROUNDS=2 npx tsx bench/scroll-ab.ts` (a build is a renderer
 * `outDir`, e.g. the code before a change built with `vite build --outDir`); PROFILE=<dir> also
 * writes a CPU profile (CDP Profiler) of each build's busy phase and prints its heaviest functions.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type Browser, type CDPSession, type Page } from '@playwright/test';
import { mainThreadSelf, openLibraryPage } from './library-page';
import { cpuBurners } from './ui-open';

const n = Number(process.env.N ?? 1_000_000);
const rounds = Number(process.env.ROUNDS ?? 1);
const target = Number(process.env.ROWS ?? 10_000);
const builds = (process.env.B ?? `new=${resolve('out/renderer')}`).split(',').map((s) => {
  const [name, dir] = s.split('=');
  return { name, dir: resolve(dir) };
});
const profileDir = process.env.PROFILE;
const traceDir = process.env.TRACE;
const load = (): number => Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);

const PROBE = `(() => {
  window.__s = { frames: null };
  __s.start = () => { __s.frames = []; const loop = (t) => { if (!__s.frames) return; __s.frames.push(t); requestAnimationFrame(loop); }; requestAnimationFrame(loop); };
  __s.stop = () => { const f = __s.frames; __s.frames = null; const g = []; for (let i = 1; i < f.length; i++) g.push(f[i] - f[i - 1]); return g; };
})()`;

interface Phase {
  build: string;
  phase: string;
  largest: number;
  over50: number;
  frames: number;
  cpu: number;
  script: number;
  load: number;
}

async function rows(page: Page): Promise<number> {
  const m = /^\s*([\d,]+)/.exec((await page.getByTestId('row-count').textContent()) ?? '');
  return m ? Number(m[1].replace(/,/g, '')) : 0;
}

type Node = { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; hitCount?: number; children?: number[] };

/** The heaviest functions of a CPU profile by self time (ms), with the share of all sampled time. */
function heaviest(profile: { nodes: Node[]; samples: number[]; timeDeltas: number[] }, top = 25): string[] {
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000));
  const byName = new Map<string, number>();
  let total = 0;
  for (const nd of profile.nodes) {
    const ms = self.get(nd.id) ?? 0;
    total += ms;
    const f = nd.callFrame;
    const k = `${f.functionName || '(anonymous)'} ${f.url.split('/').pop()}:${f.lineNumber + 1}`;
    byName.set(k, (byName.get(k) ?? 0) + ms);
  }
  return [...byName]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([k, ms]) => `${ms.toFixed(0).padStart(6)} ms ${((100 * ms) / total).toFixed(1).padStart(5)} %  ${k}`);
}

/** The renderer main thread's time by trace event, self thread time (children taken out), top 30. */
async function traceSummary(browser: Browser, file: string, build: string): Promise<void> {
  const buf = await browser.stopTracing();
  writeFileSync(file, buf);
  const self = mainThreadSelf(buf);
  const total = self.get('total') ?? 0;
  self.delete('total');
  if (total === 0) return;
  console.log(`\n${build}: renderer main thread, ${(total / 1e6).toFixed(2)} s of thread time in the trace; self time by event (${file})`);
  for (const [k, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 30))
    console.log(`${(us / 1000).toFixed(0).padStart(7)} ms ${((100 * us) / total).toFixed(1).padStart(5)} %  ${k}`);
}

async function scroll(page: Page, cdp: CDPSession, build: string, phase: string): Promise<Phase> {
  const metrics = async () => Object.fromEntries((await cdp.send('Performance.getMetrics')).metrics.map((m) => [m.name, m.value]));
  const m0 = await metrics();
  await page.evaluate('__s.start()');
  for (let k = 0; k < 200; k++) {
    await page.mouse.wheel(0, k < 100 ? 900 : -900);
    await page.waitForTimeout(16);
  }
  const gaps = (await page.evaluate('__s.stop()')) as number[];
  const m1 = await metrics();
  return {
    build,
    phase,
    largest: Math.max(...gaps),
    over50: gaps.filter((g) => g > 50).length,
    frames: gaps.length,
    cpu: m1.ThreadTime - m0.ThreadTime,
    script: m1.ScriptDuration - m0.ScriptDuration,
    load: load(),
  };
}

async function one(build: { name: string; dir: string }, round: number): Promise<Phase[]> {
  const { browser, page, cdp, close } = await openLibraryPage(n, build.dir);
  try {
    await page.evaluate(PROBE);
    const box = (await page.getByTestId('results-table').boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    const t0 = Date.now();
    while ((await rows(page)) < target && Date.now() - t0 < 300_000)
      for (let k = 0; k < 10; k++) {
        await page.mouse.wheel(0, 900);
        await page.waitForTimeout(16);
      }
    await page.waitForTimeout(1500);
    const out = [await scroll(page, cdp, build.name, 'alone')];
    const burners = cpuBurners(2);
    try {
      await page.waitForTimeout(1500);
      if (profileDir) {
        await cdp.send('Profiler.enable');
        await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
        await cdp.send('Profiler.start');
      }
      if (traceDir) await browser.startTracing(page, { categories: ['devtools.timeline'] });
      out.push(await scroll(page, cdp, build.name, 'two burners'));
      if (traceDir) await traceSummary(browser, join(traceDir, `${build.name}-${round}.json`), build.name);
      if (profileDir) {
        const { profile } = (await cdp.send('Profiler.stop')) as unknown as {
          profile: { nodes: Node[]; samples: number[]; timeDeltas: number[] };
        };
        const file = join(profileDir, `${build.name}-${round}.cpuprofile`);
        writeFileSync(file, JSON.stringify(profile));
        console.log(`\n${build.name} round ${round}: the busy phase's heaviest functions (self time; ${file})`);
        for (const l of heaviest(profile)) console.log(l);
      }
    } finally {
      await burners.stop();
    }
    return out;
  } finally {
    await close();
  }
}

async function main(): Promise<void> {
  const all: Phase[] = [];
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 ? [...builds].reverse() : builds;
    for (const b of order) {
      const res = await one(b, r);
      for (const p of res)
        console.log(
          `round ${r} ${p.build.padEnd(6)} ${p.phase.padEnd(12)} largest gap ${p.largest.toFixed(0).padStart(4)} ms, over 50 ms ${String(p.over50).padStart(3)} of ${p.frames}, main-thread CPU ${p.cpu.toFixed(2)} s (script ${p.script.toFixed(2)} s), load ${p.load.toFixed(2)}`,
        );
      all.push(...res);
    }
  }
  if (process.env.JSON) writeFileSync(process.env.JSON, JSON.stringify(all, null, 1));
}

void main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
