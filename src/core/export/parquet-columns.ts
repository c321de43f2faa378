/**
 * Column builders of a Parquet row group (docs/export.md "Parquet", Performance): each row's value
 * is typed and written at once — a string as its UTF-8 bytes, a number into a page of fixed-width
 * values, a word into a dictionary — so a group holds bytes, not the parsed rows' strings (these
 * die young: no group of 20,000 records' texts is promoted to the old generation). A page is cut
 * every ~1 MiB of values; `finish` appends the chunk (dictionary page first) to the group's buffer
 * and returns its metadata (parquet-encode.ts).
 */
import { Column, type ColumnBuilder } from './parquet-chunk';
import {
  Bytes,
  compareUtf8,
  ENC_RLE_DICTIONARY,
  int64,
  jsonText,
  PAGE_SIZE,
  PHYSICAL,
  type ChunkStatistics,
  type ParquetColumnType,
} from './parquet-encode';

/** byte-array columns with more distinct values than this in a group are written PLAIN */
const DICT_MAX = 4096;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?(?:Z|[+-]\d{2}:?\d{2})?$/;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
/** a character whose UTF-16 order differs from its UTF-8 order (surrogates and what follows them) */
const HIGH = /[\ud800-\uffff]/;

/** STRING (text, ids: numbers and flags as their text) and JSON columns: a dictionary while it pays, else PLAIN. */
class ByteArrayColumn extends Column {
  private map: Map<string, number> | null = new Map();
  private keys: string[] = [];
  private idx: Uint16Array | null;
  /** the index buffer, kept while the column goes PLAIN (for the next group) */
  private idxBuf: Uint16Array;
  private k = 0;
  /** whether min / max hold a character from U+D800 on */
  private minHigh = false;
  private maxHigh = false;

  constructor(
    name: string,
    capacity: number,
    stats: boolean,
    private readonly json: boolean,
  ) {
    super(name, 'BYTE_ARRAY', capacity, stats, new Bytes(1 << 16));
    this.idx = this.idxBuf = new Uint16Array(this.def.length);
  }

  protected override grow(): void {
    super.grow();
    const x = new Uint16Array(this.def.length);
    if (this.idx) x.set(this.idx);
    this.idxBuf = x;
    if (this.idx) this.idx = x;
  }

  override reset(): void {
    super.reset();
    this.map = new Map();
    this.keys = [];
    this.idx = this.idxBuf;
    this.k = 0;
    this.minHigh = this.maxHigh = false;
  }

  add(v: unknown): boolean {
    if (this.row === this.def.length) this.grow();
    if (v === null || v === undefined) return this.none();
    let s: string;
    if (this.json) s = jsonText(v);
    else if (typeof v === 'string') s = v;
    else if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') s = String(v);
    else return false;
    const map = this.map;
    if (map) {
      let x = map.get(s);
      if (x === undefined) {
        x = this.keys.length;
        // too many distinct values to pay (ids, texts: known after 256 values)
        if (x >= DICT_MAX || (x === 256 && this.k < 512)) this.toPlain();
        else {
          map.set(s, x);
          this.keys.push(s);
        }
      }
      // the dictionary's indexes exist exactly while it does (toPlain drops both)
      const idx = this.idx;
      if (this.map && idx) {
        idx[this.k++] = x;
        this.def[this.row++] = 1;
        return true;
      }
    }
    this.def[this.row++] = 1;
    this.plain(s);
    return true;
  }

  private plain(s: string): void {
    this.vals.str(s);
    if (this.stats) this.bound(s);
    if (this.vals.pos >= PAGE_SIZE) this.cut(this.row);
  }

  private bound(s: string): void {
    if (this.min === undefined) {
      this.min = this.max = s;
      this.minHigh = this.maxHigh = HIGH.test(s);
    } else if (s !== this.min && s !== this.max) {
      const high = HIGH.test(s);
      // below U+D800 UTF-16 order is UTF-8 order: the engine's comparison will do
      if (high || this.minHigh || this.maxHigh ? compareUtf8(s, this.min as string) < 0 : s < (this.min as string)) {
        this.min = s;
        this.minHigh = high;
      } else if (high || this.minHigh || this.maxHigh ? compareUtf8(s, this.max as string) > 0 : s > (this.max as string)) {
        this.max = s;
        this.maxHigh = high;
      }
    }
  }

  /** leave the dictionary: the values so far are written PLAIN, in row order */
  private toPlain(): void {
    const { keys, idx } = this;
    if (!idx) return; // already plain
    this.map = null;
    this.idx = null;
    let j = 0;
    for (let r = 0; r < this.row; r++) {
      if (!this.def[r]) continue;
      this.vals.str(keys[idx[j++]]);
      if (this.vals.pos >= PAGE_SIZE) this.cut(r + 1);
    }
    if (this.stats) for (const s of keys) this.bound(s);
    this.keys = [];
  }

