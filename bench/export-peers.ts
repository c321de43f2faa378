/**
 * Issue 30's export targets, measured side by side in one run on the exports bench's archive:
 *  - Loupe's CSV export (a child process: time, CPU, peak RSS) against the sqlite3 program's
 *    `-csv -header` of the same table, every row (`SELECT * FROM items`): ≤ 1.2× its time, and
 *    < 300 MB peak RSS at 1M rows;
 *  - Loupe's Parquet export against DuckDB's `COPY … TO parquet` (Snappy) of the same rows, held
 *    in a DuckDB table (read from Loupe's file first, not timed): ≤ 1.5× its time; beside it
 *    DuckDB converting Loupe's CSV of the same rows, and the Parquet ÷ CSV time (≤ 1×, issue 26);
 *  - XLSX ÷ CSV (≤ 3×, < 400 MB; issue 16).
 * Loupe and its peer run in interleaved pairs (`LOUPE_BENCH_EXPORT_PAIRS`, default 3), medians
 * reported with their ranges; the machine's load is printed beside each figure. A missing peer
 * (bench/peers.ts) is skipped with a sentence.
 *
 * Loupe's exports run as users run them: the built command line (`node bin/loupe.js export`,
 * built first), whole processes timed as the peers are (start-up included; CPU and peak RSS from
 * GNU time). Without GNU time, bench/exports-child.ts runs them from the sources through tsx.
 *
 * Every side writes a file that is not there when its clock starts (the previous run's output is
 * removed first, untimed): replacing a 130 MB file costs its unlink (60–140 ms here), which the
 * sqlite3 side used to pay before its clock (`open(…, 'w')` truncates) and Loupe's inside it (its
 * rename onto the old file), and DuckDB's COPY inside its own.
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, rmSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { archivePath } from '../src/core/paths';
import { buildCli } from '../scripts/build-cli.mjs';
import { duckdb, sqlite3Program } from './peers';
import { below, loadNow, type BenchContext, type Result } from './types';

export interface ChildExport {
  rows: number;
  bytes: number;
  ms: number;
  cpuMs: number;
  peakRssMB: number;
  summary: string;
}

export function child(args: string[]): Promise<ChildExport> {
  return new Promise((res, rej) => {
    const p = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'exports-child.ts'), ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    p.stdout.on('data', (d: Buffer) => (out += String(d)));
    p.stderr.on('data', (d: Buffer) => (err += String(d)));
    p.on('error', rej);
    p.on('close', (code) =>
      code === 0 ? res(JSON.parse(out.trim().split('\n').pop()!)) : rej(new Error(`exports-child ${args[2]} failed: ${err.slice(-500)}`)),
    );
  });
}

const TIME = '/usr/bin/time';
const ROOT = join(import.meta.dirname, '..');

/**
 * One export by the built command line (`loupe --data-dir <dir> export --format <f> --no-history
 * -o <out>`, as the child's exportAny: no history files beside it): wall time from spawn to exit,
 * CPU (user + system, every thread) and peak RSS from GNU time.
 */
function cliExport(dir: string, out: string, format: string): Promise<ChildExport> {
  return new Promise((res, rej) => {
    const args = ['-f', '%U %S %M', process.execPath, join(ROOT, 'bin', 'loupe.js'), '--data-dir', dir];
    const t0 = performance.now();
    const p = spawn(TIME, [...args, 'export', '--format', format, '--no-history', '-o', out], { stdio: ['ignore', 'pipe', 'pipe'] });
    let said = '';
    let err = '';
    p.stdout.on('data', (d: Buffer) => (said += String(d)));
    p.stderr.on('data', (d: Buffer) => (err += String(d)));
    p.on('error', rej);
    p.on('close', (code) => {
      const ms = performance.now() - t0;
      const summary = `${said}${err}`.match(/Exported [^\n]*/)?.[0] ?? '';
      if (code !== 0 || !summary) return rej(new Error(`loupe export --format ${format} failed: ${err.slice(-500)}`));
      const [u, sy, m] = err.trim().split('\n').pop()!.split(' ').map(Number);
      stat(out).then(
        (st) =>
          res({
            rows: Number(summary.match(/Exported ([\d,]+) rows/)?.[1].replaceAll(',', '') ?? NaN),
            bytes: st.size,
            ms,
            cpuMs: (u + sy) * 1000,
            peakRssMB: m / 1024,
            summary,
          }),
        rej,
      );
    });
  });
}

