/**
 * Where a CSV export's threads wait (issue 30): runs `loupe export --format csv --no-history` (or
 * `--format parquet` / `xlsx`) of the exports bench's archive with built command lines side by
 * side, interleaved (`a b b a a b …`),
 * each with LOUPE_EXPORT_TIMELINE set (src/core/export/timeline.ts), and prints per run: wall time,
 * CPU (user + system, every thread, GNU time), the load beside it, when each phase began (ms from
 * the process's start), each worker's start-up and busy time, the exporting thread's waits, and the
 * core time left idle (Σ over the run of the cores not busy: 2 cores and 1 busy thread for 100 ms
 * leave 100 ms idle), split into start-up (before the first batch reached a worker), the pass and
 * the tail (after the last batch left a worker). Every file is compared (`cmp`) with the first
 * command line's.
 *
 *   npx tsx bench/export-timeline.ts [--runs 3] [--data <data folder>] [--cores 2] [--format csv] <label>=<out/cli folder> …
 *   e.g. npx tsx bench/export-timeline.ts old=out/old-cli new=out/cli
 *
 * A build without the timeline's marks still gets its wall, CPU and `cmp` lines.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, homedir, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

interface Mark {
  ms: number;
  thread: number;
  /** the thread's CPU time so far (NaN where not known) */
  cpu: number;
  what: string;
}

function args(): { runs: number; data: string; cores: number; format: string; clis: { label: string; dir: string }[] } {
  const a = process.argv.slice(2);
  let runs = 3;
  let format = 'csv';
  let data = join(homedir(), '.cache', 'loupe-bench', 'archives', 'exports-200000');
  let cores = Math.min(2, availableParallelism());
  const clis: { label: string; dir: string }[] = [];
  for (let i = 0; i < a.length; i++) {
    if (a[i] === '--runs') runs = Number(a[++i]);
    else if (a[i] === '--data') data = a[++i];
    else if (a[i] === '--cores') cores = Number(a[++i]);
    else if (a[i] === '--format') format = a[++i];
    else {
      const [label, dir] = a[i].split('=');
      if (!dir || !existsSync(join(dir, 'bin.js'))) throw new Error(`${a[i]}: expected <label>=<folder holding a built bin.js>`);
      clis.push({ label, dir: resolve(dir) });
    }
  }
  if (clis.length === 0) throw new Error('name at least one built command line: <label>=<folder>');
  return { runs, data, cores, format, clis };
}

function run(
  dir: string,
  data: string,
  format: string,
  out: string,
  timeline: string,
): Promise<{ wall: number; cpu: number; rssMB: number }> {
  return new Promise((res, rej) => {
    const p = spawn(
      '/usr/bin/time',
      [
        '-f',
        '%e %U %S %M',
        process.execPath,
        join(dir, 'bin.js'),
        '--data-dir',
        data,
        'export',
        '--format',
        format,
        '--no-history',
        '-o',
        out,
      ],
      { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, LOUPE_EXPORT_TIMELINE: timeline } },
    );
    let err = '';
    p.stderr.on('data', (d: Buffer) => (err += String(d)));
    p.on('error', rej);
    p.on('close', (code) => {
      const m = /([\d.]+) ([\d.]+) ([\d.]+) (\d+)\s*$/.exec(err);
      if (code !== 0 || !m) return rej(new Error(`export failed (${code}): ${err.slice(-400)}`));
      res({ wall: Number(m[1]) * 1000, cpu: (Number(m[2]) + Number(m[3])) * 1000, rssMB: Number(m[4]) / 1024 });
    });
  });
}

function marks(file: string): Mark[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      const [ms, thread, cpu, ...what] = l.split(' ');
      return { ms: Number(ms), thread: Number(thread), cpu: Number(cpu), what: what.join(' ') };
    })
    .sort((x, y) => x.ms - y.ms);
}

type Span = [number, number];

