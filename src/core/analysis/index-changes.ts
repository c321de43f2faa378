/**
 * The analysis index's upkeep of items it already took in (analysis-index.ts catchUpNow): the
 * triggers (archive/analysis-schema.ts) log an indexed item that changes or goes (`an_dirty`,
 * its values as indexed) and the days it was and is published on (`an_dirty_days`).
 *
 *  - new counts (same text, language and publication time): added to the term totals as the
 *    difference, and written into the item's blobs; while the terms are built from scratch, only
 *    into the blobs (the totals are counted from them at the end: the count's epoch moves);
 *  - an edited text, language or publication time: the terms are counted again (terms_stale);
 *  - a deleted item: its blobs go and the count's epoch moves while built from scratch, else the
 *    terms are counted again (a first or last publication cannot be taken back by a difference);
 *  - every logged day is counted again from the items up to the summary's watermark.
 *
 * An item past the terms' watermark (`terms_upto`) is not in them yet: it is read as it is now
 * when they reach it (before, its difference was added to totals that did not hold it yet: a
 * re-fetch while the terms were rebuilt after an edit counted its new counts twice).
 */
import type { AnalysisTables } from '../archive';
import type { TermField } from '../text';
import { writeDaily } from './daily-acc';
import type { TermAcc } from './frequency';
import { addDelta, writeDelta } from './term-delta';
import { writeHeader } from './term-ids';

const COUNTS = ['views', 'likes', 'comments', 'shares', 'saves'] as const;

/** Takes in the logged changes; `fields` the label fields' numbers, `terms` the fields with totals (field number k + 1). Call inside a transaction. */
export function takeChanges(t: AnalysisTables, fields: Map<string, number>, terms: readonly TermField[]): void {
  const wm = t.state('watermark');
  const termsUpto = t.state('terms_upto');
  const bulk = t.state('terms_bulk') === 1;
  const delta = new Map<string, TermAcc>();
  const read = t.itemTermsReader();
  const put = t.itemTermsWriter();
  for (const d of t.dirtyItems()) {
    const rid = d.rid as number;
    if (rid > termsUpto || t.state('terms_stale') === 1) continue;
    if (d.gone === 1) {
      if (bulk) for (let k = 0; k < terms.length; k++) t.dropItemTerms(k + 1, rid, d.o_pub as number | null);
      else t.setState('terms_stale', 1);
      continue;
    }
    if (d.text !== d.o_text || d.lang !== d.o_lang || d.pub !== d.o_pub) {
      t.setState('terms_stale', 1);
      continue;
    }
    addDelta(delta, d, terms);
    // the item's blobs carry its counts (term-ids.ts sums them): the new ones
    const now = COUNTS.map((c) => (typeof d[c] === 'number' ? d[c] : null));
    const pub = d.pub as number | null;
    for (let k = 0; k < terms.length; k++) {
      const b = read(k + 1, rid, pub);
      if (b) put(k + 1, rid, pub, writeHeader(b, pub, now));
    }
  }
  // a build from scratch counts its totals from the blobs at its end: a change moves that count's epoch
  if (bulk) t.setState('bulk_epoch', t.state('bulk_epoch') + 1);
  else if (t.state('terms_stale') === 0) writeDelta(t, delta);
  t.clearDirtyItems();
  const days = t.dirtyDays().filter((d) => Number.isFinite(d));
  for (const day of days) {
    t.clearDay(day);
    writeDaily(t, t.dayItems(day, wm), fields);
  }
  t.clearDirtyDays();
}
