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
import { extractTerms, extractTermsPaired, type TermField, type TermsOf } from '../text';
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
 * (word id, word id) → bigram id: open addressing in typed arrays (ids are ≥ 1: 0 marks a free
 * slot). A Map keyed by the bigrams' texts held millions of strings (2.2 million distinct bigrams
 * at 200k posts, ~2 GB at 1M with the rest of the build) and hashed a new string per bigram.
 */
class PairTable {
  private bits = 16;
  /** slot h at 4h: x, y, id (0: free), unused — one cache line a probe */
  private s = new Uint32Array(4 << 16);
  private used = 0;

  private slot(x: number, y: number): number {
    const s = this.s;
    const mask = (1 << this.bits) - 1;
    let h = Math.imul(x ^ Math.imul(y, 0x85ebca6b), 0x9e3779b1) >>> (32 - this.bits);
    while (s[4 * h + 2] !== 0 && (s[4 * h] !== x || s[4 * h + 1] !== y)) h = (h + 1) & mask;
    return 4 * h;
  }

  /** The bigram id of words x then y; 0 when none. */
  get(x: number, y: number): number {
    return this.s[this.slot(x, y) + 2];
  }

  set(x: number, y: number, id: number): void {
    const at = this.slot(x, y);
    if (this.s[at + 2] === 0) this.used++;
    this.s[at] = x;
    this.s[at + 1] = y;
    this.s[at + 2] = id;
    if (this.used * 10 > 7 << this.bits) this.grow();
  }

  private grow(): void {
    const old = this.s;
    this.bits++;
    this.s = new Uint32Array(4 << this.bits);
    for (let k = 0; k < old.length; k += 4)
      if (old[k + 2] !== 0) {
        const at = this.slot(old[k], old[k + 1]);
        this.s[at] = old[k];
        this.s[at + 1] = old[k + 1];
        this.s[at + 2] = old[k + 2];
      }
  }
}

/** A word a bigram's id may be made from: its bigrams' texts split back into it (one space between the two words, nothing that reads back otherwise). */
const pairable = (word: string): boolean => !word.includes(' ') && !word.includes('\uFFFD') && !LONE_SURROGATE.test(word);

/**
 * term → id of every an_terms row, per field, and the new terms of the chunk under way (appended
 * by `flush`, ids consecutive per field). Keyed by the JS string the tokenizer gives, as the
 * incremental path's (field, term) key tells terms apart; a term with a lone surrogate does not
 * read back from the archive as it was written, so those rows, when read back, are kept apart
 * (`unsure`) and such a term is looked for among them in SQL.
 *
 * A bigram of two pairable words is keyed by its words' ids instead (`pairs`): its text is made
 * only when it is new. Such a bigram's text has exactly one space, no U+FFFD and no lone
 * surrogate, and every other bigram's text has not, so a stored bigram read back goes to the same
 * table a lookup of it would (its words have smaller ids: they are read back before it; one whose
 * words are not found, which the build never writes, is kept by text in `orphans`).
 */
class Dictionary {
  private readonly maps: Array<Map<string, number>>;
  last = 0;
  private readonly unsure: number[] = [];
  private pending: { field: number; first: number; terms: string[] } | null = null;
  private readonly pairs = new PairTable();
  /** ids of words a bigram's id is not made from (see pairable) */
  private readonly unpaired = new Set<number>();
  private readonly orphans = new Map<string, number>();

  constructor(
    fields: number,
    private readonly t: AnalysisTables,
    /** the field numbers of words and bigrams (0: bigrams by text only) */
    private readonly words = 0,
    private readonly bigrams = 0,
  ) {
    this.maps = Array.from({ length: (fields + 1) * SHARDS }, () => new Map());
  }

  /** Takes in a stored row. */
  load(id: number, field: number, term: string): void {
    if (id > this.last) this.last = id;
    if (field === this.bigrams && this.bigrams !== 0 && !term.includes('\uFFFD')) {
      const sp = term.indexOf(' ');
      if (sp >= 0 && term.indexOf(' ', sp + 1) < 0) {
        const wm = (w: string): number | undefined => this.maps[this.words * SHARDS + (w.length % SHARDS)].get(w);
        const x = wm(term.slice(0, sp));
        const y = wm(term.slice(sp + 1));
        if (x !== undefined && y !== undefined) this.pairs.set(x, y, id);
        else this.orphans.set(term, id);
        return;
      }
    }
    if (term.includes('\uFFFD')) this.unsure.push(id);
    if (field === this.words && !pairable(term)) this.unpaired.add(id);
    this.maps[field * SHARDS + (term.length % SHARDS)].set(term, id);
  }

