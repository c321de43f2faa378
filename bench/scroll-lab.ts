/**
 * A scroll step's cost (issue 30), renderer builds and CSS what-ifs side by side: the UI bench's
 * archive served by the web host, one Debian Chromium page per renderer build (B=name=dir,…; else
 * R, else the project's own build), each with ROWS rows of the Library loaded; then for each round
 * and each build × variant (a stylesheet added to the page, "base" = none), the order reversed
 * every other round, scrolls to the top and takes 100 wheel steps of 900 px down, and prints the
 * renderer's main-thread CPU (CDP ThreadTime) and its parts (script, style, layout, the rest: paint,
 * pre-paint, layerize). TRACE=1 also traces each scroll and prints the main thread's thread time by
 * trace event (self time; medians).
 * `B=base=<dir>,new=<dir> ROUNDS=6 N=200000 LOUPE_BENCH_UI_DATA=<dir> npx tsx bench/scroll-lab.ts`
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Browser, CDPSession, Page } from '@playwright/test';
import { mainThreadSelf, openLibraryPage, type LibraryPage } from './library-page';

const n = Number(process.env.N ?? 1_000_000);
const target = Number(process.env.ROWS ?? 3500);
const rounds = Number(process.env.ROUNDS ?? 3);
const load = (): number => Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
const tracing = !!process.env.TRACE;
/** wheel steps a subject takes before the next one takes its turn (CHUNK; 100 = each subject's 100 steps at once) */
const chunk = Number(process.env.CHUNK ?? 100);
if (!(chunk > 0 && 100 % chunk === 0)) throw new Error('CHUNK must divide 100');
const VARIANTS: Record<string, string> = JSON.parse(process.env.VARIANTS ?? '{}');
VARIANTS.base = '';

interface Subject {
  name: string;
  browser: Browser;
  page: Page;
  cdp: CDPSession;
  css: string;
}

/** One page per build (B=name=dir,…; else R or the project's own build), ROWS rows loaded in each. */
async function openBuilds(): Promise<{
  pages: Array<{ build: string; browser: Browser; page: Page; cdp: CDPSession }>;
  close(): Promise<void>;
}> {
  const builds = process.env.B
    ? process.env.B.split(',').map((s) => {
        const [name, dir] = s.split('=');
        return { name, dir: resolve(dir) };
      })
    : [{ name: '', dir: process.env.R || undefined }];
  const opened: LibraryPage[] = [];
  const pages: Array<{ build: string; browser: Browser; page: Page; cdp: CDPSession }> = [];
  const close = async (): Promise<void> => {
    for (const o of opened) await o.close();
  };
  try {
    for (const b of builds) {
      const lp = await openLibraryPage(n, b.dir);
      opened.push(lp);
      const { browser, page, cdp } = lp;
      const box = (await page.getByTestId('results-table').boundingBox())!;
      await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
      const rows = async () =>
        Number(/^\s*([\d,]+)/.exec((await page.getByTestId('row-count').textContent()) ?? '')?.[1].replace(/,/g, '') ?? 0);
      while ((await rows()) < target)
        for (let k = 0; k < 10; k++) {
          await page.mouse.wheel(0, 900);
          await page.waitForTimeout(16);
        }
      await page.evaluate(`(() => { const s = document.createElement('style'); s.id = 'lab'; document.head.appendChild(s); })()`);
      pages.push({ build: b.name, browser, page, cdp });
    }
    return { pages, close };
  } catch (e) {
    await close();
    throw e;
  }
}

