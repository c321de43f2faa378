/**
 * The analysis index built from scratch (issue 30, docs/analysis.md "A build from scratch"): the
 * incremental path adds each chunk's term totals into `an_terms` — an INSERT OR IGNORE into the
 * (field, term) key, an id lookup, an UPDATE — at places all over its B-trees, so each chunk cost
 * more the bigger the index was (471 posts/s over 200k posts). Here the terms' ids come from a
 * dictionary in memory and a new term's row is appended (ids grow; `an_terms` has no index while
 * the build runs), so a chunk writes its items' term-id blobs, its daily counts and the tail of
 * `an_terms`, whatever the index already holds. When every item is in, the totals are counted
 * from the blobs (they hold each item's term ids, publication time and counts: everything a
 * total is made of), written by id in steps, and the two indexes are made, one sort (and one
 * transaction) each.
 *
 * Crash-safe as the incremental build: every chunk is one transaction (its terms, blobs, daily
 * counts and watermarks together); the dictionary is read back from `an_terms` by a process that
 * goes on with a build another one began; totals are only ever set from the blobs, so a build
 * stopped anywhere, even between two steps of writing them or making the indexes, is finished by counting again; and no
 * reader uses `an_terms` while `terms_bulk` is set (AnalysisIndex.current).
 */
import type { AnalysisTables } from '../archive';
import { engagementOf } from '../../shared/analysis';
import type { IndexItemRow } from '../archive';
import { extractTerms, type TermField, type TermsOf } from '../text';
import { HEADER, type ItemIds } from './term-ids';

/** the smallest backlog of an empty index built this way (a smaller one takes the incremental path) */
export const BULK_MIN = 20_000;
/** an_terms rows whose totals one step writes (one transaction: ~0.3–0.5 s) */
const TOTALS_STEP = 200_000;
/** blobs read per page while counting the totals */
const PAGE = 20_000;
/** a Map holds at most 2^24 entries: a field's terms are spread over this many, by length */
const SHARDS = 8;
/** with the u flag a pair is one code point: only a lone surrogate matches */
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * term → id of every an_terms row, per field, and the new terms of the chunk under way (appended
 * by `flush`, ids consecutive per field). Keyed by the JS string the tokenizer gives, as the
 * incremental path's (field, term) key tells terms apart; a term with a lone surrogate does not
 * read back from the archive as it was written, so those rows, when read back, are kept apart
 * (`unsure`) and such a term is looked for among them in SQL.
 */
class Dictionary {
  private readonly maps: Array<Map<string, number>>;
  last = 0;
  private readonly unsure: number[] = [];
  private pending: { field: number; first: number; terms: string[] } | null = null;

  constructor(
    fields: number,
    private readonly t: AnalysisTables,
  ) {
    this.maps = Array.from({ length: (fields + 1) * SHARDS }, () => new Map());
  }

  /** Takes in a stored row. */
  load(id: number, field: number, term: string): void {
    if (term.includes('\uFFFD')) this.unsure.push(id);
    this.maps[field * SHARDS + (term.length % SHARDS)].set(term, id);
    if (id > this.last) this.last = id;
  }

  id(field: number, term: string): number {
    const m = this.maps[field * SHARDS + (term.length % SHARDS)];
    let id = m.get(term);
    if (id !== undefined) return id;
    const whole = !LONE_SURROGATE.test(term);
    if (!whole && this.unsure.length > 0) id = this.t.termAmong(this.unsure, field, term);
    if (id === undefined) {
      id = ++this.last;
      if (this.pending?.field !== field) {
        this.flush();
        this.pending = { field, first: id, terms: [] };
      }
      // a copy of its own: a term cut from a text (or two words joined) would keep the whole text alive
      const own = whole ? Buffer.from(term, 'utf8').toString('utf8') : term;
      this.pending.terms.push(own);
      m.set(own, id);
    } else m.set(term, id);
    return id;
  }

  /** Appends the new terms to an_terms. */
  flush(): void {
    if (this.pending && this.pending.terms.length > 0) this.t.appendTerms(this.pending.field, this.pending.first, this.pending.terms);
    this.pending = null;
  }
}

/** Every term's totals counted from the blobs, by id (NaN = none known). */
interface Totals {
  size: number;
  docs: Int32Array;
  occ: Int32Array;
  first: Float64Array;
  last: Float64Array;
  /** six sums of id i at i * 6 … */
  sums: Float64Array;
  /** the next id whose totals are to be written */
  next: number;
  /** ids of terms no item holds (their items deleted) */
  unused: number[];
  /** the state the count was made in: terms_upto and bulk_epoch */
  upto: number;
  epoch: number;
}

export class BulkTerms {
  private dict: Dictionary | null = null;
  private totals: Totals | null = null;

  constructor(
    private readonly t: AnalysisTables,
    private readonly fields: readonly TermField[],
    /** an_terms rows whose totals one step writes */
    private readonly step = TOTALS_STEP,
  ) {}

  /** Forgets what is held in memory (the terms were cleared, or another connection wrote them). */
  reset(): void {
    this.dict = null;
    this.totals = null;
  }

  /** Whether the totals are being written (the items are all in): new items and changes wait until the indexes are made. */
  get finishing(): boolean {
    return this.totals !== null;
  }

