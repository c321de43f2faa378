/**
 * Frequency tables over a query's items from the term ids the analysis index keeps per item
 * (`an_item_terms`, analysis-index.ts): no tokenizing and no object per term at read time. Each
 * item's terms of one field are stored as one blob (`encodeItemTerms`): the item's publication
 * time and five counts (six little-endian float64, NaN = unknown), then its term ids (ids of
 * `an_terms` rows) as little-endian uint32, sorted, a term written twice listed twice — one value
 * per row to read (seven columns per row cost ~40 % more to read back than this one blob).
 * Counting a query walks its items' blobs into typed arrays indexed by a dense slot per distinct
 * id; only the top rows become objects and only their terms are read back as text.
 * docs/analysis.md "Performance". The rows are read by the archive (term-counts.ts:
 * `Archive.itemTermIds`, `termsById`).
 */
import type { AnalysisTables, Archive } from '../archive';
import { dayNumber } from '../archive';
import type { TermIdsRow } from '../archive';
import { parseQuery } from '../archive';
import type { LibraryQuery } from '../../shared/query';
import type { TermAcc } from './frequency';

/** Bytes before an item's term ids: published_at, views, likes, comments, shares, saves as float64 LE (NaN = unknown). */
export const HEADER = 48;

/** The blob of one item's terms of one field: its publication time and counts (HEADER), then its term ids (sorted; repeats kept: a repeat is one more occurrence). */
export function encodeItemTerms(pub: number | null, counts: ReadonlyArray<number | null>, ids: number[]): Buffer {
  ids.sort((a, b) => a - b);
  const b = Buffer.allocUnsafe(HEADER + ids.length * 4);
  writeHeader(b, pub, counts);
  for (let k = 0; k < ids.length; k++) b.writeUInt32LE(ids[k], HEADER + k * 4);
  return b;
}

/** One item's term ids of one field, with its publication time and counts (views … saves), as its blob holds them. */
export interface ItemIds {
  field: number;
  rid: number;
  pub: number | null;
  counts: Array<number | null>;
  ids: number[];
}

/**
 * Writes new items' blobs in the table's key order (field, UTC day, rid): neighbouring rows land
 * on the same pages. Call inside a transaction.
 */
export function writeItemTerms(t: AnalysisTables, items: ItemIds[]): void {
  const put = t.itemTermsWriter();
  const keyed = items.map((it) => ({ it, day: dayNumber(it.pub) }));
  keyed.sort((a, b) => a.it.field - b.it.field || a.day - b.day || a.it.rid - b.it.rid);
  for (const { it } of keyed) put(it.field, it.rid, it.pub, encodeItemTerms(it.pub, it.counts, it.ids));
}

/** Writes (or rewrites, for an item's new counts) a blob's publication time and counts (views, likes, comments, shares, saves). */
export function writeHeader(b: Buffer, pub: number | null, counts: ReadonlyArray<number | null>): Buffer {
  b.writeDoubleLE(pub ?? NaN, 0);
  for (let k = 0; k < 5; k++) b.writeDoubleLE(counts[k] ?? NaN, 8 + k * 8);
  return b;
}

/**
 * Per-slot columns (one slot per distinct id): items, occurrences (grown while counting), then
 * first/last publication and six sums (NaN = none known), made at the final size by `dated()`.
 * Sized by the distinct ids, not by every id read (200,000 ids but ~4,000 distinct words in a
 * 10k-item query: columns of the larger size were ~20 MB to fill and collect per table).
 */
class Columns {
  size = 0;
  ids: Uint32Array;
  count: Uint32Array;
  occ: Uint32Array;
  first = new Float64Array(0);
  last = new Float64Array(0);
  sums: Float64Array[] = [];

  constructor(cap: number) {
    this.ids = new Uint32Array(cap);
    this.count = new Uint32Array(cap);
    this.occ = new Uint32Array(cap);
  }

  /** A new slot for `id`. */
  add(id: number): number {
    if (this.size === this.ids.length) {
      const grow = (a: Uint32Array): Uint32Array => {
        const b = new Uint32Array(a.length * 2);
        b.set(a);
        return b;
      };
      this.ids = grow(this.ids);
      this.count = grow(this.count);
      this.occ = grow(this.occ);
    }
    this.ids[this.size] = id;
    return this.size++;
  }

  /** The date and sum columns, `n` entries (every one unknown). */
  dated(n: number): void {
    this.first = new Float64Array(n).fill(NaN);
    this.last = new Float64Array(n).fill(NaN);
    this.sums = Array.from({ length: 6 }, () => new Float64Array(n).fill(NaN));
  }
}

/** Whether a Uint32Array over a blob reads its ids as written (little-endian uint32). */
const LE = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/**
 * An open-addressing table id → slot in typed arrays (a Map of numbers costs several times more
 * at 200k ids); starts at about the number of ids to be read (rarely outgrown: most ids repeat),
 * grows at half full.
 */
class SlotTable {
  private bits: number;
  private keys: Int32Array;
  private slots: Uint32Array;
  private used = 0;