/** What the timeline says, in ms from the process's start. */
function summary(ms: Mark[], cores: number): string[] {
  const origin = ms.find((m) => m.what === 'origin');
  const exit = ms.find((m) => m.what === 'exit');
  if (!origin || !exit) return ['  (no timeline: a build without its marks)'];
  const t = (m: Mark | undefined): string => (m ? (m.ms - origin.ms).toFixed(0) : '-');
  const main = origin.thread;
  const at = (what: string): Mark | undefined => ms.find((m) => m.thread === main && m.what === what);
  const c = (m: Mark | undefined): string => (m ? m.cpu.toFixed(0) : '-');
  const lines: string[] = [];
  const phases = ['workers spawned', 'exportFile', 'counted', 'file open', 'workers claimed', 'walk', 'head', 'sent 0', 'walked', 'got 0'];
  lines.push(`  main (ms from start / its CPU ms): ${phases.map((p) => `${p} ${t(at(p))}/${c(at(p))}`).join(', ')}`);
  // busy spans: the exporting thread from its start to its exit but for its waits on answers; a
  // worker from its start to ready, then each batch
  const busy: Span[][] = [];
  const waits: Span[] = [];
  let w0: number | null = null;
  for (const m of ms.filter((x) => x.thread === main)) {
    if (m.what.startsWith('wait ')) w0 = m.ms;
    else if (m.what.startsWith('got ') && w0 !== null) {
      waits.push([w0, m.ms]);
      w0 = null;
    }
  }
  const mainBusy: Span[] = [];
  let from = origin.ms;
  for (const [a, b] of waits) {
    mainBusy.push([from, a]);
    from = b;
  }
  mainBusy.push([from, exit.ms]);
  busy.push(mainBusy);
  const waited = waits.reduce((s, [a, b]) => s + b - a, 0);
  const workers = [...new Set(ms.filter((m) => m.thread !== main).map((m) => m.thread))];
  let firstIn = Infinity;
  let lastOut = 0;
  for (const w of workers) {
    const own = ms.filter((m) => m.thread === w);
    const start = at('workers spawned');
    const loaded = own.find((m) => m.what === 'worker loaded');
    const ready = own.find((m) => m.what === 'worker ready');
    const spans: Span[] = [];
    // its start-up: to its code loaded (started early, it then waits for the export to take it)
    const up = loaded ?? ready;
    if (start && up) spans.push([start.ms, up.ms]);
    let i0: number | null = null;
    let batches = 0;
    for (const m of own) {
      if (m.what.startsWith('in ')) i0 = m.ms;
      else if (m.what.startsWith('out ') && i0 !== null) {
        spans.push([i0, m.ms]);
        i0 = null;
        batches++;
      }
    }
    const ins = own.filter((m) => m.what.startsWith('in '));
    const outs = own.filter((m) => m.what.startsWith('out '));
    if (ins.length) firstIn = Math.min(firstIn, ins[0].ms);
    if (outs.length) lastOut = Math.max(lastOut, outs[outs.length - 1].ms);
    const work = spans.slice(1).reduce((s, [a, b]) => s + b - a, 0);
    const lastEnd = outs.length ? outs[outs.length - 1].ms : (ready?.ms ?? 0);
    const idle = ready ? lastEnd - ready.ms - work : 0;
    lines.push(
      `  worker ${w}: spawned ${t(start)}, loaded ${t(loaded)} (CPU ${c(loaded)}), ready ${t(ready)} (${start && ready ? (ready.ms - start.ms).toFixed(0) : '-'} ms, CPU ${c(ready)}), first batch ${t(ins[0])}–${t(outs[0])} (CPU ${outs[0] && ins[0] ? (outs[0].cpu - ins[0].cpu).toFixed(0) : '-'}), last out ${t(outs[outs.length - 1])}; ${batches} batches, busy ${work.toFixed(0)} ms, CPU ${c(own[own.length - 1])}, idle between ready and last out ${idle.toFixed(0)} ms`,
    );
    busy.push(spans);
  }
  // cores idle: sweep the busy spans
  const edges: [number, number][] = [];
  for (const spans of busy) for (const [a, b] of spans) if (b > a) edges.push([a, 1], [b, -1]);
  edges.sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  const idle = { start: 0, pass: 0, tail: 0 };
  let n = 0;
  let prev = origin.ms;
  const add = (a: number, b: number): void => {
    if (b <= a) return;
    const free = Math.max(0, cores - n);
    const cut = (lo: number, hi: number): number => Math.max(0, Math.min(b, hi) - Math.max(a, lo));
    idle.start += free * cut(-Infinity, firstIn);
    idle.pass += free * cut(firstIn, lastOut);
    idle.tail += free * cut(lastOut, Infinity);
  };
  for (const [x, d] of edges) {
    add(prev, Math.min(x, exit.ms));
    prev = Math.max(prev, x);
    n += d;
  }
  add(prev, exit.ms);
  lines.push(
    `  main waited on answers ${waited.toFixed(0)} ms; last answer ${t(ms.filter((m) => m.what.startsWith('got ')).pop())}, rows written ${t(at('rows written'))}, file closed ${t(at('file closed'))}, renamed ${t(at('file renamed'))}, exit ${t(exit)} (CPU ${c(exit)})`,
  );
  lines.push(
    `  core time idle (${cores} cores): start-up ${idle.start.toFixed(0)} ms (to the first batch at a worker, ${t({ ms: firstIn } as Mark)}), pass ${idle.pass.toFixed(0)} ms, tail ${idle.tail.toFixed(0)} ms (after the last batch left a worker, ${t({ ms: lastOut } as Mark)})`,
  );
  return lines;
}

async function main(): Promise<void> {
  const o = args();
  const tmp = mkdtempSync(join(tmpdir(), 'loupe-export-timeline-'));
  try {
    for (let r = 0; r < o.runs; r++) {
      const order = r % 2 === 0 ? o.clis : [...o.clis].reverse();
      for (const c of order) {
        const out = join(tmp, `${c.label}.${o.format}`);
        const tl = join(tmp, `${c.label}-${r}.timeline`);
        const load = loadavg()[0];
        rmSync(out, { force: true }); // a fresh file: replacing the last run's would time its unlink (bench/export-peers.ts)
        const x = await run(c.dir, o.data, o.format, out, tl);
        console.log(
          `${c.label} run ${r + 1}: wall ${x.wall.toFixed(0)} ms, CPU ${x.cpu.toFixed(0)} ms, peak ${x.rssMB.toFixed(0)} MB, load ${load.toFixed(1)}`,
        );
        for (const l of summary(marks(tl), o.cores)) console.log(l);
        if (c !== o.clis[0] && existsSync(join(tmp, `${o.clis[0].label}.${o.format}`))) {
          const cmp = spawnSync('cmp', [join(tmp, `${o.clis[0].label}.${o.format}`), out], { encoding: 'utf8' });
          console.log(`  cmp with ${o.clis[0].label}: ${cmp.status === 0 ? 'identical' : `DIFFERENT ${cmp.stdout}${cmp.stderr}`}`);
        }
      }
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

await main();
