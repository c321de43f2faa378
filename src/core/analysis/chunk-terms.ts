/**
 * The terms of one chunk of new items as the analysis index takes them in (analysis-index.ts
 * catchUpNow): each distinct (field, term) gets a slot, its totals kept in typed columns (no
 * object per term, no `field\0term` key built per occurrence), and each item's terms of a field
 * are kept as slots until the terms are written and their row ids known.
 *
 * The totals are the ones frequency.ts addItem keeps (items, occurrences, first and last
 * publication, six sums in SUM_COLUMNS order; a term counted once per item however often the item
 * writes it), added in the same item order, so the index holds the same numbers. They are written
 * in about the (field, term) key's order (write()): a whole sort of a chunk's ~300,000 texts cost
 * more than it saved, an order by their first two characters, in numbers, costs ~1 % and makes
 * the writes of a chunk after the first ~40 % cheaper (issue 30).
 */
import type { IndexItemRow } from '../archive';
import { engagementOf } from '../../shared/analysis';
import { extractTerms, type TermField } from '../text';
import type { ItemIds } from './term-ids';

/** Writes a term's totals (adding to what is stored) and returns its row id: AnalysisTables.termWriter. */
export type TermWriter = (
  field: number,
  term: string,
  docs: number,
  occ: number,
  first: number | null,
  last: number | null,
  sums: Array<number | null>,
) => number;

/** One item's terms of one field: the field's number, the item's rid, publication time, counts (views … saves) and its terms' slots in text order. */
interface ItemSlots {
  field: number;
  rid: number;
  pub: number | null;
  counts: Array<number | null>;
  slots: number[];
}

const SUMS = 6;
/** a slot number's room in write()'s sort keys (two UTF-16 units, 32 bits, above it: 53 bits in all) */
const SLOT_SPAN = 2 ** 21;
const nul = (v: number): number | null => (Number.isNaN(v) ? null : v);

function grow<T extends Int32Array | Float64Array>(a: T, fill: number): T {
  const b = new (a.constructor as new (n: number) => T)(a.length * 2);
  b.set(a);
  if (fill !== 0) b.fill(fill, a.length);
  return b;
}

export class ChunkTerms {
  /** slot of each term, one map per field number */
  private readonly slotOf: Array<Map<string, number>>;
  private readonly term: string[] = [];
  private size = 0;
  private docs = new Int32Array(1024);
  private occ = new Int32Array(1024);
  /** NaN = none known */
  private first = new Float64Array(1024).fill(NaN);
  private last = new Float64Array(1024).fill(NaN);
  /** the six sums of slot s at s * SUMS … (NaN = none known) */
  private sums = new Float64Array(1024 * SUMS).fill(NaN);
  /** the item (its sequence number here) that last counted the slot: a term counts once per item */
  private seen = new Int32Array(1024);
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
    const e = engagementOf({ likes: r[5], comments: r[6], shares: r[7], saves: r[8] });
    const vals = [r[4] ?? NaN, r[5] ?? NaN, r[6] ?? NaN, r[7] ?? NaN, r[8] ?? NaN, e ?? NaN];
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
          const fs = this.first[s];
          if (!(fs <= pub)) this.first[s] = pub;
          const ls = this.last[s];
          if (!(ls >= pub)) this.last[s] = pub;
        }
        const sums = this.sums;
        const at = s * SUMS;
        for (let c = 0; c < SUMS; c++) {
          const v = vals[c];
          if (v === v) {
            const was = sums[at + c];
            sums[at + c] = was === was ? was + v : v;
          }
        }
      }
      this.items.push({ field: no, rid: r[0], pub, counts, slots });
    }
  }

  private newSlot(term: string): number {
    const s = this.size++;
    this.term.push(term);
    if (s === this.docs.length) {
      this.docs = grow(this.docs, 0);
      this.occ = grow(this.occ, 0);
      this.first = grow(this.first, NaN);
      this.last = grow(this.last, NaN);
      this.seen = grow(this.seen, 0);
      this.sums = grow(this.sums, NaN);
    }
    return s;
  }

  /**
   * Writes every term's totals, field by field, in about the (field, term) key's order; returns
   * each slot's row id. The order is the terms' first two UTF-16 units: enough for the writes into
   * the key to land on pages already read; which id a term gets changes nothing a reader sees.
   */
  write(up: TermWriter): Int32Array {
    const ids = new Int32Array(this.size);
    const col = this.sums;
    for (let no = 1; no < this.slotOf.length; no++) {
      for (const s of this.order(this.slotOf[no])) {
        const at = s * SUMS;
        const sums = [nul(col[at]), nul(col[at + 1]), nul(col[at + 2]), nul(col[at + 3]), nul(col[at + 4]), nul(col[at + 5])];
        ids[s] = up(no, this.term[s], this.docs[s], this.occ[s], nul(this.first[s]), nul(this.last[s]), sums);
      }
    }
    return ids;
  }

  /** The items' term ids, from each slot's row id (`ids`, as write() gives them). */
  itemIds(ids: Int32Array): ItemIds[] {
    return this.items.map((it) => ({ field: it.field, rid: it.rid, pub: it.pub, counts: it.counts, ids: it.slots.map((s) => ids[s]) }));
  }

  /** A field's slots by their terms' first two UTF-16 units (in first-seen order past SLOT_SPAN slots). */
  private order(map: Map<string, number>): Iterable<number> {
    if (this.size >= SLOT_SPAN) return map.values();
    const keys = new Float64Array(map.size);
    let k = 0;
    for (const [t, s] of map) keys[k++] = ((t.charCodeAt(0) || 0) * 65_536 + (t.charCodeAt(1) || 0)) * SLOT_SPAN + s;
    keys.sort();
    const slots = new Int32Array(keys.length);
    for (let j = 0; j < keys.length; j++) slots[j] = keys[j] % SLOT_SPAN;
    return slots;
  }
}
