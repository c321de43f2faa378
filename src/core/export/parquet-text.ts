/**
 * The Parquet export's STRING and JSON columns (docs/export.md "Parquet", Performance): values go
 * into the page as UTF-8 bytes, either from a JavaScript string (`add`) or straight from the stored
 * record's bytes (`addBytes`: issue 30, parquet-spans.ts), and the two give the same file. The
 * dictionary is keyed on the values' bytes (a hash table over the dictionary page's own bytes),
 * not on strings, so a value read from the record needs no string; min / max are bytes too
 * (UTF-8 byte order, what hyparquet-writer's comparator gave over the strings).
 *
 * A string with a lone surrogate is written as U+FFFD (as TextEncoder writes it) but stays a
 * value of its own in the dictionary, as it was when the dictionary was a Map of strings: two
 * strings that differ only there were two entries, and still are (the file does not change).
 */
import { Column } from './parquet-chunk';
import { Bytes, ENC_RLE_DICTIONARY, jsonText, PAGE_SIZE, type ChunkStatistics } from './parquet-encode';

/** byte-array columns with more distinct values than this in a group are written PLAIN */
const DICT_MAX = 4096;
/** the dictionary's hash table: twice its most keys, a power of two */
const TABLE = DICT_MAX * 2;
const LONE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function hashOf(b: Uint8Array, s: number, e: number): number {
  let h = 0x811c9dc5;
  for (let i = s; i < e; i++) h = Math.imul(h ^ b[i], 16777619);
  return h;
}

/** bytes [s, e) of `a` against the first `n` bytes of `b`, in byte order */
function compareBytes(a: Uint8Array, s: number, e: number, b: Uint8Array, n: number): number {
  const len = e - s;
  const m = len < n ? len : n;
  for (let i = 0; i < m; i++) {
    const d = a[s + i] - b[i];
    if (d !== 0) return d;
  }
  return len - n;
}

/** STRING (text, ids: numbers and flags as their text) and JSON columns: a dictionary while it pays, else PLAIN. */
export class TextColumn extends Column {
  /** a dictionary is being kept (the values so far are its indexes) */
  private dict = true;
  /** the dictionary's keys as its page holds them (4-byte length, UTF-8), in index order */
  private readonly keys = new Bytes(1 << 12);
  private keyAt = new Int32Array(DICT_MAX);
  private count = 0;
  /** key index + 1 by hash (open addressing), 0 where empty */
  private readonly table = new Int32Array(TABLE);
  /** strings already given to `add` while the dictionary lasts: their key index (also what keeps lone-surrogate strings apart) */
  private strs = new Map<string, number>();
  private idx: Uint16Array;
  private k = 0;
  /** a string's bytes before its key is known */
  private readonly scratch = new Bytes(256);
  private minB = new Uint8Array(64);
  private minLen = -1;
  private maxB = new Uint8Array(64);
  private maxLen = -1;

  constructor(
    name: string,
    capacity: number,
    stats: boolean,
    private readonly json: boolean,
  ) {
    super(name, 'BYTE_ARRAY', capacity, stats, new Bytes(1 << 16));
    this.idx = new Uint16Array(this.def.length);
  }

  protected override grow(): void {
    super.grow();
    const x = new Uint16Array(this.def.length);
    x.set(this.idx);
    this.idx = x;
  }

  override reset(): void {
    super.reset();
    if (this.count > 0 || !this.dict) this.table.fill(0);
    this.dict = true;
    this.keys.pos = 0;
    this.count = 0;
    if (this.strs.size > 0) this.strs = new Map();
    this.k = 0;
    this.minLen = this.maxLen = -1;
  }

  add(v: unknown): boolean {
    if (this.row === this.def.length) this.grow();
    if (v === null || v === undefined) return this.none();
    let s: string;
    if (this.json) s = jsonText(v);
    else if (typeof v === 'string') s = v;
    else if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') s = String(v);
    else return false;
    if (this.dict) {
      let x = this.strs.get(s);
      if (x === undefined) {
        const sc = this.scratch;
        sc.pos = 0;
        const n = sc.str(s) - 4;
        // a lone surrogate: a key of its own (its bytes are U+FFFD's), found again through `strs` only
        x = LONE.test(s) ? this.append(sc.buf, 4, 4 + n, -1) : this.lookup(sc.buf, 4, 4 + n);
        if (x >= 0) this.strs.set(s, x);
      }
      if (x >= 0) {
        this.idx[this.k++] = x;
        this.def[this.row++] = 1;
        return true;
      }
    }
    this.def[this.row++] = 1;
    const vals = this.vals;
    const at = vals.pos;
    const n = vals.str(s) - 4;
    this.placed(vals.buf, at + 4, at + 4 + n);
    return true;
  }

  /** the next row's value as its UTF-8 bytes, [s, e) of `src` (the text of a STRING, the JSON text of a JSON column) */
  addBytes(src: Uint8Array, s: number, e: number): void {
    if (this.row === this.def.length) this.grow();
    if (this.dict) {
      const x = this.lookup(src, s, e);
      if (x >= 0) {
        this.idx[this.k++] = x;
        this.def[this.row++] = 1;
        return;
      }
    }
    this.def[this.row++] = 1;
    const n = e - s;
    const vals = this.vals;
    vals.room(4 + n);
    const at = vals.pos;
    vals.dv.setUint32(at, n, true);
    const buf = vals.buf;
    if (n <= 48) for (let i = 0; i < n; i++) buf[at + 4 + i] = src[s + i];
    else buf.set(src.subarray(s, e), at + 4);
    vals.pos = at + 4 + n;
    this.placed(buf, at + 4, at + 4 + n);
  }

