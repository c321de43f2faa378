/**
 * charts.ts fold (rows added into arrays by key and bucket number) gives the same series as the
 * plain per-row fold it replaced, kept here as the reference: keys, order, values, shares, queries.
 */
import { describe, expect, it } from 'vitest';
import { fold, labelKeyer, type DayRow } from './charts';
import { bucketOf } from './buckets';
import type { ChartBucket, ChartMark, ChartSeries } from '../../shared/analysis';
import type { LibraryQuery } from '../../shared/query';
import { mulberry32 } from '../../shared/random';

type KeyOf = (k: string | number) => { key: string; narrow: (q: LibraryQuery) => LibraryQuery };

function referenceFold(rows: DayRow[], bucket: ChartBucket, q: LibraryQuery, keyOf: KeyOf, limit: number, shares: boolean): ChartSeries {
  const keyed = rows.map((r) => ({ ...r, ...keyOf(r.k) }));
  const totals = new Map<string, number>();
  for (const r of keyed) totals.set(r.key, (totals.get(r.key) ?? 0) + r.c);
  const keys = [...totals.entries()]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, limit)
    .map(([k]) => k);
  const marks = new Map<string, ChartMark>();
  const bucketTotal = new Map<string, number>();
  for (const r of keyed) {
    const b = bucketOf(r.d, bucket, q);
    bucketTotal.set(b.label, (bucketTotal.get(b.label) ?? 0) + r.c);
    if (!keys.includes(r.key)) continue;
    const id = `${b.label}\u0000${r.key}`;
    const m = marks.get(id);
    if (m) m.value += r.c;
    else marks.set(id, { bucket: b.label, key: r.key, value: r.c, query: r.narrow(b.query) });
  }
  const out = [...marks.values()].sort((a, b) =>
    a.bucket < b.bucket ? -1 : a.bucket > b.bucket ? 1 : keys.indexOf(a.key) - keys.indexOf(b.key),
  );
  if (shares) for (const m of out) m.share = m.value / (bucketTotal.get(m.bucket) ?? 1);
  return { keys, marks: out };
}

describe('fold', () => {
  const r = mulberry32(7);
  const day0 = Date.UTC(2023, 10, 20) / 86_400_000;
  const q: LibraryQuery = { since: '2023-11-22', until: '2024-03-10T12:00:00Z' };

  it('equals the per-row fold for label ranges, text keys and platforms, every bucket and limit', () => {
    // a 0–1 label by hundredths (several raw values per range), text values, platforms
    const sets: Array<[DayRow[], KeyOf]> = [];
    const reals: DayRow[] = [];
    for (let i = 0; i < 3000; i++)
      reals.push({ d: day0 + Math.floor(r() * 110), k: Math.floor(r() * 101) / 100, c: 1 + Math.floor(r() * 9) });
    const keyer = labelKeyer('sponsored', 'p', [...new Set(reals.map((x) => x.k))]);
    sets.push([reals, (k) => ({ key: keyer(k).key, narrow: (qq) => ({ ...qq, labels: [...(qq.labels ?? []), ...keyer(k).conds] }) })]);
    const texts: DayRow[] = [];
    for (let i = 0; i < 2000; i++)
      texts.push({
        d: day0 + Math.floor(r() * 110),
        k: ['complaining', 'promoting', 'other', 'asking', 'b', 'a'][Math.floor(r() * 6)],
        c: 1 + Math.floor(r() * 4),
      });
    sets.push([
      texts,
      (k) => ({ key: String(k), narrow: (qq) => ({ ...qq, labels: [{ family: 'intent', field: 'label', op: 'eq', value: k }] }) }),
    ]);
    const platforms = texts.map((x, i) => ({ ...x, k: ['photo_net', 'micro_net', 'forum_net'][i % 3] }));
    sets.push([platforms, (k) => ({ key: String(k), narrow: (qq) => ({ ...qq, platforms: [String(k)] }) })]);
    for (const [rows, keyOf] of sets) {
      for (const bucket of ['day', 'week', 'month'] as const) {
        for (const limit of [1, 3, 50]) {
          for (const shares of [false, true]) {
            expect(fold(rows, bucket, q, keyOf, limit, shares)).toEqual(referenceFold(rows, bucket, q, keyOf, limit, shares));
          }
        }
      }
    }
    expect(fold([], 'week', q, sets[0][1], 10, true)).toEqual({ keys: [], marks: [] });
  });
});
