/**
 * Frequency tables over a query's items from the term ids the analysis index keeps per item
 * (`an_item_terms`, analysis-index.ts): no tokenizing and no object per term at read time. Each
 * item's terms of one field are stored as a blob of little-endian uint32 term ids (ids of
 * `an_terms` rows), sorted, a term written twice listed twice. Counting a query walks its items'
 * blobs into typed arrays indexed by a dense slot per distinct id; only the top rows become
 * objects and only their terms are read back as text. docs/analysis.md "Performance". The rows
 * are read by the archive (term-counts.ts: `Archive.itemTermIds`, `termsById`).
 */
import type { Archive } from '../archive';
import type { TermIdsRow } from '../archive/term-counts';
import { parseQuery } from '../archive/sql-query';
import type { LibraryQuery } from '../../shared/query';
import type { TermAcc } from './frequency';

/** The blob of one item's term ids (sorted; repeats kept: a repeat is one more occurrence). */
export function encodeIds(ids: number[]): Buffer {
  ids.sort((a, b) => a - b);
  const b = Buffer.allocUnsafe(ids.length * 4);
  for (let k = 0; k < ids.length; k++) b.writeUInt32LE(ids[k], k * 4);
  return b;
}

/** Per-slot columns (one slot per distinct id): items, occurrences, first/last publication, six sums (NaN = none known). */
class Columns {
  size = 0;
  readonly ids: Uint32Array;
  readonly count: Uint32Array;
  readonly occ: Uint32Array;
  readonly first: Float64Array;
  readonly last: Float64Array;
  readonly sums: Float64Array[];

  constructor(cap: number) {
    this.ids = new Uint32Array(cap);
    this.count = new Uint32Array(cap);
    this.occ = new Uint32Array(cap);
    this.first = new Float64Array(cap).fill(NaN);
    this.last = new Float64Array(cap).fill(NaN);
    this.sums = Array.from({ length: 6 }, () => new Float64Array(cap).fill(NaN));
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
 * open-addressing table in typed arrays (a Map of numbers costs several times more at 200k ids).
 */
function countPass(archive: Archive, q: LibraryQuery, fieldNo: number): Pass {
  const rows = archive.itemTermIds(parseQuery(q), fieldNo);
  let total = 0;
  for (const r of rows) total += r[6].length >>> 2;
  // distinct ids ≤ total: the columns never grow; the table is at most half full
  const c = new Columns(Math.max(total, 1));
  let bits = 10;
  while (1 << bits < total * 2) bits++;
  const mask = (1 << bits) - 1;
  const keys = new Int32Array(1 << bits).fill(-1);
  const slots = new Uint32Array(1 << bits);
  const itemSlots = new Uint32Array(Math.max(total, 1));
  const rowEnd = new Uint32Array(rows.length);
  let n = 0;
  for (let r = 0; r < rows.length; r++) {
    const b = rows[r][6];
    let prev = -1;
    for (let off = 0; off + 4 <= b.length; off += 4) {
      const id = b.readUInt32LE(off);
      let s: number;
      if (id === prev) s = itemSlots[n - 1];
      else {
        let h = Math.imul(id, 0x9e3779b1) >>> (32 - bits);
        while (keys[h] !== -1 && keys[h] !== id) h = (h + 1) & mask;
        if (keys[h] === -1) {
          keys[h] = id;
          s = slots[h] = c.size++;
          c.ids[s] = id;
        } else s = slots[h];
      }
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

/** Pass 2: first/last publication and the sums, for the slots marked in `want` (all when null). */
function sumPass(p: Pass, want: Uint8Array | null): void {
  const { rows, c, itemSlots, rowEnd } = p;
  const vals = new Float64Array(6);
  let from = 0;
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r];
    const to = rowEnd[r];
    const pub = row[0];
    // views, likes, comments, shares, saves, engagement (null = NaN: left out of the sums)
    let eng = NaN;
    for (let k = 0; k < 5; k++) {
      const v = row[k + 1] as number | null;
      vals[k] = v === null ? NaN : v;
      if (k > 0 && v !== null) eng = (Number.isNaN(eng) ? 0 : eng) + v;
    }
    vals[5] = eng;
    for (let j = from; j < to; j++) {
      const s = itemSlots[j];
      if (want !== null && want[s] === 0) continue;
      if (pub !== null) {
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
export function tableFromIds(archive: Archive, q: LibraryQuery, fieldNo: number, sort: string, dir: 'asc' | 'desc', limit: number): { distinct: number; ranked: Array<[string, TermAcc]> } {
  const p = countPass(archive, q, fieldNo);
  const c = p.c;
  const byCounts = sort === 'count' || sort === 'occurrences' || !(sort === 'first' || sort === 'last' || sort in SUM_INDEX);
  if (!byCounts) sumPass(p, null);
  const key: Float64Array | Uint32Array = sort === 'occurrences' ? c.occ : sort === 'first' ? c.first : sort === 'last' ? c.last : sort in SUM_INDEX ? c.sums[SUM_INDEX[sort]] : c.count;
  const sign = dir === 'asc' ? 1 : -1;
  // unknown values last: the best `limit` known slots, then (when they are fewer) the unknown ones
  // with the most items; at each cut every slot tied with the last one kept stays a candidate
  const knownSlots: number[] = [];
  const unknownSlots: number[] = [];
  for (let s = 0; s < c.size; s++) (Number.isNaN(key[s]) ? unknownSlots : knownSlots).push(s);
  const cand = cut(knownSlots, key, dir, limit);
  if (knownSlots.length < limit) cand.push(...cut(unknownSlots, c.count, 'desc', limit - knownSlots.length));
  const terms = new Map<number, string>();
  for (let k = 0; k < cand.length; k += 50_000) for (const [id, term] of archive.termsById(JSON.stringify(cand.slice(k, k + 50_000).map((s) => c.ids[s])))) terms.set(id, term);
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
  if (byCounts) {
    const want = new Uint8Array(c.size);
    for (const s of top) want[s] = 1;
    sumPass(p, want);
  }
  const nul = (v: number): number | null => (Number.isNaN(v) ? null : v);
  return {
    distinct: c.size,
    ranked: top.map((s) => [term(s), { count: c.count[s], occ: c.occ[s], first: nul(c.first[s]), last: nul(c.last[s]), sums: c.sums.map((col) => nul(col[s])) }]),
  };
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
