/**
 * Analysis benchmark (docs/analysis.md "Performance"): on the library bench's synthetic archive
 * (bench/synthetic.ts, built by bench/ui-archive.ts; `LOUPE_BENCH_UI_DATA=<dir>` keeps it between
 * runs), 1M posts (50k with --quick):
 *  1. the analysis index: first build — as the app builds it (its worker thread, the whole build up to
 *     15 minutes, on a copy: bench/index-build.ts) and on this thread in chunks of 20,000 — and the catch-up after a
 *     1,000-post ingest beside that ingest;
 *  2. every library chart, uncached (first run of each after the index is current), without and
 *     with ordinary filters (one platform, a date, a text search);
 *  3. top-N hashtags / words / bigrams over the whole archive and over a ~10k-item query (p95 of 5).
 *
 * `LOUPE_BENCH_ANALYSIS_ONLY=charts` runs only part 2 (after the index build, without the upkeep
 * ingest and the top-N), to iterate on the charts: e.g.
 * `LOUPE_BENCH_ANALYSIS_ONLY=charts LOUPE_BENCH_UI_DATA=/tmp/loupe-charts-1m npm run bench -- --only analysis`.
 * `LOUPE_BENCH_ANALYSIS_ONLY=topn` runs only part 3 (after the index build, without the upkeep
 * ingest and the charts), to iterate on the top-N tables.
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openArchive } from '../src/core/archive';
import { AnalysisIndex } from '../src/core/analysis/analysis-index';
import { engagementDistribution, labelShareOverTime, volumeBy } from '../src/core/analysis/charts';
import { frequencyTable } from '../src/core/analysis/frequency';
import { archivePath } from '../src/core/paths';
import type { LibraryQuery } from '../src/shared/query';
import { syntheticBatches } from './synthetic';
import { buildUiDataDir, uiDataDir } from './ui-archive';
import { measureIndexBuild } from './index-build';
import { duckdb, sqlite3Program } from './peers';
import { below, loadNow, percentile, type BenchContext, type Result } from './types';
import { testDb } from '../src/core/archive/testing';

export const name = 'analysis';

function time<T>(f: () => T): [number, T] {
  const t0 = performance.now();
  const v = f();
  return [performance.now() - t0, v];
}

/** The index as the app builds it: its worker thread (slices of ~500 ms, nice 0 here) on a copy of the archive, the whole build (at most 15 minutes). */
async function workerBuild(file: string, label: string, ctx: BenchContext): Promise<Result> {
  ctx.log('analysis index in its worker thread, on a copy');
  const r = await measureIndexBuild(file, 900);
  const rate = r.wallMs > 0 ? (r.posts / r.wallMs) * 1000 : null;
  return {
    metric: `analysis index build in its worker thread (as the app builds it), ${label}`,
    value: rate,
    unit: 'posts/s',
    target: '≥ 5,000 posts/s',
    ok: rate === null ? undefined : rate >= 5000,
    load: r.load,
    note: `${r.posts.toLocaleString('en-US')} posts in ${(r.wallMs / 1000).toFixed(1)} s${r.done ? ' (the whole build)' : ' (the first 15 minutes)'}, ${((r.posts / r.cpuMs) * 1000).toFixed(0)} posts per CPU-second, peak memory ${r.peakMb.toFixed(0)} MB`,
  };
}

