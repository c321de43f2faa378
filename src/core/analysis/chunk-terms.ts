/**
 * The terms of one chunk of new items as the analysis index takes them in (analysis-index.ts
 * catchUpNow): each distinct (field, term) gets a slot, its totals kept in columns (no object
 * per term, no `field\0term` key built per occurrence), and each item's terms of a field are kept
 * as slots until the terms are written and their row ids known.
 *
 * The totals are the ones frequency.ts addItem keeps (items, occurrences, first and last
 * publication, six sums in SUM_COLUMNS order; a term counted once per item however often the item
 * writes it), added in the same item order, so the index holds the same numbers, and the terms
 * are written in the order they were first seen, as before (sorting them by (field, term) first
 * made the upserts ~25 % cheaper but cost more than that to sort at 20,000 posts a chunk).
 */
import type { IndexItemRow } from '../archive';
import { engagementOf } from '../../shared/analysis';
import { extractTerms, type TermField } from '../text';

/** Writes a term's totals (adding to what is stored) and returns its row id: AnalysisTables.termWriter. */
export type TermWriter = (field: number, term: string, docs: number, occ: number, first: number | null, last: number | null, sums: Array<number | null>) => number;

/** One item's terms of one field: the field's number, the item's rid, publication time, counts (views … saves) and its terms' slots in text order. */
interface ItemSlots {
  field: number;
  rid: number;
  pub: number | null;
  counts: Array<number | null>;
  slots: number[];
}

const SUMS = 6;
const nul = (v: number): number | null => (Number.isNaN(v) ? null : v);

export class ChunkTerms {
  /** slot of each term, one map per field number */
  private readonly slotOf: Array<Map<string, number>>;
  private readonly term: string[] = [];
  private readonly docs: number[] = [];
  private readonly occ: number[] = [];
  /** NaN = none known */
  private readonly first: number[] = [];
  private readonly last: number[] = [];
  private readonly sums: number[][] = Array.from({ length: SUMS }, () => []);
  /** the item (its sequence number here) that last counted the slot: a term counts once per item */
  private readonly seen: number[] = [];
  private seq = 0;
  readonly items: ItemSlots[] = [];

  constructor(private readonly fields: readonly TermField[]) {
    this.slotOf = Array.from({ length: fields.length + 1 }, () => new Map());
  }

  /** Takes in one item's terms (an item without text has none). */
  add(r: IndexItemRow): void {
    if (r[1] === null) return;
    const terms = extractTerms(r[1], r[2], this.fields);
    const pub = r[3];
    const vals = [r[4], r[5], r[6], r[7], r[8], engagementOf({ likes: r[5], comments: r[6], shares: r[7], saves: r[8] })];
    const counts = [r[4], r[5], r[6], r[7], r[8]];
    const item = ++this.seq;
    for (let f = 0; f < this.fields.length; f++) {
      const list = terms[this.fields[f]];
      if (list.length === 0) continue;
      const no = f + 1;
      const map = this.slotOf[no];
      const slots: number[] = new Array<number>(list.length);
      for (let k = 0; k < list.length; k++) {
        const t = list[k];
        let s = map.get(t);
        if (s === undefined) {
          s = this.newSlot(t);
          map.set(t, s);
        }
        slots[k] = s;
        this.occ[s]++;
        if (this.seen[s] === item) continue;
        this.seen[s] = item;
        this.docs[s]++;
        if (pub !== null) {
          if (Number.isNaN(this.first[s]) || pub < this.first[s]) this.first[s] = pub;
          if (Number.isNaN(this.last[s]) || pub > this.last[s]) this.last[s] = pub;
        }
        for (let c = 0; c < SUMS; c++) {
          const v = vals[c];
          if (v !== null) this.sums[c][s] = Number.isNaN(this.sums[c][s]) ? v : this.sums[c][s] + v;
        }
      }
      this.items.push({ field: no, rid: r[0], pub, counts, slots });
    }
  }

  private newSlot(term: string): number {
    const s = this.term.length;
    this.term.push(term);
    this.docs.push(0);
    this.occ.push(0);
    this.first.push(NaN);
    this.last.push(NaN);
    for (const col of this.sums) col.push(NaN);
    this.seen.push(0);
    return s;
  }

  /** Writes every term's totals, field by field; returns each slot's row id. */
  write(up: TermWriter): Int32Array {
    const ids = new Int32Array(this.term.length);
    for (let no = 1; no < this.slotOf.length; no++) {
      const map = this.slotOf[no];
      for (const [t, s] of map)
        ids[s] = up(no, t, this.docs[s], this.occ[s], nul(this.first[s]), nul(this.last[s]), this.sums.map((col) => nul(col[s])));
    }
    return ids;
  }
}
