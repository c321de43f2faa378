/**
 * ChunkTerms (the analysis index's per-chunk term totals in columns) keeps the totals frequency.ts
 * addItem keeps per term object (what the index was filled from before), and each item's term
 * slots in text order, over generated items: repeated terms, missing texts, dates and counts.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { IndexItemRow } from '../archive/analysis-index';
import { engagementOf } from '../../shared/analysis';
import { TOTAL_FIELDS } from './analysis-index';
import { ChunkTerms } from './chunk-terms';
import { addItem, newAcc, type TermAcc } from './frequency';
import { extractTerms } from '../text';

const WORD = fc.constantFrom(
  'kettle',
  'coffee',
  'the',
  'bank',
  'america',
  '#launch',
  '#Launch',
  '@ana',
  'https://www.example.org/x',
  '🙂',
  'paris.',
  'of',
  '42',
);
const COUNT = fc.option(fc.integer({ min: 0, max: 1_000_000 }), { nil: null });
const ROW = fc.tuple(
  fc.option(
    fc.array(WORD, { maxLength: 12 }).map((w) => w.join(' ')),
    { nil: null },
  ),
  fc.option(fc.integer({ min: 0, max: 2_000_000_000_000 }), { nil: null }),
  fc.tuple(COUNT, COUNT, COUNT, COUNT, COUNT),
);

/** The totals as the index kept them before: one TermAcc per field\0term, addItem per item and distinct term. */
function reference(rows: IndexItemRow[]): Map<string, TermAcc> {
  const acc = new Map<string, TermAcc>();
  for (const r of rows) {
    if (r[1] === null) continue;
    const terms = extractTerms(r[1], r[2], TOTAL_FIELDS);
    const vals = [r[4], r[5], r[6], r[7], r[8], engagementOf({ likes: r[5], comments: r[6], shares: r[7], saves: r[8] })];
    TOTAL_FIELDS.forEach((f, k) => {
      const per = new Map<string, number>();
      for (const t of terms[f]) per.set(t, (per.get(t) ?? 0) + 1);
      for (const [t, n] of per) {
        const key = `${k + 1}\u0000${t}`;
        if (!acc.has(key)) acc.set(key, newAcc());
        addItem(acc.get(key)!, n, r[3], vals);
      }
    });
  }
  return acc;
}

describe('ChunkTerms', () => {
  it('keeps the same totals as addItem per term, and every occurrence per item in text order', () => {
    fc.assert(
      fc.property(fc.array(ROW, { maxLength: 40 }), (gen) => {
        const rows: IndexItemRow[] = gen.map(([text, pub, c], i) => [i + 1, text, 'en', pub, ...c, 'micro_net', 'post', null]);
        const chunk = new ChunkTerms(TOTAL_FIELDS);
        for (const r of rows) chunk.add(r);
        const written = new Map<string, TermAcc>();
        const terms: string[] = [];
        const ids = chunk.write((field, term, docs, occ, first, last, sums) => {
          written.set(`${field}\u0000${term}`, { count: docs, occ, first, last, sums });
          return terms.push(`${field}\u0000${term}`);
        });
        expect(written).toEqual(reference(rows));
        // the items' slots name their terms, occurrences in text order
        const want = rows.flatMap((r) => {
          if (r[1] === null) return [];
          const t = extractTerms(r[1], r[2], TOTAL_FIELDS);
          return TOTAL_FIELDS.flatMap((f, k) => (t[f].length ? [[k + 1, r[0], t[f].map((x) => `${k + 1}\u0000${x}`)]] : []));
        });
        expect(chunk.items.map((it) => [it.field, it.rid, it.slots.map((s) => terms[ids[s] - 1])])).toEqual(want);
      }),
      { numRuns: 200 },
    );
  });
});
