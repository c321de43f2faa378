/**
 * Comparisons (docs/analysis.md "Comparisons"): two to eight library queries side by side —
 * volume over time, engagement, engagement rate by views and by followers, share of voice,
 * label shares and top posts — and per-account overperformance. The rows come from the archive
 * (compare-rows.ts: `Archive.seriesTotals`, `seriesDays`, `topPosts`, `authoredPosts`, `accountHistory`).
 */
import type { Archive } from '../archive';
import { parseQuery } from '../archive';
import {
  compareInputSchema,
  overperformanceInputSchema,
  type CompareInput,
  type CompareSeries,
  type Comparison,
  type LabelShareRow,
  type Overperformance,
  type OverperformanceInput,
  type OverperformanceRow,
} from '../../shared/analysis';
import type { LibraryQuery } from '../../shared/query';
import { bucketOf, chartableDay } from './buckets';
import { baseQuery } from './frequency';
import { brief, byAccount, overperformanceAtSameAge } from './same-age';

/** Label shares compared: text fields by value, and sponsored as p ≥ 0.5 among items judged for it. */
const LABEL_FIELDS: Array<[string, string]> = [
  ['sentiment', 'label'],
  ['intent', 'label'],
];

function labelShares(archive: Archive, q: LibraryQuery): LabelShareRow[] {
  const out: LabelShareRow[] = [];
  for (const [family, field] of LABEL_FIELDS) {
    const dist = archive.labelDistribution(q, family, field).filter((d) => d.bucket !== 'null');
    const judged = dist.reduce((s, d) => s + d.value, 0);
    for (const d of dist)
      out.push({
        label: `${family}.${field}`,
        value: d.bucket,
        items: d.value,
        share: judged ? d.value / judged : 0,
        judged,
        query: { ...q, labels: [...(q.labels ?? []), { family, field, op: 'eq', value: d.bucket }] },
      });
  }
  const judged = archive.count({ ...q, labels: [...(q.labels ?? []), { family: 'sponsored', field: 'p', op: 'gte', value: 0 }] });
  if (judged > 0) {
    const sq: LibraryQuery = { ...q, labels: [...(q.labels ?? []), { family: 'sponsored', field: 'p', op: 'gte', value: 0.5 }] };
    const n = archive.count(sq);
    out.push({ label: 'sponsored', value: 'likely sponsored (p ≥ 0.5)', items: n, share: n / judged, judged, query: sq });
  }
  return out;
}

function oneSeries(
  archive: Archive,
  name: string,
  query: LibraryQuery,
  bucket: Comparison['bucket'],
  top: number,
): Omit<CompareSeries, 'shareOfVoice' | 'engagementShare'> {
  const q = baseQuery(parseQuery(query));
  const agg = archive.seriesTotals(q);
  const days = archive.seriesDays(q);
  const volume: CompareSeries['volume'] = [];
  let datesSetAside = 0;
  for (const r of days) {
    if (!chartableDay(r.d)) {
      datesSetAside += r.c;
      continue;
    }
    const b = bucketOf(r.d, bucket, q);
    const last = volume[volume.length - 1];
    if (last && last.bucket === b.label) last.value += r.c;
    else volume.push({ bucket: b.label, value: r.c, query: b.query });
  }
  const topPosts = top > 0 ? archive.topPosts(q, top) : [];
  return {
    name,
    query: q,
    items: agg.n,
    engagement: agg.e,
    rateByViews: agg.v ? (agg.ev ?? 0) / agg.v : null,
    rateByFollowers: agg.f ? (agg.ef ?? 0) / agg.f : null,
    volume,
    ...(datesSetAside > 0 ? { datesSetAside } : {}),
    labels: labelShares(archive, q),
    topPosts,
  };
}

export function compare(archive: Archive, input: CompareInput): Comparison {
  const i = compareInputSchema.parse(input);
  const parts = i.series.map((s) => oneSeries(archive, s.name, s.query, i.bucket, i.topPosts));
  const items = parts.reduce((s, p) => s + p.items, 0);
  const eng = parts.reduce((s, p) => s + (p.engagement ?? 0), 0);
  return {
    bucket: i.bucket,
    series: parts.map((p) => ({
      ...p,
      shareOfVoice: items ? p.items / items : 0,
      engagementShare: eng ? (p.engagement ?? 0) / eng : null,
    })),
    overlap: overlapOf(
      archive,
      parts.map((p) => p.query),
    ),
  };
}

/** Items in more than one series, and the distinct items of all of them. */
function overlapOf(archive: Archive, queries: LibraryQuery[]): Comparison['overlap'] {
  const seen = new Map<number, number>();
  for (const q of queries) for (const rid of archive.seriesRids(q)) seen.set(rid, (seen.get(rid) ?? 0) + 1);
  let shared = 0;
  for (const n of seen.values()) if (n > 1) shared++;
  return { distinct: seen.size, shared };
}

function median(sorted: number[]): number {
  const m = sorted.length >> 1;
  return sorted.length % 2 ? sorted[m] : (sorted[m - 1] + sorted[m]) / 2;
}

/** Where v goes in an ascending array (the first index whose value is not below v). */
function lowerBound(a: number[], v: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (a[mid] < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
/** Inserts v into an ascending array / removes one v from it. */
function insertSorted(a: number[], v: number): void {
  a.splice(lowerBound(a, v), 0, v);
}
function removeSorted(a: number[], v: number): void {
  a.splice(lowerBound(a, v), 1);
}

/**
 * Per post: its engagement ÷ the median engagement of the same account's previous `baseline`
 * posts in the archive (same platform and record kind; ordered by publication time, then archive
 * order; posts whose engagement is unknown are left out of baselines). No score with fewer than
 * `minBaseline` previous posts, or when that median is 0.
 */
export function overperformance(archive: Archive, input: OverperformanceInput): Overperformance {
  const i = overperformanceInputSchema.parse(input);
  if (i.method === 'same_age') return overperformanceAtSameAge(archive, i);
  const q = baseQuery(parseQuery(i.query));
  const targets = archive.authoredPosts(q);
  const accounts = byAccount(targets);
  const rows: OverperformanceRow[] = [];
  let unscored = 0;
  for (const [key, posts] of accounts) {
    const p0 = posts[0];
    const history = archive.accountHistory(p0.authorId, p0.username, p0.platform, p0.kind);
    const want = new Map(posts.map((p) => [p.rid, p]));
    const window: number[] = [];
    const sorted: number[] = [];
    for (const h of history) {
      const p = want.get(h.rid);
      if (p) {
        if (h.e === null || window.length < i.minBaseline || median(sorted) === 0) unscored++;
        else {
          const m = median(sorted);
          rows.push({
            ...brief(p),
            authorKey: key.split('\u0000').slice(2).join(''),
            baselineMedian: m,
            baselinePosts: window.length,
            score: h.e / m,
          });
        }
      }
      if (h.e === null) continue;
      window.push(h.e);
      insertSorted(sorted, h.e);
      const dropped = window.length > i.baseline ? window.shift() : undefined;
      if (dropped !== undefined) removeSorted(sorted, dropped);
    }
  }
  rows.sort((a, b) => (i.dir === 'desc' ? b.score - a.score : a.score - b.score) || (a.id < b.id ? -1 : 1));
  return { scored: rows.length, unscored, rows: rows.slice(0, i.limit) };
}
