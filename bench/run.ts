/**
 * `npm run bench [-- --only <name>] [-- --quick]`
 *
 * Runs every `bench/*.bench.ts` (each exports `name` and `run(ctx)`, or a default object with
 * both), prints one table, and writes bench/results/latest.json and bench/results/latest.md
 * (the markdown table is what goes into docs/benchmarks.md). Each figure carries the machine's
 * 1-minute load average when it was measured (the `load` column): on a shared machine a figure
 * means little without it.
 */
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { cpus, loadavg, totalmem } from 'node:os';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Bench, BenchContext, Result, ResultRow } from './types';

const here = import.meta.dirname;

function parseArgs(argv: string[]): { only: string[]; quick: boolean } {
  const only: string[] = [];
  let quick = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--quick') quick = true;
    else if (a === '--only') {
      const v = argv[++i];
      if (!v) throw new Error('--only needs a benchmark name');
      only.push(...v.split(','));
    } else if (a.startsWith('--only=')) only.push(...a.slice('--only='.length).split(','));
    else if (a === '--help' || a === '-h') {
      console.log('usage: npm run bench -- [--quick] [--only <name>[,<name>...]]');
      process.exit(0);
    } else throw new Error(`unknown argument '${a}' (use --quick, --only <name>)`);
  }
  return { only, quick };
}

function isBench(x: unknown): x is Bench {
  return typeof x === 'object' && x !== null && typeof (x as Bench).name === 'string' && typeof (x as Bench).run === 'function';
}

async function loadBenches(): Promise<Bench[]> {
  const files = (await readdir(here)).filter((f) => f.endsWith('.bench.ts')).sort();
  const out: Bench[] = [];
  for (const f of files) {
    const mod = (await import(pathToFileURL(join(here, f)).href)) as Record<string, unknown>;
    const b = isBench(mod.default) ? mod.default : isBench(mod) ? (mod as unknown as Bench) : null;
    if (!b) throw new Error(`${f}: must export name and run() (or a default { name, run })`);
    out.push(b);
  }
  return out;
}

export function fmtValue(r: Result): string {
  if (r.value === null || !Number.isFinite(r.value)) return 'n/a';
  const v = r.value;
  const abs = Math.abs(v);
  const s = abs >= 1000 ? Math.round(v).toLocaleString('en-US') : abs >= 100 ? v.toFixed(0) : abs >= 10 ? v.toFixed(1) : v.toFixed(2);
  return `${s} ${r.unit}`.trim();
}

const okMark = (ok: boolean | undefined): string => (ok === undefined ? '' : ok ? 'yes' : 'NO');

function table(rows: ResultRow[]): string[][] {
  return [
    ['bench', 'metric', 'value', 'target', 'met', 'load', 'note'],
    ...rows.map((r) => [
      r.bench,
      r.metric,
      fmtValue(r),
      r.target ?? '',
      okMark(r.ok),
      r.load === undefined ? '' : r.load.toFixed(1),
      r.note ?? '',
    ]),
  ];
}

function printTable(t: string[][]): void {
  const widths = t[0].map((_, i) => Math.min(60, Math.max(...t.map((r) => r[i].length))));
  const line = (r: string[]): string =>
    r
      .map((c, i) => c.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  console.log(line(t[0]));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of t.slice(1)) console.log(line(r));
}

function markdown(t: string[][], meta: Record<string, string>): string {
  const esc = (s: string): string => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
  const lines = [
    `Benchmarks (${meta.mode}) — ${meta.date}, Node ${meta.node}, ${meta.cpus}, ${meta.memory}`,
    '',
    `| ${t[0].join(' | ')} |`,
    `| ${t[0].map(() => '---').join(' | ')} |`,
    ...t.slice(1).map((r) => `| ${r.map(esc).join(' | ')} |`),
    '',
  ];
  return lines.join('\n');
}

async function main(): Promise<void> {
  const { only, quick } = parseArgs(process.argv.slice(2));
  const all = await loadBenches();
  const chosen = only.length ? all.filter((b) => only.includes(b.name)) : all;
  const missing = only.filter((n) => !all.some((b) => b.name === n));
  if (missing.length) throw new Error(`no benchmark named ${missing.join(', ')} (have: ${all.map((b) => b.name).join(', ')})`);

  const ctx: BenchContext = { quick, log: (m) => process.stderr.write(`  … ${m}\n`) };
  const rows: ResultRow[] = [];
  let failed = false;
  for (const b of chosen) {
    process.stderr.write(`▶ ${b.name}${quick ? ' (quick)' : ''}\n`);
    const t0 = performance.now();
    try {
      const results = await b.run(ctx);
      // a figure without its own load gets the load at the end of its bench
      const load = Math.round(loadavg()[0] * 10) / 10;
      for (const r of results) rows.push({ bench: b.name, ...r, load: r.load ?? load });
    } catch (e) {
      failed = true;
      rows.push({ bench: b.name, metric: 'ERROR', value: null, unit: '', note: e instanceof Error ? e.message : String(e) });
      process.stderr.write(`  ✗ ${b.name} failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    }
    process.stderr.write(`  done in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
  }

  const meta = {
    mode: quick ? 'quick' : 'full',
    date: new Date().toISOString(),
    node: process.versions.node,
    cpus: `${cpus().length} × ${cpus()[0]?.model.trim() ?? 'cpu'}`,
    memory: `${Math.round(totalmem() / 2 ** 30)} GiB`,
  };
  const t = table(rows);
  console.log('');
  printTable(t);
  const dir = join(here, 'results');
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'latest.json'), JSON.stringify({ ...meta, benches: chosen.map((b) => b.name), results: rows }, null, 2) + '\n');
  await writeFile(join(dir, 'latest.md'), markdown(t, meta));
  console.log(`\nwrote ${join(basename(here), 'results', 'latest.json')} and latest.md`);
  if (failed) process.exitCode = 1;
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(2);
});