async function main(): Promise<void> {
  const { pages, close } = await openBuilds();
  try {
    const subjects: Subject[] = pages.flatMap((p) =>
      Object.keys(VARIANTS).map((v) => ({
        name: [p.build, v].filter(Boolean).join(':'),
        browser: p.browser,
        page: p.page,
        cdp: p.cdp,
        css: VARIANTS[v],
      })),
    );
    const sums = new Map<string, number[][]>();
    const traces = new Map<string, Array<Map<string, number>>>();
    const metricsOf = async (cdp: CDPSession) =>
      Object.fromEntries((await cdp.send('Performance.getMetrics')).metrics.map((m) => [m.name, m.value]));
    const top = new Map<Subject, number>();
    /** `steps` wheel steps of one subject from where its last chunk left off (the top at a round's start): ThreadTime, script, style, layout, task. */
    const scrollChunk = async (
      s: Subject,
      steps: number,
      first: boolean,
    ): Promise<{ row: number[]; parts: Map<string, number> | null }> => {
      const { page, cdp } = s;
      await page.evaluate(
        ([css, y]) => {
          const lab = document.getElementById('lab')!;
          if (lab.textContent !== css) lab.textContent = css;
          document.querySelector('[data-testid=results-table]')!.scrollTop = Number(y);
        },
        [s.css, String(first ? 0 : (top.get(s) ?? 0))],
      );
      await page.waitForTimeout(first ? 800 : 400);
      if (tracing) await s.browser.startTracing(page, { categories: ['devtools.timeline'] });
      const m0 = await metricsOf(cdp);
      for (let k = 0; k < steps; k++) {
        await page.mouse.wheel(0, 900);
        await page.waitForTimeout(16);
      }
      await page.waitForTimeout(300);
      const m1 = await metricsOf(cdp);
      const parts = tracing ? mainThreadSelf(await s.browser.stopTracing()) : null;
      top.set(s, await page.evaluate(() => document.querySelector('[data-testid=results-table]')!.scrollTop));
      const d = (k: string) => m1[k] - m0[k];
      return { row: [d('ThreadTime'), d('ScriptDuration'), d('RecalcStyleDuration'), d('LayoutDuration'), d('TaskDuration')], parts };
    };
    for (let r = 0; r < rounds; r++) {
      const rowOf = new Map<Subject, number[]>();
      const partsOf = new Map<Subject, Map<string, number>>();
      for (let c = 0; c < 100 / chunk; c++)
        for (const s of (r * (100 / chunk) + c) % 2 ? [...subjects].reverse() : subjects) {
          const { row, parts } = await scrollChunk(s, chunk, c === 0);
          const acc = rowOf.get(s) ?? rowOf.set(s, [0, 0, 0, 0, 0]).get(s)!;
          row.forEach((x, i) => (acc[i] += x));
          if (parts) {
            const p = partsOf.get(s) ?? partsOf.set(s, new Map()).get(s)!;
            for (const [k, v] of parts) p.set(k, (p.get(k) ?? 0) + v);
          }
        }
      for (const s of r % 2 ? [...subjects].reverse() : subjects) {
        const row = [...rowOf.get(s)!, load()];
        if (tracing) (traces.get(s.name) ?? traces.set(s.name, []).get(s.name)!).push(partsOf.get(s)!);
        (sums.get(s.name) ?? sums.set(s.name, []).get(s.name)!).push(row);
        console.log(
          `round ${r} ${s.name.padEnd(16)} CPU ${row[0].toFixed(2)} s; task ${row[4].toFixed(2)} s: script ${row[1].toFixed(2)}, style ${row[2].toFixed(2)}, layout ${row[3].toFixed(2)}, rest ${(row[4] - row[1] - row[2] - row[3]).toFixed(2)}; load ${row[5].toFixed(1)}`,
        );
      }
    }
    console.log('\nmedian CPU per subject:');
    for (const [v, rs] of sums) {
      const c = rs.map((x) => x[0]).sort((a, b) => a - b);
      const sc = rs.map((x) => x[1]).sort((a, b) => a - b);
      console.log(
        `${v.padEnd(16)} ${c[Math.floor(c.length / 2)].toFixed(2)} s  [${c.map((x) => x.toFixed(2)).join(' ')}]  script ${sc[Math.floor(sc.length / 2)].toFixed(2)} s`,
      );
    }
    const [ref, ...others] = [...sums.keys()];
    if (others.length) {
      console.log(`\nCPU against ${ref}, round by round (median; lower in how many rounds):`);
      const r0 = sums.get(ref)!.map((x) => x[0]);
      for (const v of others) {
        const ratios = sums.get(v)!.map((x, i) => x[0] / r0[i]);
        console.log(
          `${v.padEnd(16)} ${median(ratios).toFixed(3)}×  [${ratios.map((x) => x.toFixed(2)).join(' ')}]  lower in ${ratios.filter((x) => x < 1).length} of ${ratios.length}`,
        );
      }
    }
    if (tracing) {
      console.log('\nmedian thread time of the renderer main thread by trace event (self, ms):');
      const names = ['total', 'Paint', 'FunctionCall', 'Layout', 'UpdateLayoutTree', 'PrePaint', 'Layerize', 'RunTask'];
      console.log(`${''.padEnd(16)} ${names.map((k) => k.padStart(16)).join('')}`);
      for (const [v, ts] of traces)
        console.log(
          `${v.padEnd(16)} ${names
            .map((k) =>
              median(ts.map((t) => (t.get(k) ?? 0) / 1000))
                .toFixed(0)
                .padStart(16),
            )
            .join('')}`,
        );
    }
  } finally {
    await close();
  }
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

void main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
