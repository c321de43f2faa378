/**
 * Issue 30 "Analysis from the first minute": the analysis index built as the app builds it — in its
 * worker thread (src/core/analysis/index-worker.ts), slice by slice; `loupe archive index` builds on
 * its own thread in ~1 s slices — on a copy of an archive without an index, for `seconds` (or until
 * done): posts taken in per second of wall time, and the process's CPU (every thread's) beside it.
 *
 * `npx tsx bench/index-build.ts <archive without an index> [seconds=60] [nice=0] [slice ms,…] [rounds]`
 */
import { rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { openArchive, snapshotArchive } from '../src/core/archive';
import { AnalysisIndex } from '../src/core/analysis/analysis-index';
import { startIndexBuilder } from '../src/core/analysis/index-builder';

export interface IndexBuildRun {
  posts: number;
  wallMs: number;
  cpuMs: number;
  done: boolean;
  load: number;
  /** the process's peak resident memory (every thread's), MB */
  peakMb: number;
}

/** Builds the index of a copy of `file` (its WAL included) in the worker for up to `seconds`; the copy is removed after. */
export async function measureIndexBuild(file: string, seconds: number, nice = 0, sliceMs?: number): Promise<IndexBuildRun> {
  const work = join(tmpdir(), `loupe-index-build-${process.pid}.db`);
  await snapshotArchive(file, work, { force: true });
  try {
    const a = openArchive(work);
    const before = new AnalysisIndex(a).backlog();
    a.close();
    const load = loadavg()[0];
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    let backlog = before;
    let wall = 0;
    const b = startIndexBuilder(
      { file: work, nice, sliceMs },
      {
        keepAlive: true,
        onMessage: (m) => {
          if (m.type === 'slice') {
            backlog = m.backlog;
            wall = performance.now() - t0;
          }
        },
      },
    );
    if (!b) throw new Error('no index worker could start');
    const timer = setTimeout(() => void b.stop(), seconds * 1000);
    const done = await b.done;
    clearTimeout(timer);
    if (done) {
      backlog = 0;
      wall = performance.now() - t0;
    }
    const cpu = process.cpuUsage(c0);
    const peakMb = process.resourceUsage().maxRSS / 1024;
    return { posts: before - backlog, wallMs: wall, cpuMs: (cpu.user + cpu.system) / 1000, done, load, peakMb };
  } finally {
    for (const s of ['', '-wal', '-shm']) rmSync(work + s, { force: true });
  }
}

if (process.argv[1]?.endsWith('index-build.ts')) {
  const [file, secs = '60', nice = '0', slices = '', pairs = '1'] = process.argv.slice(2);
  if (!file) {
    console.error('usage: tsx bench/index-build.ts <archive without an index> [seconds] [nice] [slice ms,slice ms…] [rounds]');
    process.exit(2);
  }
  // several slice targets: run in turn, round after round (the load hits each alike)
  const targets = slices === '' ? [undefined] : slices.split(',').map(Number);
  for (let k = 0; k < Number(pairs); k++)
    for (const t of targets) {
      const r = await measureIndexBuild(file, Number(secs), Number(nice), t);
      console.log(
        `${t === undefined ? '' : `slice ${t} ms: `}${r.posts} posts in ${(r.wallMs / 1000).toFixed(1)} s: ${((r.posts / r.wallMs) * 1000).toFixed(0)} posts/s wall, ` +
          `${((r.posts / r.cpuMs) * 1000).toFixed(0)} per CPU-second (CPU ${(r.cpuMs / 1000).toFixed(1)} s)${r.done ? ', done' : ''}, peak memory ${r.peakMb.toFixed(0)} MB; load ${r.load.toFixed(1)} → ${loadavg()[0].toFixed(1)}`,
      );
    }
}