  id(field: number, term: string): number {
    const m = this.maps[field * SHARDS + (term.length % SHARDS)];
    let id = m.get(term);
    if (id !== undefined) return id;
    const whole = !LONE_SURROGATE.test(term);
    if (!whole && this.unsure.length > 0) id = this.t.termAmong(this.unsure, field, term);
    if (id === undefined) {
      // a copy of its own: a term cut from a text (or two words joined) would keep the whole text alive
      const own = whole ? Buffer.from(term, 'utf8').toString('utf8') : term;
      id = this.append(field, own);
      m.set(own, id);
    } else m.set(term, id);
    if (field === this.words && !pairable(term)) this.unpaired.add(id);
    return id;
  }

  /**
   * The id of the bigram of words `words[k]` and `words[k + 1]`, whose ids are `x` and `y` (ids of
   * field `words`): by the two ids when both words are pairable, else by its text.
   */
  pair(x: number, y: number, words: readonly string[], k: number): number {
    if (this.unpaired.size > 0 && (this.unpaired.has(x) || this.unpaired.has(y)))
      return this.id(this.bigrams, `${words[k]} ${words[k + 1]}`);
    let id = this.pairs.get(x, y);
    if (id !== 0) return id;
    // new: its text goes to an_terms only (the pending list is let go at the flush)
    const term = `${words[k]} ${words[k + 1]}`;
    id = this.orphans.size > 0 ? (this.orphans.get(term) ?? 0) : 0;
    if (id === 0) id = this.append(this.bigrams, term);
    this.pairs.set(x, y, id);
    return id;
  }

  /** A new term's id (the next one), its row appended with the chunk's others of its field. */
  private append(field: number, term: string): number {
    const id = ++this.last;
    if (this.pending?.field !== field) {
      this.flush();
      this.pending = { field, first: id, terms: [] };
    }
    this.pending.terms.push(term);
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
    // bigrams by their words' ids when the words come first (their ids are then known)
    const wordsAt = this.fields.indexOf('words');
    const bigramsAt = this.fields.indexOf('bigrams');
    const paired = wordsAt >= 0 && bigramsAt > wordsAt;
    // the dictionary is what an_terms holds: another connection may have added terms, or a
    // transaction that added some here may have been rolled back
    const max = this.t.maxTermId();
    if (this.dict === null || this.dict.last !== max) {
      const d = paired
        ? new Dictionary(this.fields.length, this.t, wordsAt + 1, bigramsAt + 1)
        : new Dictionary(this.fields.length, this.t);
      this.t.eachTerm(0, (id, field, term) => d.load(id, field, term));
      this.dict = d;
    }
    const d = this.dict;
    const items: Array<{ r: IndexItemRow; terms: TermsOf; counts: Array<number | null>; pairs: number[]; wordIds: number[] }> = [];
    for (const r of rows)
      if (r[0] > after && r[1] !== null) {
        const pairs: number[] = [];
        const terms = paired ? extractTermsPaired(r[1], r[2], this.fields, pairs) : extractTerms(r[1], r[2], this.fields);
        items.push({ r, terms, counts: [r[4], r[5], r[6], r[7], r[8]], pairs, wordIds: [] });
      }
    const out: ItemIds[] = [];
    // field by field: a field's new terms get consecutive ids, appended in one statement
    for (let f = 0; f < this.fields.length; f++) {
      const no = f + 1;
      for (const it of items) {
        const { r, terms, counts } = it;
        if (paired && f === bigramsAt) {
          if (it.pairs.length === 0) continue;
          const w = it.wordIds;
          const ids = new Array<number>(it.pairs.length);
          for (let k = 0; k < it.pairs.length; k++) {
            const p = it.pairs[k];
            ids[k] = d.pair(w[p], w[p + 1], terms.words, p);
          }
          out.push({ field: no, rid: r[0], pub: r[3], counts, ids });
          continue;
        }
        const list = terms[this.fields[f]];
        if (list.length === 0) continue;
        const ids = new Array<number>(list.length);
        for (let k = 0; k < list.length; k++) ids[k] = d.id(no, list[k]);
        // in text order: the bigrams' pairs point into them (writeItemTerms sorts them later)
        if (paired && f === wordsAt) it.wordIds = ids;
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
