/**
 * A Loupe data folder holding an archive of `n` synthetic posts (bench/synthetic.ts, the library
 * bench's builder), for the UI and analysis benches. The folder is kept between runs (a marker file
 * names its size), so a re-run skips the build: LOUPE_BENCH_UI_DATA=<dir>, else
 * ~/.cache/loupe-bench/archives/ui-<n> (uiDataDir).
 *
 * Standalone: `npx tsx bench/ui-archive.ts <dir> <n>` builds (or reuses) one.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { archivePath } from '../src/core/paths';
import { loadArchive } from './archive-adapter';
import { peersDir } from './peers';
import { syntheticBatches } from './synthetic';

const BATCH = 1000;

const marker = (dir: string, n: number): string => join(dir, `.ui-bench-${n}.ok`);

/** Where the UI and analysis benches keep their archive of `n` posts: LOUPE_BENCH_UI_DATA, else ~/.cache/loupe-bench/archives/ui-<n>. */
export function uiDataDir(n: number): string {
  return process.env.LOUPE_BENCH_UI_DATA ?? join(dirname(peersDir()), 'archives', `ui-${n}`);
}

/** Builds (or, when its marker is there, reuses) `dir` with `n` posts; returns whether it was reused. */
export async function buildUiDataDir(dir: string, n: number, log: (m: string) => void): Promise<{ reused: boolean; ms: number }> {
  if (existsSync(marker(dir, n)) && existsSync(archivePath(dir))) return { reused: true, ms: 0 };
  if (existsSync(archivePath(dir)))
    throw new Error(`${dir} holds an archive of another size; remove it or choose another LOUPE_BENCH_UI_DATA`);
  await mkdir(dir, { recursive: true });
  const open = await loadArchive();
  if (!open) throw new Error('src/core/archive has no openArchive: nothing to serve');
  const t0 = performance.now();
  const a = await open(archivePath(dir));
  try {
    let done = 0;
    for (const batch of syntheticBatches(1, n, BATCH)) {
      const items = batch.map((b) => ({ platform: b.platform, kind: 'post', record: b.record as unknown as Record<string, unknown> }));
      await a.ingest(items, `ui-bench-${done}`);
      done += batch.length;
      if (done % 100_000 === 0) log(`archive: ${done.toLocaleString('en-US')} / ${n.toLocaleString('en-US')} posts`);
    }
  } finally {
    a.close();
  }
  writeFileSync(marker(dir, n), `${n}\n`);
  return { reused: false, ms: performance.now() - t0 };
}

if (process.argv[1]?.endsWith('ui-archive.ts')) {
  const [dir, n] = process.argv.slice(2);
  if (!dir || !Number(n)) {
    console.error('usage: tsx bench/ui-archive.ts <dir> <posts>');
    process.exit(2);
  }
  const r = await buildUiDataDir(dir, Number(n), (m) => console.error(m));
  console.error(r.reused ? 'reused' : `built in ${(r.ms / 1000).toFixed(0)} s`);
}
