/**
 * Issue 29 datasets (docs/datasets.md), `npm run bench -- --only datasets [--quick]`:
 *
 *  1. a bundle (folder) of 200k items beside the Parquet export of the same rows (the same
 *     companions: the metric history), in this process one after the other: bundle ≤ 1.5 × Parquet;
 *  2. verify of that bundle with its archive (every file, row and item against the archive) < 30 s;
 *  3. import of that bundle into an archive of 1M items (200k with --quick), built here, beside that
 *     archive's own ingest rate: import ≥ 0.5 × ingest;
 *  4. ingest with metric history: the posts read again with grown counts (every item gets a reading)
 *     against the raw prepared INSERT of the same rows into the archive's items table — the library
 *     bench's ratio (bench/library.bench.ts "rawSchema", docs/archive.md "Performance"): ≥ 0.7 ×.
 *
 * The 200k items are the exports bench's archive (bench/exports.bench.ts), kept between runs in
 * ~/.cache/loupe-bench/archives/exports-200000 (built first when missing). LOUPE_BENCH_ROWS sets the
 * size of the import target and of the history ingest; LOUPE_BENCH_PARTS (`bundle`, `import`,
 * `history`, comma-separated; all by default) runs some of the parts (`import` writes the bundle
 * first: parts 1–2 run with it), e.g. the 1M import alone without the 1M history ingest.
 */
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { openArchive } from '../src/core/archive/index';
import { exportBundle } from '../src/core/datasets/bundle';
import { importBundle, verifyBundle } from '../src/core/datasets/bundle-check';
import { companionsOf, exportAny } from '../src/core/export';
import { archivePath } from '../src/core/paths';
import { loadArchive } from './archive-adapter';
import { buildDataDir } from './exports.bench';
import { rawSchema } from './library.bench';
import { peersDir } from './peers';
import { syntheticPost } from './synthetic';
import { atLeast, below, type BenchContext, type Result } from './types';

export const name = 'datasets';

const BUNDLE_ITEMS = 200_000;
const BATCH = 1000;

const secs = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
const k = (n: number): string => (n >= 1_000_000 && n % 1_000_000 === 0 ? `${n / 1_000_000}M` : `${Math.round(n / 1000)}k`);

async function timed<T>(f: () => T | Promise<T>): Promise<[number, T]> {
  const t0 = performance.now();
  const v = await f();
  return [performance.now() - t0, v];
}

/** Posts numbered from `from` (ids the exports archive does not hold), `grow`× their counts. */
function batchOf(from: number, count: number, grow = 1) {
  const out = [];
  for (let i = from; i < from + count; i++) {
    const p = syntheticPost(5, i);
    const rec = p.record as unknown as Record<string, unknown> & { id: string; engagement: Record<string, number | null> };
    if (grow !== 1)
      for (const f of ['views', 'likes', 'comments', 'shares', 'saves'])
        if (typeof rec.engagement[f] === 'number') rec.engagement[f] = Math.ceil((rec.engagement[f] as number) * grow) + 1;
    out.push({ platform: p.platform, kind: 'post', record: rec });
  }
  return out;
}

async function bundleParts(ctx: BenchContext, work: string): Promise<{ results: Result[]; bundle: string }> {
  const dir = join(dirname(peersDir()), 'archives', `exports-${BUNDLE_ITEMS}`);
  ctx.log(`the exports bench's archive of ${k(BUNDLE_ITEMS)} posts in ${dir}`);
  await buildDataDir(dir, BUNDLE_ITEMS, ctx.log);
  const a = openArchive(archivePath(dir));
  const results: Result[] = [];
  const bundle = join(work, 'bundle');
  try {
    const query = {};
    const [pMs] = await timed(() =>
      exportAny(a.iterateExportRows(query), {
        format: 'parquet',
        out: join(work, 'items.parquet'),
        companions: companionsOf(a.datasets, { query }),
      }),
    );
    const pBytes = (await stat(join(work, 'items.parquet'))).size;
    ctx.log(`Parquet export: ${secs(pMs)}`);
    const [bMs, m] = await timed(() => exportBundle(a, { out: bundle, query, version: 'bench', variants: [], now: Date.now() }));
    ctx.log(`bundle: ${secs(bMs)}`);
    const ratio = bMs / pMs;
    results.push(
      {
        metric: `Parquet export of ${k(BUNDLE_ITEMS)} posts (items + metric history)`,
        value: pMs / 1000,
        unit: 's',
        note: `${(pBytes / 1e6).toFixed(0)} MB, in this process`,
      },
      {
        metric: `bundle of the same ${k(BUNDLE_ITEMS)} posts (CSV, Parquet, JSONL, history, answers, manifest)`,
        value: bMs / 1000,
        unit: 's',
        note: `${m.items.length.toLocaleString('en-US')} items, ${m.calls.length} calls, ${m.files.length} files, right after the Parquet export`,
      },
      {
        metric: 'bundle / Parquet export of the same rows',
        value: ratio,
        unit: '×',
        target: '≤ 1.5×',
        ok: below(ratio, 1.5 + 1e-9),
      },
    );
    const [vMs, v] = await timed(() => verifyBundle(bundle, { archive: a }));
    results.push({
      metric: `verify that bundle with its archive (${k(BUNDLE_ITEMS)} items)`,
      value: vMs / 1000,
      unit: 's',
      target: '< 30 s',
      ok: v.ok ? below(vMs, 30_000) : false,
      note: v.ok ? 'verified: files, rows, answers, every item in the archive' : `did not verify: ${v.problems.slice(0, 2).join(' ')}`,
    });
  } finally {
    a.close();
  }
  return { results, bundle };
}

