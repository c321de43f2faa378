/**
 * Column builders of a Parquet row group (docs/export.md "Parquet", Performance): each row's value
 * is typed and written at once — a string as its UTF-8 bytes, a number into a page of fixed-width
 * values, a word into a dictionary (text and JSON columns: parquet-text.ts) — so a group holds bytes, not the parsed rows' strings (these
 * die young: no group of 20,000 records' texts is promoted to the old generation). A page is cut
 * every ~1 MiB of values; `finish` appends the chunk (dictionary page first) to the group's buffer
 * and returns its metadata (parquet-encode.ts).
 */
import { Column, type ColumnBuilder } from './parquet-chunk';
import { Bytes, int64, PAGE_SIZE, PHYSICAL, type ChunkStatistics, type ParquetColumnType } from './parquet-encode';
import { TextColumn } from './parquet-text';

const ISO_TIME = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?(?:Z|[+-]\d{2}:?\d{2})?$/;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

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
          // past INT64 (|v| ≥ 2^63 ms) it does not fit: kept in `untyped`, not an error that ends the export
          if (!(Math.abs(v) < 9223372036854775808)) return false;
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
  if (type === 'STRING' || type === 'JSON') return new TextColumn(name, capacity, stats, type === 'JSON');
  if (type === 'BOOLEAN') return new BooleanColumn(name, capacity, stats);
  return new NumberColumn(name, capacity, stats, type);
}