export async function run(ctx: BenchContext): Promise<Result[]> {
  const env = Number(process.env.LOUPE_BENCH_ROWS);
  const n = Number.isInteger(env) && env > 0 ? env : ctx.quick ? 200_000 : 1_000_000;
  const label = n >= 1_000_000 ? `${n / 1_000_000}M` : `${n / 1000}k`;
  const keep = uiDataDir(n);
  const dir = keep;
  const out: Result[] = [];
  try {
    const built = await buildUiDataDir(dir, n, ctx.log);
    ctx.log(built.reused ? `reusing the ${label} archive in ${dir}` : `built the ${label} archive in ${(built.ms / 1000).toFixed(0)} s`);
    const archive = openArchive(archivePath(dir));
    try {
      // analysis before the index: top-N counted from the items (what every analysis answers until
      // the index is built), beside DuckDB's SQL over the same texts (issue 30)
      if (process.env.LOUPE_BENCH_ANALYSIS_ONLY === undefined) out.push(...(await beforeIndex(archive, archivePath(dir), label, ctx)));
      const index = new AnalysisIndex(archive);
      const backlog = index.backlog();
      if (backlog > 0) out.push(await workerBuild(archivePath(dir), label, ctx));
      const buildLoad = await loadNow();
      const [buildMs] = time(() => index.catchUp(Infinity));
      const rate = backlog > 0 ? backlog / (buildMs / 1000) : null;
      out.push({
        metric: `analysis index build, ${backlog.toLocaleString('en-US')} posts waiting`,
        value: rate,
        unit: 'posts/s',
        target: '≥ 5,000 posts/s',
        ok: rate === null ? undefined : rate >= 5000,
        load: buildLoad,
        note:
          backlog > 0
            ? `${(buildMs / 1000).toFixed(1)} s on this thread in chunks of 20,000 (the app builds in its worker thread in slices of ~500 ms: the row above)`
            : 'already current (reused archive: remove it to measure the build)',
      });

      const chartsOnly = process.env.LOUPE_BENCH_ANALYSIS_ONLY === 'charts';
      const topnOnly = process.env.LOUPE_BENCH_ANALYSIS_ONLY === 'topn';
      // the index's upkeep beside the ingest that made it necessary: 5 batches of 1,000 new posts
      let ingestMs = 0;
      let catchMs = 0;
      let k = 0;
      // ids new to this archive on every run (a kept archive would otherwise merge them: no upkeep to measure)
      const base = 9_200_000_000_000_000_000n + BigInt(Date.now()) * 10_000n;
      for (const batch of chartsOnly || topnOnly ? [] : syntheticBatches(99, 5000, 1000)) {
        const items = batch.map((b) => ({
          platform: b.platform,
          kind: 'post',
          record: { ...(b.record as unknown as Record<string, unknown>), id: `${base + BigInt(k++)}` },
        }));
        ingestMs += time(() => archive.ingestItems(items, { callId: `bench-an-${k}`, source: 'bench' }))[0];
        catchMs += time(() => index.catchUp(Infinity))[0];
      }
      if (!chartsOnly && !topnOnly)
        out.push({
          metric: 'index upkeep ÷ ingest time of the same new posts',
          value: catchMs / ingestMs,
          unit: '×',
          note: `${catchMs.toFixed(0)} ms catch-up vs ${ingestMs.toFixed(0)} ms ingest for 5 × 1,000 posts; the ingest itself is unchanged (library bench)`,
        });

      const since: LibraryQuery = { since: '2024-01-01' };
      const charts: Array<[string, () => unknown]> = [
        ['volume by platform, weeks, all', () => volumeBy(archive, { by: 'platform', bucket: 'week' }, index)],
        [
          'volume by intent.label, weeks, since 2024',
          () => volumeBy(archive, { by: 'label', family: 'intent', field: 'label', bucket: 'week', query: since }, index),
        ],
        [
          'sponsored.p share over time, months, since 2024',
          () => labelShareOverTime(archive, { family: 'sponsored', field: 'p', bucket: 'month', query: since }, index),
        ],
        ['sponsored.p distribution since 2024 (Library chart)', () => archive.labelDistribution(since, 'sponsored', 'p')],
        ['intent.label distribution (Library chart)', () => archive.labelDistribution({}, 'intent', 'label')],
        ['volume by week, all (Library chart)', () => archive.volumeOverTime({}, 'week')],
        ['volume by day, one platform (Library chart)', () => archive.volumeOverTime({ platforms: ['photo_net'] }, 'day')],
        ['likes distribution (decades), all', () => engagementDistribution(archive, { field: 'likes' })],
      ];
      const chartMs: string[] = [];
      let worst = 0;
      for (const [what, f] of topnOnly ? [] : charts) {
        const [ms] = time(f);
        chartMs.push(`${what} ${ms.toFixed(0)}`);
        worst = Math.max(worst, ms);
      }
      if (!topnOnly)
        out.push({
          metric: `library charts, uncached, max (${label})`,
          value: worst,
          unit: 'ms',
          target: '< 200 ms',
          ok: below(worst, 200),
          note: `ms: ${chartMs.join('; ')}`,
        });

      // the same charts with ordinary filters: one platform (~20 % of the items), a date, a text search
      const one: LibraryQuery = { platforms: ['photo_net'] };
      const txt: LibraryQuery = { text: 'kalo' };
      const filtered: Array<[string, () => unknown]> = [
        ['views distribution, one platform', () => engagementDistribution(archive, { field: 'views', query: one })],
        ['likes distribution, since 2024-06', () => engagementDistribution(archive, { field: 'likes', query: { since: '2024-06-01' } })],
        ['volume by platform, weeks, text', () => volumeBy(archive, { by: 'platform', bucket: 'week', query: txt }, index)],
        [
          'intent.label by day, text',
          () => volumeBy(archive, { by: 'label', family: 'intent', field: 'label', bucket: 'day', query: txt }, index),
        ],
        [
          'sentiment share, weeks, one platform',
          () => labelShareOverTime(archive, { family: 'sentiment', field: 'label', bucket: 'week', query: one }, index),
        ],
        ['sentiment distribution, one platform (Library chart)', () => archive.labelDistribution(one, 'sentiment', 'label')],
        ['volume by week, text (Library chart)', () => archive.volumeOverTime(txt, 'week')],
        ['top authors, one platform (Library chart)', () => archive.topAuthors(one, 10)],
        ['volume by tag, weeks, all', () => volumeBy(archive, { by: 'tag', bucket: 'week' }, index)],
      ];
      const filteredMs: string[] = [];
      let worstFiltered = 0;
      for (const [what, f] of topnOnly ? [] : filtered) {
        const [ms] = time(f);
        filteredMs.push(`${what} ${ms.toFixed(0)}`);
        worstFiltered = Math.max(worstFiltered, ms);
      }
      if (!topnOnly)
        out.push({
          metric: `library charts with filters, uncached, max (${label})`,
          value: worstFiltered,
          unit: 'ms',
          target: '< 200 ms',
          ok: below(worstFiltered, 200),
          note: `ms: ${filteredMs.join('; ')}`,
        });
      if (chartsOnly) return out;

      // a ~10k-item query: one platform over a date range holding about 10,000 posts
      const lo = (testDb(archive).prepare("SELECT min(published_at) AS t FROM items WHERE platform = 'photo_net'").get() as { t: number })
        .t;
      const perDay = archive.count({ platforms: ['photo_net'] }) / (2 * 365);
      const days = Math.max(1, Math.round(10_000 / perDay));
      const q10k: LibraryQuery = {
        platforms: ['photo_net'],
        since: new Date(lo).toISOString().slice(0, 10),
        until: new Date(lo + days * 86_400_000).toISOString().slice(0, 10),
      };
      const items10k = archive.count(q10k);
      for (const [scope, q, target] of [
        ['whole archive', {}, 1000],
        [`${items10k.toLocaleString('en-US')}-item query`, q10k, 100],
      ] as const) {
        for (const field of ['hashtags', 'words', 'bigrams'] as const) {
          const ms: number[] = [];
          let basis = '';
          for (let r = 0; r < 5; r++) {
            const [t, table] = time(() => frequencyTable(archive, { query: q, field, limit: 50 }, index));
            ms.push(t);
            basis = table.basis;
          }
          const p95 = percentile(ms, 95);
          out.push({
            metric: `top-50 ${field}, ${scope}, p95`,
            value: p95,
            unit: 'ms',
            target: `< ${target === 1000 ? '1 s' : '100 ms'}`,
            ok: below(p95, target),
            note: `from ${basis === 'totals' ? 'the index totals' : basis === 'index' ? 'the term ids the index keeps per item' : 'the items (tokenized)'}`,
          });
        }
      }
      try {
        const [triMs] = time(() => frequencyTable(archive, { field: 'trigrams', limit: 50 }, index));
        out.push({
          metric: 'top-50 trigrams, whole archive (counted from the items)',
          value: triMs,
          unit: 'ms',
          note: 'no archive-wide totals for trigrams (see docs/analysis.md)',
        });
      } catch (e) {
        // past MAX_DISTINCT_TERMS the count refuses with its way out (a 1M archive: tens of millions of trigrams)
        out.push({
          metric: 'top-50 trigrams, whole archive (counted from the items)',
          value: null,
          unit: 'ms',
          note: `refused: ${(e as Error).message}`,
        });
      }
    } finally {
      archive.close();
    }
    return out;
  } finally {
    if (!keep) await rm(dir, { recursive: true, force: true });
  }
}

