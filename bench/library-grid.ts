/**
 * Issue 30 "No slow corners": the Library's first page (lean rows, as the Library view asks for
 * them) for every sortable column of the results table (ResultsTable SERVER_SORT) × both
 * directions × every network (and all of them) × without / with a text search, each combination
 * once, uncached (its first run). Target: every one < 150 ms at 1M.
 *
 * A lean page carries its total only when it is already counted: the view shows its rows, then
 * asks `library.count` ("counting…" until it answers). The grid times that count too, once per
 * filter set (network × text: the sort does not change it), right after the set's first page: the
 * time from the rows to the exact "N matching".
 *
 * Standalone on a kept archive: `npx tsx bench/library-grid.ts <archive file>`.
 */
import type { LibraryQuery } from '../src/shared/query';
import { BENCH_PLATFORMS, VOCAB } from './synthetic';

export const GRID_SORTS = ['published_at', 'views', 'likes', 'comments', 'shares', 'relevance', 'author', 'first_seen_at'] as const;
/** a common word of the synthetic texts and one in about 2 % of them */
export const GRID_TEXTS = [undefined, VOCAB[0], VOCAB[300]] as const;

export interface GridResult {
  combos: number;
  max: number;
  p50: number;
  slowest: Array<{ ms: number; q: string }>;
  over: number;
  /** the exact count of each filter set, asked after its first page: slowest first */
  counts: Array<{ ms: number; q: string }>;
}

export function sortGrid(a: { listQuery(q: LibraryQuery): unknown; count(q: LibraryQuery): unknown }, limitMs = 150): GridResult {
  const times: Array<{ ms: number; q: string }> = [];
  const counts: Array<{ ms: number; q: string }> = [];
  for (const text of GRID_TEXTS)
    for (const platform of [undefined, ...BENCH_PLATFORMS])
      for (const field of GRID_SORTS)
        for (const dir of ['desc', 'asc'] as const) {
          const q: LibraryQuery = {
            sort: { field, dir },
            limit: 100,
            ...(platform ? { platforms: [platform] } : {}),
            ...(text ? { text } : {}),
          };
          const t0 = performance.now();
          a.listQuery(q);
          times.push({ ms: performance.now() - t0, q: `${platform ?? 'all'} ${field} ${dir}${text ? ` "${text}"` : ''}` });
          if (times.length % (GRID_SORTS.length * 2) === 1) {
            const t1 = performance.now();
            a.count(q);
            counts.push({ ms: performance.now() - t1, q: `${platform ?? 'all'}${text ? ` "${text}"` : ''}` });
          }
        }
  const sorted = [...times].sort((x, y) => y.ms - x.ms);
  return {
    combos: times.length,
    max: sorted[0].ms,
    p50: sorted[Math.floor(sorted.length / 2)].ms,
    slowest: sorted.slice(0, 20),
    over: times.filter((t) => t.ms >= limitMs).length,
    counts: counts.sort((x, y) => y.ms - x.ms),
  };
}

if (process.argv[1]?.endsWith('library-grid.ts')) {
  const { openArchive } = await import('../src/core/archive');
  const file = process.argv[2];
  if (!file) {
    console.error('usage: tsx bench/library-grid.ts <archive file>');
    process.exit(2);
  }
  const a = openArchive(file);
  const r = sortGrid(a);
  console.log(`${r.combos} combinations: max ${r.max.toFixed(0)} ms, p50 ${r.p50.toFixed(1)} ms, ${r.over} at or over 150 ms`);
  for (const s of r.slowest) console.log(`  ${s.ms.toFixed(0).padStart(6)} ms  ${s.q}`);
  console.log(`exact counts after the first page (${r.counts.length} filter sets), slowest:`);
  for (const s of r.counts.slice(0, 8)) console.log(`  ${s.ms.toFixed(0).padStart(6)} ms  ${s.q}`);
  a.close();
}