  constructor(
    private readonly c: Columns,
    ids: number,
  ) {
    this.bits = Math.min(22, Math.max(12, Math.ceil(Math.log2(Math.max(ids, 1)))));
    this.keys = new Int32Array(1 << this.bits).fill(-1);
    this.slots = new Uint32Array(1 << this.bits);
  }

  slot(id: number): number {
    const keys = this.keys;
    const mask = keys.length - 1;
    let h = Math.imul(id, 0x9e3779b1) >>> (32 - this.bits);
    while (keys[h] !== -1) {
      if (keys[h] === id) return this.slots[h];
      h = (h + 1) & mask;
    }
    const s = this.c.add(id);
    keys[h] = id;
    this.slots[h] = s;
    if (++this.used * 2 > keys.length) this.grow();
    return s;
  }

  private grow(): void {
    const { keys, slots } = this;
    this.bits++;
    this.keys = new Int32Array(1 << this.bits).fill(-1);
    this.slots = new Uint32Array(1 << this.bits);
    const mask = this.keys.length - 1;
    for (let k = 0; k < keys.length; k++) {
      if (keys[k] === -1) continue;
      let h = Math.imul(keys[k], 0x9e3779b1) >>> (32 - this.bits);
      while (this.keys[h] !== -1) h = (h + 1) & mask;
      this.keys[h] = keys[k];
      this.slots[h] = slots[k];
    }
  }
}

type Row = TermIdsRow;

/** The items a query matches with their term ids of one field, counted per slot (items, occurrences). */
interface Pass {
  rows: Row[];
  c: Columns;
  /** the slot of every distinct id of every row, row after row (rowEnd[r] = end of row r) */
  itemSlots: Uint32Array;
  rowEnd: Uint32Array;
}

/**
 * Pass 1: reads the matching items' blobs with one `all()` (better-sqlite3's row iterator costs
 * ~3× more per row) and counts items and occurrences per id; ids find their slot through an
 * open-addressing table in typed arrays (SlotTable).
 */
function countPass(archive: Archive, q: LibraryQuery, fieldNo: number): Pass {
  const rows = archive.itemTermIds(parseQuery(q), fieldNo);
  let total = 0;
  for (const r of rows) total += (r.length - HEADER) >>> 2;
  const c = new Columns(1024);
  const table = new SlotTable(c, total);
  const itemSlots = new Uint32Array(Math.max(total, 1));
  const rowEnd = new Uint32Array(rows.length);
  let n = 0;
  for (let r = 0; r < rows.length; r++) {
    const b = rows[r];
    const len = (b.length - HEADER) >>> 2;
    // the blob's ids in place when aligned (a view, no copy), else read one by one
    const u32 = LE && b.byteOffset % 4 === 0 ? new Uint32Array(b.buffer, b.byteOffset + HEADER, len) : null;
    let prev = -1;
    for (let k = 0; k < len; k++) {
      const id = u32 !== null ? u32[k] : b.readUInt32LE(HEADER + k * 4);
      const s = id === prev ? itemSlots[n - 1] : table.slot(id);
      c.occ[s]++;
      if (id === prev) continue;
      prev = id;
      c.count[s]++;
      itemSlots[n++] = s;
    }
    rowEnd[r] = n;
  }
  return { rows, c, itemSlots, rowEnd };
}

/**
 * Pass 2: first/last publication and the sums of every slot (`want` null: date and sum column
 * entry s is slot s), or of the `n` slots `want` maps to an entry (-1: not wanted).
 */
function sumPass(p: Pass, want: Int32Array | null, n: number): void {
  const { rows, c, itemSlots, rowEnd } = p;
  c.dated(n);
  const vals = new Float64Array(6);
  let from = 0;
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r];
    const to = rowEnd[r];
    const pub = row.readDoubleLE(0);
    // views, likes, comments, shares, saves, engagement (NaN = unknown: left out of the sums)
    let eng = NaN;
    for (let k = 0; k < 5; k++) {
      const v = row.readDoubleLE(8 + k * 8);
      vals[k] = v;
      if (k > 0 && !Number.isNaN(v)) eng = (Number.isNaN(eng) ? 0 : eng) + v;
    }
    vals[5] = eng;
    for (let j = from; j < to; j++) {
      const s = want === null ? itemSlots[j] : want[itemSlots[j]];
      if (s < 0) continue;
      if (!Number.isNaN(pub)) {
        if (!(c.first[s] <= pub)) c.first[s] = pub;
        if (!(c.last[s] >= pub)) c.last[s] = pub;
      }
      for (let k = 0; k < 6; k++) {
        const v = vals[k];
        if (!Number.isNaN(v)) c.sums[k][s] = Number.isNaN(c.sums[k][s]) ? v : c.sums[k][s] + v;
      }
    }
    from = to;
  }
}

const SUM_INDEX: Record<string, number> = { views: 0, likes: 1, comments: 2, shares: 3, saves: 4, engagement: 5 };

