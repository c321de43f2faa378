/**
 * Where a slow scroll frame's time goes (issue 30), outside `npm run bench`: the UI bench's archive
 * (N posts, default 1M: bench/ui-archive.ts must have built it) served by the web host, Debian
 * Chromium scrolls the Library as the UI bench does (900 px wheel steps: down while pages load to
 * 10,000 rows, then 200 steps up), and prints per phase the renderer's main-thread time from CDP
 * `Performance.getMetrics` (TaskDuration is wall time of its tasks, ThreadTime its CPU), the DOM's
 * size, the frame gaps, long tasks and the longest animation frames with their scripts.
 * `npx tsx bench/scroll-diag.ts`; R=<dir> serves another renderer build (an A/B).
 */
import { readFileSync } from 'node:fs';
import { openLibraryPage } from './library-page';

const n = Number(process.env.N ?? 1_000_000);
const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
const PROBE = `(() => {
  window.__d = { frames: null, loaf: [], long: [] };
  new PerformanceObserver((l) => { if (!__d.frames) return; for (const e of l.getEntries()) __d.loaf.push({ ms: e.duration, blocking: e.blockingDuration, before: (e.renderStart||e.startTime+e.duration) - e.startTime, scripts: (e.scripts||[]).map(s => ({ inv: s.invoker, type: s.invokerType, ms: s.duration, fwd: s.forcedStyleAndLayoutDuration, src: (s.sourceURL||'').slice(-30) + ':' + s.sourceFunctionName + ':' + s.sourceCharPosition })) }); }).observe({ type: 'long-animation-frame' });
  new PerformanceObserver((l) => { if (!__d.frames) return; for (const e of l.getEntries()) __d.long.push(e.duration); }).observe({ type: 'longtask' });
  __d.start = () => { __d.loaf = []; __d.long = []; __d.frames = []; const loop = (t) => { if (!__d.frames) return; __d.frames.push(t); requestAnimationFrame(loop); }; requestAnimationFrame(loop); };
  __d.stop = () => { const f = __d.frames; __d.frames = null; const g = []; for (let i = 1; i < f.length; i++) g.push(f[i]-f[i-1]); return { gaps: g, loaf: __d.loaf, long: __d.long }; };
})()`;

async function main() {
  const { page, cdp, close } = await openLibraryPage(n, process.env.R || undefined);
  try {
    await page.evaluate(PROBE);
    const box = (await page.getByTestId('results-table').boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    const rows = async () =>
      Number(((await page.getByTestId('row-count').textContent()) ?? '').replace(/,/g, '').replace(/^\s*(\d+).*$/s, '$1') || 0);
    const metrics = async () => Object.fromEntries((await cdp.send('Performance.getMetrics')).metrics.map((m) => [m.name, m.value]));
    const phase = async (label: string, body: () => Promise<void>) => {
      const m0 = await metrics();
      const t0 = Date.now();
      await page.evaluate('__d.start()');
      await body();
      const r = (await page.evaluate('__d.stop()')) as { gaps: number[]; loaf: any[]; long: number[] };
      const m1 = await metrics();
      const wall = (Date.now() - t0) / 1000;
      const d = (k: string) => (m1[k] - m0[k]).toFixed(2);
      const sorted = [...r.gaps].sort((a, b) => b - a);
      console.log(`\n== ${label}: wall ${wall.toFixed(1)} s, load ${load()}, rows ${await rows()}`);
      console.log(
        `  main thread: Task ${d('TaskDuration')} s, Script ${d('ScriptDuration')} s, Layout ${d('LayoutDuration')} s, Style ${d('RecalcStyleDuration')} s; Thread ${d('ThreadTime')} s, Process ${d('ProcessTime')} s; heap ${(m1.JSHeapUsedSize / 1e6).toFixed(1)} MB; Nodes ${m1.Nodes}, LayoutObjects ${m1.LayoutObjects}, row elements ${await page.evaluate('document.querySelectorAll("[data-testid=result-row]").length')}`,
      );
      console.log(
        `  gaps: n ${r.gaps.length}, >50 ${r.gaps.filter((g) => g > 50).length}, top ${sorted
          .slice(0, 8)
          .map((g) => g.toFixed(0))
          .join(' ')}`,
      );
      console.log(
        `  longtasks: ${r.long.length}, top ${[...r.long]
          .sort((a, b) => b - a)
          .slice(0, 8)
          .map((g) => g.toFixed(0))
          .join(' ')}`,
      );
      const top = [...r.loaf].sort((a, b) => b.ms - a.ms).slice(0, 5);
      for (const l of top)
        console.log(
          `  LoAF ${l.ms.toFixed(0)} ms (blocking ${l.blocking.toFixed(0)}, before render ${l.before.toFixed(0)}): ${l.scripts.map((s: any) => `${s.type}/${s.inv} ${s.ms.toFixed(0)}ms fwd${s.fwd.toFixed(0)} ${s.src}`).join(' | ')}`,
        );
    };
    await phase('down while pages load', async () => {
      const t0 = Date.now();
      while ((await rows()) < 10_000 && Date.now() - t0 < 240_000)
        for (let k = 0; k < 10; k++) {
          await page.mouse.wheel(0, 900);
          await page.waitForTimeout(16);
        }
    });
    await page.waitForTimeout(1500);
    await phase('up with rows loaded', async () => {
      for (let k = 0; k < 200; k++) {
        await page.mouse.wheel(0, -900);
        await page.waitForTimeout(16);
      }
    });
    await page.waitForTimeout(1000);
    await phase('idle page, no input (3 s)', async () => {
      await page.waitForTimeout(3000);
    });
  } finally {
    await close();
  }
}
void main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