/** Top-50 hashtags and words of the whole archive counted from the items, and DuckDB's over the same texts (read from the archive by the sqlite3 program, not timed). */
async function beforeIndex(archive: ReturnType<typeof openArchive>, db: string, label: string, ctx: BenchContext): Promise<Result[]> {
  const out: Result[] = [];
  const loupe: Record<string, number> = {};
  const load = await loadNow();
  for (const field of ['hashtags', 'words'] as const)
    loupe[field] = time(() => frequencyTable(archive, { query: {}, field, limit: 50 }))[0];
  const sq = sqlite3Program(ctx.log);
  const duck = await duckdb(ctx.log);
  const missing = 'missing' in sq ? sq.missing : 'missing' in duck ? duck.missing : null;
  if (missing !== null || !('api' in duck) || !('path' in sq)) {
    for (const field of ['hashtags', 'words'])
      out.push({
        metric: `top-50 ${field} before the index ÷ DuckDB over the same texts (${label})`,
        value: null,
        unit: '×',
        target: '≤ 1×',
        load,
        note: `Loupe ${loupe[field].toFixed(0)} ms; ${missing ?? 'a peer is missing'}`,
      });
    return out;
  }
  const tmp = await mkdtemp(join(tmpdir(), 'loupe-analysis-duck-'));
  try {
    const csv = join(tmp, 'texts.csv');
    const r = spawnSync(sq.path, ['-csv', '-header', db, 'SELECT rid, text FROM items'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      maxBuffer: 2 ** 31,
    });
    if (r.status !== 0) throw new Error(`sqlite3 failed: ${String(r.stderr).slice(0, 300)}`);
    const { writeFileSync } = await import('node:fs');
    writeFileSync(csv, r.stdout);
    const inst = await duck.api.DuckDBInstance.create(':memory:', { threads: '2' });
    const c = await inst.connect();
    try {
      await c.run(`CREATE TABLE t AS SELECT * FROM read_csv('${csv.replace(/'/g, "''")}')`);
      const sql: Record<string, string> = {
        hashtags: `SELECT tag, count(DISTINCT rid) AS n FROM (SELECT rid, unnest(regexp_extract_all(lower(text), '#[[:alnum:]_]+')) AS tag FROM t) GROUP BY tag ORDER BY n DESC LIMIT 50`,
        words: `SELECT w, count(DISTINCT rid) AS n FROM (SELECT rid, unnest(regexp_split_to_array(lower(text), '[^[:alnum:]_#@]+')) AS w FROM t) WHERE w <> '' AND length(w) > 1 GROUP BY w ORDER BY n DESC LIMIT 50`,
      };
      for (const field of ['hashtags', 'words'] as const) {
        const t0 = performance.now();
        await c.runAndReadAll(sql[field]);
        const ms = performance.now() - t0;
        out.push({
          metric: `top-50 ${field} before the index ÷ DuckDB over the same texts (${label})`,
          value: loupe[field] / ms,
          unit: '×',
          target: '≤ 1×',
          ok: loupe[field] <= ms,
          load,
          note: `Loupe ${(loupe[field] / 1000).toFixed(2)} s counted from the items (Intl.Segmenter words, stopwords); DuckDB ${(ms / 1000).toFixed(2)} s (2 threads, a regular expression, no stopwords) over the texts in memory`,
        });
      }
    } finally {
      c.closeSync();
      inst.closeSync();
    }
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
  return out;
}
