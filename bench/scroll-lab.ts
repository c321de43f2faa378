/**
 * CSS what-ifs for a scroll step's cost (issue 30), in one page: the UI bench's archive served by
 * the web host (renderer build R), Debian Chromium loads ROWS rows of the Library, then for each
 * round and each variant (a stylesheet added to the page, "base" = none) scrolls to the top and
 * takes 100 wheel steps of 900 px down, and prints the renderer's main-thread CPU (CDP ThreadTime)
 * and its parts (script, style, layout, the rest: paint, pre-paint, layerize) per variant.
 * `R=<renderer dir> N=200000 LOUPE_BENCH_UI_DATA=<dir> npx tsx bench/scroll-lab.ts`
 */
import { readFileSync } from 'node:fs';
import { openLibraryPage } from './library-page';

const n = Number(process.env.N ?? 1_000_000);
const target = Number(process.env.ROWS ?? 3500);
const rounds = Number(process.env.ROUNDS ?? 3);
const load = (): number => Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
const VARIANTS: Record<string, string> = JSON.parse(process.env.VARIANTS ?? '{}');
VARIANTS.base = '';

async function main(): Promise<void> {
  const { page, cdp, close } = await openLibraryPage(n, process.env.R || undefined);
  try {
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
    const metrics = async () => Object.fromEntries((await cdp.send('Performance.getMetrics')).metrics.map((m) => [m.name, m.value]));
    const sums = new Map<string, number[][]>();
    for (let r = 0; r < rounds; r++) {
      const names = Object.keys(VARIANTS);
      for (const v of r % 2 ? names.reverse() : names) {
        await page.evaluate(
          ([css]) => {
            document.getElementById('lab')!.textContent = css;
            document.querySelector('[data-testid=results-table]')!.scrollTop = 0;
          },
          [VARIANTS[v]],
        );
        await page.waitForTimeout(800);
        const m0 = await metrics();
        for (let k = 0; k < 100; k++) {
          await page.mouse.wheel(0, 900);
          await page.waitForTimeout(16);
        }
        await page.waitForTimeout(300);
        const m1 = await metrics();
        const d = (k: string) => m1[k] - m0[k];
        const row = [d('ThreadTime'), d('ScriptDuration'), d('RecalcStyleDuration'), d('LayoutDuration'), d('TaskDuration'), load()];
        (sums.get(v) ?? sums.set(v, []).get(v)!).push(row);
        console.log(
          `round ${r} ${v.padEnd(12)} CPU ${row[0].toFixed(2)} s; task ${row[4].toFixed(2)} s: script ${row[1].toFixed(2)}, style ${row[2].toFixed(2)}, layout ${row[3].toFixed(2)}, rest ${(row[4] - row[1] - row[2] - row[3]).toFixed(2)}; load ${row[5].toFixed(1)}`,
        );
      }
    }
    console.log('\nmedian CPU per variant:');
    for (const [v, rs] of sums) {
      const c = rs.map((x) => x[0]).sort((a, b) => a - b);
      console.log(`${v.padEnd(12)} ${c[Math.floor(c.length / 2)].toFixed(2)} s  [${c.map((x) => x.toFixed(2)).join(' ')}]`);
    }
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