  protected close(): void {
    if (!this.map || !this.idx) return;
    if (this.k < 2 || this.keys.length * 2 > this.k) {
      this.toPlain();
      return;
    }
    const { keys, k } = this;
    const idx = this.idx;
    if (this.stats) for (const s of keys) this.bound(s);
    this.writeDictionary(keys);
    // one data page of indexes: the bit width, then one bit-packed run
    const width = Math.max(1, 32 - Math.clz32(keys.length - 1));
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
}

type NumberKind = 'INT32' | 'INT64' | 'DOUBLE' | 'TIMESTAMP';

/** INT32, INT64, DOUBLE and TIMESTAMP (INT64 milliseconds, from a number or an ISO 8601 text) columns, PLAIN. */
class NumberColumn extends Column {
  private readonly width: number;
  constructor(
    name: string,
    capacity: number,
    stats: boolean,
    private readonly kind: NumberKind,
  ) {
    const width = kind === 'INT32' ? 4 : 8;
    super(name, PHYSICAL[kind], capacity, stats, new Bytes(Math.min(PAGE_SIZE, capacity * width) + 16));
    this.width = width;
  }

  add(v: unknown): boolean {
    if (this.row === this.def.length) this.grow();
    if (v === null || v === undefined) return this.none();
    let x: number | bigint;
    switch (this.kind) {
      case 'DOUBLE':
        if (typeof v !== 'number' || !Number.isFinite(v)) return false;
        x = v;
        break;
      case 'INT32':
        if (typeof v !== 'number' || !Number.isInteger(v) || Math.abs(v) > 0x7fffffff) return false;
        x = v;
        break;
      case 'INT64':
        if (typeof v === 'bigint') x = v;
        else if (typeof v === 'number' && Number.isSafeInteger(v)) x = v;
        else return false;
        break;
      case 'TIMESTAMP': {
        if (typeof v === 'number') {
          if (!Number.isFinite(v)) return false;
          x = Math.round(v);
        } else {
          if (typeof v !== 'string' || !ISO_TIME.test(v)) return false;
          const ms = Date.parse(DATE_ONLY.test(v) ? `${v}T00:00:00Z` : v);
          if (!Number.isFinite(ms)) return false;
          x = ms;
        }
        break;
      }
    }
    const vals = this.vals;
    vals.room(8);
    const dv = vals.dv;
    const p = vals.pos;
    if (this.kind === 'DOUBLE') dv.setFloat64(p, x as number, true);
    else if (this.kind === 'INT32') dv.setInt32(p, x as number, true);
    else if (typeof x === 'bigint' || !Number.isSafeInteger(x)) dv.setBigInt64(p, int64(x), true);
    else {
      // a safe integer as two 32-bit halves (no BigInt per value)
      const hi = Math.floor(x / 4294967296);
      dv.setUint32(p, x - hi * 4294967296, true);
      dv.setInt32(p + 4, hi, true);
    }
    vals.pos = p + this.width;
    this.def[this.row++] = 1;
    if (this.stats) {
      if (this.min === undefined || x < (this.min as number)) this.min = x;
      if (this.max === undefined || x > (this.max as number)) this.max = x;
    }
    if (vals.pos >= PAGE_SIZE) this.cut(this.row);
    return true;
  }

  protected close(): void {}

  protected override statistics(): ChunkStatistics {
    const s = super.statistics();
    if (this.kind !== 'DOUBLE') return s;
    // signed zero per the spec: a zero min is -0, a zero max +0
    if (s.min_value === 0) s.min_value = -0;
    if (s.max_value === 0) s.max_value = 0;
    return { ...s, nan_count: 0n };
  }
}

/** BOOLEAN columns, PLAIN (bit-packed), one page. */
class BooleanColumn extends Column {
  private acc = 0;
  private bits = 0;
  private trues = 0;
  private count = 0;

  constructor(name: string, capacity: number, stats: boolean) {
    super(name, 'BOOLEAN', capacity, stats, new Bytes((capacity >> 3) + 16));
  }

  override reset(): void {
    super.reset();
    this.acc = this.bits = this.trues = this.count = 0;
  }

  add(v: unknown): boolean {
    if (this.row === this.def.length) this.grow();
    if (v === null || v === undefined) return this.none();
    if (typeof v !== 'boolean') return false;
    this.def[this.row++] = 1;
    this.count++;
    if (v) {
      this.trues++;
      this.acc |= 1 << this.bits;
    }
    if (++this.bits === 8) {
      this.vals.byte(this.acc);
      this.acc = 0;
      this.bits = 0;
    }
    return true;
  }

  protected close(): void {
    if (this.bits > 0) this.vals.byte(this.acc);
    this.bits = 0;
    if (this.count > 0) {
      this.min = this.trues === this.count;
      this.max = this.trues > 0;
    }
  }
}

/** A builder of a column of this type, for about `capacity` rows (it grows past them). */
export function columnBuilder(name: string, type: ParquetColumnType, capacity: number, stats: boolean): ColumnBuilder {
  if (type === 'STRING' || type === 'JSON') return new ByteArrayColumn(name, capacity, stats, type === 'JSON');
  if (type === 'BOOLEAN') return new BooleanColumn(name, capacity, stats);
  return new NumberColumn(name, capacity, stats, type);
}