  /**
   * The term ids of the items after `after` among `rows` (tokenized here: no totals are kept per
   * chunk, they are counted from the blobs at the end), new terms appended to an_terms field by
   * field. Call inside the chunk's transaction.
   */
  itemIds(rows: readonly IndexItemRow[], after: number): ItemIds[] {
    // the dictionary is what an_terms holds: another connection may have added terms, or a
    // transaction that added some here may have been rolled back
    const max = this.t.maxTermId();
    if (this.dict === null || this.dict.last !== max) {
      const d = new Dictionary(this.fields.length, this.t);
      this.t.eachTerm(0, (id, field, term) => d.load(id, field, term));
      this.dict = d;
    }
    const d = this.dict;
    const items: Array<{ r: IndexItemRow; terms: TermsOf; counts: Array<number | null> }> = [];
    for (const r of rows)
      if (r[0] > after && r[1] !== null)
        items.push({ r, terms: extractTerms(r[1], r[2], this.fields), counts: [r[4], r[5], r[6], r[7], r[8]] });
    const out: ItemIds[] = [];
    // field by field: a field's new terms get consecutive ids, appended in one statement
    for (let f = 0; f < this.fields.length; f++) {
      const no = f + 1;
      for (const { r, terms, counts } of items) {
        const list = terms[this.fields[f]];
        if (list.length === 0) continue;
        const ids = new Array<number>(list.length);
        for (let k = 0; k < list.length; k++) ids[k] = d.id(no, list[k]);
        out.push({ field: no, rid: r[0], pub: r[3], counts, ids });
      }
      d.flush();
    }
    return out;
  }

  /**
   * One step of the end of the build (the items are all in): count the totals from the blobs, or
   * write the next TOTALS_STEP of them, or make the next index, or end the bulk state. Returns true
   * when the build is over.
   */
  finishStep(): boolean {
    const upto = this.t.state('terms_upto');
    const epoch = this.t.state('bulk_epoch');
    if (this.totals !== null && (this.totals.upto !== upto || this.totals.epoch !== epoch)) this.totals = null;
    if (this.totals === null) {
      this.dict = null; // not needed any more: its memory for the totals
      this.totals = this.count(upto, epoch);
      return false;
    }
    const tot = this.totals;
    return this.t.immediate(() => {
      // under the write lock: another connection may have gone on meanwhile
      if (this.t.state('terms_bulk') !== 1) return true;
      if (this.t.state('terms_upto') !== tot.upto || this.t.state('bulk_epoch') !== tot.epoch) {
        this.totals = null;
        return false;
      }
      if (tot.next < tot.size) {
        // terms whose items were all deleted meanwhile go (with the first step: set again after a stop)
        if (tot.next === 1 && tot.unused.length > 0) this.t.dropTerms(tot.unused);
        const set = this.t.termTotalsSetter();
        const end = Math.min(tot.size, tot.next + this.step);
        const n = (v: number): number | null => (Number.isNaN(v) ? null : v);
        const s = tot.sums;
        for (let id = tot.next; id < end; id++) {
          if (tot.docs[id] === 0) continue;
          const at = id * 6;
          set(id, tot.docs[id], tot.occ[id], n(tot.first[id]), n(tot.last[id]), [
            n(s[at]),
            n(s[at + 1]),
            n(s[at + 2]),
            n(s[at + 3]),
            n(s[at + 4]),
            n(s[at + 5]),
          ]);
        }
        tot.next = end;
        return false;
      }
      if (this.t.createTermKey()) return false;
      this.t.setState('terms_bulk', 0);
      this.totals = null;
      return true;
    });
  }

  /** The totals of every term from the blobs (each holds one item's ids, sorted, repeats kept, after its publication time and counts). */
  private count(upto: number, epoch: number): Totals {
    const size = this.t.maxTermId() + 1;
    const docs = new Int32Array(size);
    const occ = new Int32Array(size);
    const first = new Float64Array(size).fill(NaN);
    const last = new Float64Array(size).fill(NaN);
    const sums = new Float64Array(size * 6).fill(NaN);
    const vals = new Float64Array(6);
    let after: [number, number, number] | null = null;
    for (;;) {
      const page = this.t.itemTermsPage(after, PAGE);
      if (page.length === 0) break;
      for (const [, , , b] of page) {
        const pub = b.readDoubleLE(0);
        for (let c = 0; c < 5; c++) vals[c] = b.readDoubleLE(8 + c * 8);
        const n = (v: number): number | null => (Number.isNaN(v) ? null : v);
        vals[5] = engagementOf({ likes: n(vals[1]), comments: n(vals[2]), shares: n(vals[3]), saves: n(vals[4]) }) ?? NaN;
        const ids = new Uint32Array(b.buffer.slice(b.byteOffset + HEADER, b.byteOffset + b.length));
        let prev = -1;
        for (let k = 0; k < ids.length; k++) {
          const id = ids[k];
          occ[id]++;
          if (id === prev) continue; // sorted: a repeat is one more occurrence in the same item
          prev = id;
          docs[id]++;
          if (pub === pub) {
            if (!(first[id] <= pub)) first[id] = pub;
            if (!(last[id] >= pub)) last[id] = pub;
          }
          const at = id * 6;
          for (let c = 0; c < 6; c++) {
            const v = vals[c];
            if (v === v) {
              const was = sums[at + c];
              sums[at + c] = was === was ? was + v : v;
            }
          }
        }
      }
      const l = page[page.length - 1];
      after = [l[0], l[1], l[2]];
    }
    const unused: number[] = [];
    for (let id = 1; id < size; id++) if (docs[id] === 0) unused.push(id);
    return { size, docs, occ, first, last, sums, next: 1, upto, epoch, unused };
  }
}