/**
 * A field's table over the items `q` matches: the top `limit` terms by `sort` (unknown values
 * last in both directions; ties: more items first, then the term) and how many distinct terms.
 * Ordered by items or occurrences, the dates and sums are added up only for the candidates.
 */
export function tableFromIds(
  archive: Archive,
  q: LibraryQuery,
  fieldNo: number,
  sort: string,
  dir: 'asc' | 'desc',
  limit: number,
): { distinct: number; ranked: Array<[string, TermAcc]> } {
  const p = countPass(archive, q, fieldNo);
  const c = p.c;
  const byCounts = sort === 'count' || sort === 'occurrences' || !(sort === 'first' || sort === 'last' || sort in SUM_INDEX);
  if (!byCounts) sumPass(p, null, c.size);
  const key: Float64Array | Uint32Array =
    sort === 'occurrences'
      ? c.occ
      : sort === 'first'
        ? c.first
        : sort === 'last'
          ? c.last
          : sort in SUM_INDEX
            ? c.sums[SUM_INDEX[sort]]
            : c.count;
  const sign = dir === 'asc' ? 1 : -1;
  // unknown values last: the best `limit` known slots, then (when they are fewer) the unknown ones
  // with the most items; at each cut every slot tied with the last one kept stays a candidate
  let cand: number[];
  if (byCounts) cand = cutCounts(key as Uint32Array, c.size, dir, limit);
  else {
    const knownSlots: number[] = [];
    const unknownSlots: number[] = [];
    for (let s = 0; s < c.size; s++) (Number.isNaN(key[s]) ? unknownSlots : knownSlots).push(s);
    cand = cut(knownSlots, key, dir, limit);
    if (knownSlots.length < limit) cand.push(...cut(unknownSlots, c.count, 'desc', limit - knownSlots.length));
  }
  const terms = new Map<number, string>();
  for (let k = 0; k < cand.length; k += 50_000)
    for (const [id, term] of archive.termsById(JSON.stringify(cand.slice(k, k + 50_000).map((s) => c.ids[s])))) terms.set(id, term);
  const term = (s: number): string => terms.get(c.ids[s]) ?? '';
  cand.sort((a, b) => {
    const x = key[a];
    const y = key[b];
    if (x !== y && !(Number.isNaN(x) && Number.isNaN(y))) {
      if (Number.isNaN(x)) return 1;
      if (Number.isNaN(y)) return -1;
      return sign * (x - y);
    }
    const ta = term(a);
    const tb = term(b);
    return c.count[b] - c.count[a] || (ta < tb ? -1 : ta > tb ? 1 : 0);
  });
  const top = cand.slice(0, limit);
  // ordered by counts, the dates and sums of the top slots only: entry k of those columns is top[k]
  const at = (s: number, k: number): number => (byCounts ? k : s);
  if (byCounts) {
    const want = new Int32Array(c.size).fill(-1);
    top.forEach((s, k) => (want[s] = k));
    sumPass(p, want, top.length);
  }
  const nul = (v: number): number | null => (Number.isNaN(v) ? null : v);
  return {
    distinct: c.size,
    ranked: top.map((s, k) => [
      term(s),
      {
        count: c.count[s],
        occ: c.occ[s],
        first: nul(c.first[at(s, k)]),
        last: nul(c.last[at(s, k)]),
        sums: c.sums.map((col) => nul(col[at(s, k)])),
      },
    ]),
  };
}

/** Items or occurrences (never unknown): the slots at least as good as the m-th best (ties at the cut included), without a list of every slot. */
function cutCounts(arr: Uint32Array, size: number, dir: 'asc' | 'desc', m: number): number[] {
  const out: number[] = [];
  if (size <= m) {
    for (let s = 0; s < size; s++) out.push(s);
    return out;
  }
  if (m <= 0) return out;
  const v = new Float64Array(size);
  for (let s = 0; s < size; s++) v[s] = arr[s];
  const bound = select(v, dir === 'desc' ? size - m : m - 1);
  for (let s = 0; s < size; s++) if (dir === 'desc' ? arr[s] >= bound : arr[s] <= bound) out.push(s);
  return out;
}

/** The slots whose value is at least as good as the m-th best (ties at the cut included). */
function cut(slots: number[], arr: Float64Array | Uint32Array, dir: 'asc' | 'desc', m: number): number[] {
  if (slots.length <= m) return slots;
  if (m <= 0) return [];
  const v = Float64Array.from(slots, (s) => arr[s]);
  const bound = select(v, dir === 'desc' ? v.length - m : m - 1);
  return slots.filter((s) => (dir === 'desc' ? arr[s] >= bound : arr[s] <= bound));
}

/** The value that would be at index `k` were `a` sorted ascending (quickselect; reorders `a`). */
function select(a: Float64Array, k: number): number {
  let lo = 0;
  let hi = a.length - 1;
  while (lo < hi) {
    const pivot = a[(lo + hi) >>> 1];
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (a[i] < pivot) i++;
      while (a[j] > pivot) j--;
      if (i <= j) {
        const t = a[i];
        a[i] = a[j];
        a[j] = t;
        i++;
        j--;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return a[k];
  }
  return a[k];
}