  /** a PLAIN value just written at [s, e) of the page: its bounds, and the page cut when full */
  private placed(buf: Uint8Array, s: number, e: number): void {
    if (this.stats) this.bound(buf, s, e);
    if (this.vals.pos >= PAGE_SIZE) this.cut(this.row);
  }

  /** the key index of these bytes, added when new; -1 when the dictionary stops paying (the column is PLAIN now) */
  private lookup(b: Uint8Array, s: number, e: number): number {
    const n = e - s;
    const keys = this.keys;
    let p = hashOf(b, s, e) & (TABLE - 1);
    for (let v = this.table[p]; v !== 0; v = this.table[p]) {
      const at = this.keyAt[v - 1];
      if (keys.dv.getUint32(at, true) === n) {
        const kb = keys.buf;
        let i = 0;
        while (i < n && kb[at + 4 + i] === b[s + i]) i++;
        if (i === n) return v - 1;
      }
      p = (p + 1) & (TABLE - 1);
    }
    return this.append(b, s, e, p);
  }

  /** a new key (at table slot `p`, -1 for none); -1 when there are too many to pay (ids, texts: known after 256 values) */
  private append(b: Uint8Array, s: number, e: number, p: number): number {
    const x = this.count;
    if (x >= DICT_MAX || (x === 256 && this.k < 512)) {
      this.toPlain();
      return -1;
    }
    const n = e - s;
    const keys = this.keys;
    keys.room(4 + n);
    const at = keys.pos;
    keys.dv.setUint32(at, n, true);
    keys.buf.set(b.subarray(s, e), at + 4);
    keys.pos = at + 4 + n;
    this.keyAt[x] = at;
    this.count = x + 1;
    if (p >= 0) this.table[p] = x + 1;
    return x;
  }

  private bound(b: Uint8Array, s: number, e: number): void {
    if (this.minLen < 0) {
      this.minLen = this.setBound(true, b, s, e);
      this.maxLen = this.setBound(false, b, s, e);
    } else if (compareBytes(b, s, e, this.minB, this.minLen) < 0) this.minLen = this.setBound(true, b, s, e);
    else if (compareBytes(b, s, e, this.maxB, this.maxLen) > 0) this.maxLen = this.setBound(false, b, s, e);
  }

  private setBound(min: boolean, b: Uint8Array, s: number, e: number): number {
    const n = e - s;
    let to = min ? this.minB : this.maxB;
    if (to.length < n) {
      to = new Uint8Array(Math.max(n, to.length * 2));
      if (min) this.minB = to;
      else this.maxB = to;
    }
    to.set(b.subarray(s, e));
    return n;
  }

  /** each key's bounds, in index order */
  private boundKeys(): void {
    const kb = this.keys;
    for (let x = 0; x < this.count; x++) {
      const at = this.keyAt[x];
      this.bound(kb.buf, at + 4, at + 4 + kb.dv.getUint32(at, true));
    }
  }

  /** leave the dictionary: the values so far are written PLAIN, in row order */
  private toPlain(): void {
    if (!this.dict) return;
    this.dict = false;
    const { idx, keyAt } = this;
    const kb = this.keys;
    const vals = this.vals;
    let j = 0;
    for (let r = 0; r < this.row; r++) {
      if (!this.def[r]) continue;
      const at = keyAt[idx[j++]];
      const size = 4 + kb.dv.getUint32(at, true);
      vals.room(size);
      vals.buf.set(kb.buf.subarray(at, at + size), vals.pos);
      vals.pos += size;
      if (vals.pos >= PAGE_SIZE) this.cut(r + 1);
    }
    if (this.stats) this.boundKeys();
    if (this.strs.size > 0) this.strs = new Map();
  }

  protected close(): void {
    if (!this.dict) return;
    const k = this.k;
    if (k < 2 || this.count * 2 > k) {
      this.toPlain();
      return;
    }
    const idx = this.idx;
    if (this.stats) this.boundKeys();
    this.writeDictionary(this.keys, this.count);
    // one data page of indexes: the bit width, then one bit-packed run
    const width = Math.max(1, 32 - Math.clz32(this.count - 1));
    const vals = this.vals;
    const groups = Math.ceil(k / 8);
    vals.byte(width);
    vals.varint(groups * 2 + 1);
    vals.room(groups * width);
    const buf = vals.buf;
    let p = vals.pos;
    let acc = 0;
    let bits = 0;
    for (let i = 0; i < k; i++) {
      acc |= idx[i] << bits;
      bits += width;
      while (bits >= 8) {
        buf[p++] = acc & 0xff;
        acc >>>= 8;
        bits -= 8;
      }
    }
    if (bits > 0) buf[p++] = acc & 0xff;
    const end = vals.pos + groups * width;
    while (p < end) buf[p++] = 0;
    vals.pos = end;
    this.pageEncoding = ENC_RLE_DICTIONARY;
    this.cut(this.row);
  }

  protected override statistics(): ChunkStatistics {
    const s = super.statistics();
    if (this.minLen < 0) return s;
    return { ...s, min_value: this.minB.slice(0, this.minLen), max_value: this.maxB.slice(0, this.maxLen) };
  }
}