async function importPart(ctx: BenchContext, work: string, bundle: string, n: number): Promise<Result[]> {
  const a = openArchive(join(work, 'target.db'));
  try {
    let ms = 0;
    for (let s = 0; s < n; s += BATCH) {
      const items = batchOf(50_000_000 + s, Math.min(BATCH, n - s));
      ms += (
        await timed(() =>
          a.ingestItems(items, { callId: `target-${s}`, source: 'bench', endpoint: 'bench/ingest', platform: items[0].platform }),
        )
      )[0];
      if ((s + BATCH) % 200_000 === 0) ctx.log(`import target: ${(s + BATCH).toLocaleString('en-US')} / ${n.toLocaleString('en-US')}`);
    }
    const ingestRate = n / (ms / 1000);
    const [iMs, r] = await timed(() => importBundle(bundle, a, Date.now()));
    const added = r.items.after - r.items.before;
    const importRate = added / (iMs / 1000);
    return [
      {
        metric: `ingest of the ${k(n)}-item archive the bundle goes into`,
        value: ingestRate,
        unit: 'posts/s',
        note: `${secs(ms)}, batches of ${BATCH}`,
      },
      {
        metric: `import of the ${k(BUNDLE_ITEMS)}-item bundle into it`,
        value: importRate,
        unit: 'posts/s',
        note: `${secs(iMs)} (verify first, then items, history, annotations); ${added.toLocaleString('en-US')} items added`,
      },
      {
        metric: 'import / that archive’s own ingest rate',
        value: importRate / ingestRate,
        unit: '×',
        target: '≥ 0.5×',
        ok: atLeast(importRate / ingestRate, 0.5),
      },
    ];
  } finally {
    a.close();
  }
}

/** Ingest with metric history against the library bench's raw prepared INSERT into the same items table. */
async function historyPart(ctx: BenchContext, work: string, n: number): Promise<Result[]> {
  const open = await loadArchive();
  if (!open) return [{ metric: 'ingest with metric history', value: null, unit: '×', note: 'archive not available' }];
  const raw = await rawSchema(join(work, 'raw-schema.db'), open);
  const a = openArchive(join(work, 'history.db'));
  try {
    let rawMs = 0;
    let firstMs = 0;
    let againMs = 0;
    for (let s = 0; s < n; s += BATCH) {
      const items = batchOf(70_000_000 + s, Math.min(BATCH, n - s));
      rawMs += (await timed(() => raw.insert(items)))[0];
      firstMs += (
        await timed(() =>
          a.ingestItems(items, { callId: `h1-${s}`, source: 'bench', endpoint: 'bench/ingest', platform: items[0].platform }),
        )
      )[0];
    }
    ctx.log('history: first readings in; reading every post again with grown counts');
    for (let s = 0; s < n; s += BATCH) {
      const items = batchOf(70_000_000 + s, Math.min(BATCH, n - s), 1.25);
      againMs += (
        await timed(() =>
          a.ingestItems(items, { callId: `h2-${s}`, source: 'bench', endpoint: 'bench/ingest', platform: items[0].platform }),
        )
      )[0];
    }
    const readings = a.datasets.history({
      platform: batchOf(70_000_000, 1)[0].platform,
      kind: 'post',
      id: batchOf(70_000_000, 1)[0].record.id,
    }).length;
    const rawRate = n / (rawMs / 1000);
    const firstRate = n / (firstMs / 1000);
    const againRate = n / (againMs / 1000);
    return [
      {
        metric: `ingest ${k(n)} posts, raw prepared INSERT into the archive's items table (library bench's baseline)`,
        value: rawRate,
        unit: 'posts/s',
        note: secs(rawMs),
      },
      {
        metric: `ingest ${k(n)} posts, archive, first reading`,
        value: firstRate,
        unit: 'posts/s',
        note: `${secs(firstMs)}; ratio ${(firstRate / rawRate).toFixed(2)}×`,
      },
      {
        metric: `ingest the same ${k(n)} posts again, grown counts: a metric-history reading each`,
        value: againRate,
        unit: 'posts/s',
        note: `${secs(againMs)}; ${readings} readings of the first post`,
      },
      {
        metric: 'ingest with metric history / raw INSERT into the same table',
        value: againRate / rawRate,
        unit: '×',
        target: '≥ 0.7×',
        ok: atLeast(againRate / rawRate, 0.7),
        note: "the library bench's ratio, on re-read posts (every one writes a reading)",
      },
    ];
  } finally {
    raw.close();
    a.close();
  }
}

export async function run(ctx: BenchContext): Promise<Result[]> {
  const env = Number(process.env.LOUPE_BENCH_ROWS);
  const n = Number.isInteger(env) && env > 0 ? env : ctx.quick ? 200_000 : 1_000_000;
  const hn = Number.isInteger(env) && env > 0 ? env : ctx.quick ? 50_000 : 1_000_000;
  const parts = new Set((process.env.LOUPE_BENCH_PARTS ?? 'bundle,import,history').split(',').map((p) => p.trim()));
  const work = await mkdtemp(join(tmpdir(), 'loupe-bench-datasets-'));
  try {
    const results: Result[] = [];
    if (parts.has('bundle') || parts.has('import')) {
      const b = await bundleParts(ctx, work);
      results.push(...b.results);
      if (parts.has('import')) results.push(...(await importPart(ctx, work, b.bundle, n)));
    }
    if (parts.has('history')) results.push(...(await historyPart(ctx, work, hn)));
    return results;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
