/**
 * A re-fetched item's new counts in the analysis index's term totals (analysis-index.ts
 * catchUpNow): the engagement difference per term of its text, added to `an_terms` by the
 * incremental path (a build from scratch counts its totals from the blobs instead, bulk-terms.ts).
 */
import type { AnalysisTables, DirtyRow } from '../archive';
import { engagementOf } from '../../shared/analysis';
import { newAcc, type TermAcc } from './frequency';
import { extractTerms, type TermField } from '../text';

/** Adds the engagement difference of a changed item (same text) to each of its terms (field number k + 1 of `fields`): docs and occurrences unchanged. */
export function addDelta(acc: Map<string, TermAcc>, d: DirtyRow, fields: readonly TermField[]): void {
  const num = (v: unknown): number | null => (typeof v === 'number' ? v : null);
  const cols = ['views', 'likes', 'comments', 'shares', 'saves'];
  const now = cols.map((c) => num(d[c]));
  const was = cols.map((c) => num(d[`o_${c}`]));
  const e = (x: Array<number | null>): number | null => engagementOf({ likes: x[1], comments: x[2], shares: x[3], saves: x[4] });
  const diff = [...now.map((v, k) => (v === null ? null : v - (was[k] ?? 0))), e(now) === null ? null : (e(now) ?? 0) - (e(was) ?? 0)];
  const terms = extractTerms(d.text as string | null, d.lang as string | null, fields);
  fields.forEach((f, k) => {
    for (const t of new Set(terms[f])) {
      const key = k + 1 + '\u0000' + t;
      let a = acc.get(key);
      if (!a) acc.set(key, (a = newAcc()));
      a.sums = a.sums.map((s, j) => (diff[j] === null ? s : (s ?? 0) + (diff[j] as number)));
    }
  });
}

/** Adds the differences to the stored totals (a term not stored yet gets a row of its own). */
export function writeDelta(t: AnalysisTables, acc: Map<string, TermAcc>): void {
  const up = t.termWriter();
  for (const [key, a] of acc) {
    const sep = key.indexOf('\u0000');
    up(Number(key.slice(0, sep)), key.slice(sep + 1), 0, 0, null, null, a.sums);
  }
}