/** The previous run's output removed before a clock starts (see the header). */
const fresh = (path: string): string => (rmSync(path, { force: true }), path);

/** Loupe's export of `format` to `out` (a fresh file): the built command line where GNU time is there, else the tsx child. */
function loupeExport(dir: string, out: string, format: string): Promise<ChildExport> {
  fresh(out);
  return existsSync(TIME) ? cliExport(dir, out, format) : child([dir, out, format]);
}

/** The sqlite3 program's CSV of every row of `items`: wall and CPU time, peak RSS (GNU time when there). */
function sqlite3Csv(bin: string, db: string, out: string): Promise<{ ms: number; cpuMs: number | null; rssMB: number | null }> {
  const time = TIME;
  return new Promise((res, rej) => {
    const fd = openSync(fresh(out), 'w');
    const t0 = performance.now();
    const p = spawn(time, ['-f', '%U %S %M', bin, '-csv', '-header', db, 'SELECT * FROM items'], { stdio: ['ignore', fd, 'pipe'] });
    let err = '';
    p.stderr?.on('data', (d: Buffer) => (err += String(d)));
    p.on('error', rej);
    p.on('close', (code) => {
      closeSync(fd);
      const ms = performance.now() - t0;
      if (code !== 0) return rej(new Error(`sqlite3 failed: ${err.slice(-300)}`));
      const [u, s, m] = err.trim().split('\n').pop()!.split(' ').map(Number);
      res({ ms, cpuMs: Number.isFinite(u + s) ? (u + s) * 1000 : null, rssMB: Number.isFinite(m) ? m / 1024 : null });
    });
  });
}

const s1 = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
const mb = (b: number): string => `${(b / 2 ** 20).toFixed(0)} MiB`;
const median = (xs: number[]): number => {
  const v = [...xs].sort((a, b) => a - b);
  return v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
};
const span = (xs: number[], f: (x: number) => string = s1): string =>
  xs.length > 1 ? ` (${f(Math.min(...xs))}–${f(Math.max(...xs))})` : '';
/** the highest load average seen over the runs (the table has one number; the notes give the range) */
const loadSpan = (xs: number[]): number => Math.max(...xs);

/**
 * Interleaved pairs (Loupe, then its peer, `LOUPE_BENCH_EXPORT_PAIRS` times, default 3), medians:
 * on a shared machine the load moves between two runs, and a pair sees it alike.
 */
const pairs = (): number => Math.max(1, Math.floor(Number(process.env.LOUPE_BENCH_EXPORT_PAIRS ?? 3)) || 3);

export async function exportComparisons(dir: string, outDir: string, ctx: BenchContext): Promise<Result[]> {
  const out: Result[] = [];
  const db = archivePath(dir);
  const n = pairs();
  const how = existsSync(TIME)
    ? 'the built command line (loupe export, start-up included)'
    : 'from the sources through tsx (GNU time is not installed, so not the built command line)';
  if (existsSync(TIME)) {
    const built = await buildCli({ quiet: true });
    ctx.log(`built the command line: ${built.files} files; Loupe's exports run it`);
  }
  // CSV: Loupe, then the sqlite3 program, back to back, n times
  const sq = sqlite3Program(ctx.log);
  const csvRuns: ChildExport[] = [];
  const sqRuns: Array<{ ms: number; cpuMs: number | null; rssMB: number | null }> = [];
  const loads: number[] = [];
  let sqBytes = 0;
  for (let i = 0; i < n; i++) {
    loads.push(await loadNow());
    const csv = await loupeExport(dir, join(outDir, 'a.csv'), 'csv');
    ctx.log(`csv ${s1(csv.ms)} (CPU ${s1(csv.cpuMs)}) ${csv.peakRssMB.toFixed(0)} MB`);
    csvRuns.push(csv);
    if ('path' in sq) {
      const r = await sqlite3Csv(sq.path, db, join(outDir, 'sqlite3.csv'));
      sqBytes = (await stat(join(outDir, 'sqlite3.csv'))).size;
      ctx.log(`sqlite3 -csv ${s1(r.ms)}`);
      sqRuns.push(r);
    }
  }
  const csv = { ...csvRuns[0], ms: median(csvRuns.map((r) => r.ms)), cpuMs: median(csvRuns.map((r) => r.cpuMs)) };
  const csvLoad = loadSpan(loads);
  const rows = csv.rows.toLocaleString('en-US');
  const peak = Math.max(...csvRuns.map((r) => r.peakRssMB));
  out.push({
    metric: `CSV export of ${rows} posts (Loupe)`,
    value: csv.ms / 1000,
    unit: 's',
    load: csvLoad,
    note: `median of ${n}${span(csvRuns.map((r) => r.ms))}; CPU ${s1(csv.cpuMs)}${span(csvRuns.map((r) => r.cpuMs))} (every thread), ${mb(csv.bytes)}, all columns; ${how}`,
  });
  out.push({
    metric: `CSV export peak RSS (${rows} rows)`,
    value: peak,
    unit: 'MB',
    target: '< 300 MB at 1M',
    ok: below(peak, 300),
    load: csvLoad,
    note:
      n > 1
        ? `the largest of ${n} runs${span(
            csvRuns.map((r) => r.peakRssMB),
            (x) => `${x.toFixed(0)} MB`,
          )}`
        : undefined,
  });
  if ('path' in sq) {
    const ratios = csvRuns.map((r, i) => r.ms / sqRuns[i].ms);
    const ratio = median(ratios);
    const sqMs = median(sqRuns.map((r) => r.ms));
    const cpus = sqRuns.map((r) => r.cpuMs).filter((c): c is number => c !== null);
    const sqCpu = cpus.length > 0 ? median(cpus) : null;
    const rss = sqRuns.map((r) => r.rssMB).filter((m): m is number => m !== null);
    out.push({
      metric: 'CSV export ÷ sqlite3 -csv of the same table and rows, time',
      value: ratio,
      unit: '×',
      target: '≤ 1.2×',
      ok: ratio <= 1.2,
      load: csvLoad,
      note: `median of ${n} interleaved pairs${span(ratios, (x) => `${x.toFixed(2)}×`)} at load ${loads.map((l) => l.toFixed(1)).join(', ')}; sqlite3 ${s1(sqMs)}${sqCpu === null ? '' : `, CPU ${s1(sqCpu)}`}${rss.length ? `, ${Math.max(...rss).toFixed(0)} MB` : ''}, ${mb(sqBytes)} (SELECT * FROM items: the record JSON and its columns, no neutralisation, no BOM); Loupe's CPU ÷ sqlite3's ${sqCpu ? (csv.cpuMs / sqCpu).toFixed(1) : '?'}×`,
    });
  } else
    out.push({
      metric: 'CSV export ÷ sqlite3 -csv of the same table and rows, time',
      value: null,
      unit: '×',
      target: '≤ 1.2×',
      note: sq.missing,
    });

  const xLoad = await loadNow();
  const xlsx = await loupeExport(dir, join(outDir, 'a.xlsx'), 'xlsx');
  ctx.log(`xlsx ${s1(xlsx.ms)} ${xlsx.peakRssMB.toFixed(0)} MB`);
  out.push({
    metric: 'XLSX export ÷ CSV export, time',
    value: xlsx.ms / csv.ms,
    unit: '×',
    target: '≤ 3×',
    ok: xlsx.ms <= 3 * csv.ms,
    load: xLoad,
    note: `${s1(xlsx.ms)} vs ${s1(csv.ms)} (the CSV's median); ${mb(xlsx.bytes)}; ${xlsx.summary}`,
  });
  out.push({
    metric: 'XLSX export peak RSS',
    value: xlsx.peakRssMB,
    unit: 'MB',
    target: '< 400 MB',
    ok: below(xlsx.peakRssMB, 400),
    load: xLoad,
  });

  // Parquet: Loupe, then DuckDB's COPY of the same rows (a table loaded from Loupe's first file, not timed), n times
  const duck = await duckdb(ctx.log);
  const inst = 'api' in duck ? await duck.api.DuckDBInstance.create(':memory:', { threads: '2' }) : null;
  const c = inst ? await inst.connect() : null;
  try {
    const q = (f: string): string => `'${f.replace(/'/g, "''")}'`;
    const timed = async (sql: string): Promise<{ ms: number; cpuMs: number }> => {
      const u0 = process.cpuUsage();
      const t0 = performance.now();
      await c!.run(sql);
      const u = process.cpuUsage(u0);
      return { ms: performance.now() - t0, cpuMs: (u.user + u.system) / 1000 };
    };
    const pqRuns: ChildExport[] = [];
    const duckRuns: Array<{ ms: number; cpuMs: number }> = [];
    const pLoads: number[] = [];
    for (let i = 0; i < n; i++) {
      pLoads.push(await loadNow());
      const pq = await loupeExport(dir, join(outDir, `a${i}.parquet`), 'parquet');
      ctx.log(`parquet ${s1(pq.ms)} (CPU ${s1(pq.cpuMs)}) ${pq.peakRssMB.toFixed(0)} MB`);
      pqRuns.push(pq);
      if (c) {
        if (i === 0) await c.run(`CREATE TABLE t AS SELECT * FROM read_parquet(${q(join(outDir, 'a0.parquet'))})`);
        const mem = await timed(`COPY t TO ${q(fresh(join(outDir, 'duck.parquet')))} (FORMAT parquet, COMPRESSION snappy)`);
        ctx.log(`duckdb copy ${s1(mem.ms)}`);
        duckRuns.push(mem);
      }
    }
    const pq = { ...pqRuns[0], ms: median(pqRuns.map((r) => r.ms)), cpuMs: median(pqRuns.map((r) => r.cpuMs)) };
    const pLoad = loadSpan(pLoads);
    out.push({
      metric: 'Parquet export ÷ CSV export, time',
      value: pq.ms / csv.ms,
      unit: '×',
      target: '≤ 1×',
      ok: pq.ms <= csv.ms,
      load: pLoad,
      note: `medians of ${n}: ${s1(pq.ms)}${span(pqRuns.map((r) => r.ms))} vs ${s1(csv.ms)}; CPU ${s1(pq.cpuMs)} vs ${s1(csv.cpuMs)}; ${mb(pq.bytes)} (Snappy, UTC times); peak RSS ${Math.max(...pqRuns.map((r) => r.peakRssMB)).toFixed(0)} MB`,
    });
    if (c) {
      const ratios = pqRuns.map((r, i) => r.ms / duckRuns[i].ms);
      const ratio = median(ratios);
      const fromCsv = await timed(
        `COPY (SELECT * FROM read_csv(${q(join(outDir, 'a.csv'))})) TO ${q(fresh(join(outDir, 'duck-csv.parquet')))} (FORMAT parquet, COMPRESSION snappy)`,
      );
      const bytes = (await stat(join(outDir, 'duck.parquet'))).size;
      const dMs = median(duckRuns.map((r) => r.ms));
      ctx.log(`duckdb from the CSV ${s1(fromCsv.ms)}`);
      out.push({
        metric: "Parquet export ÷ DuckDB's COPY … TO parquet of the same rows, time",
        value: ratio,
        unit: '×',
        target: '≤ 1.5×',
        ok: ratio <= 1.5,
        load: pLoad,
        note: `median of ${n} interleaved pairs${span(ratios, (x) => `${x.toFixed(2)}×`)} at load ${pLoads.map((l) => l.toFixed(1)).join(', ')}; DuckDB ${s1(dMs)} (CPU ${s1(median(duckRuns.map((r) => r.cpuMs)))}, 2 threads, Snappy, ${mb(bytes)}) from a table in memory; converting Loupe's CSV of the same rows: ${s1(fromCsv.ms)} (CPU ${s1(fromCsv.cpuMs)}) = Loupe ${(pq.ms / fromCsv.ms).toFixed(1)}×`,
      });
    } else
      out.push({
        metric: "Parquet export ÷ DuckDB's COPY … TO parquet of the same rows, time",
        value: null,
        unit: '×',
        target: '≤ 1.5×',
        note: 'missing' in duck ? duck.missing : 'DuckDB did not start',
      });
  } finally {
    c?.closeSync();
    inst?.closeSync();
  }
  return out;
}
