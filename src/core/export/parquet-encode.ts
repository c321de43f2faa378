/**
 * The byte-level pieces of the Parquet export's encoder (docs/export.md "Parquet"): a growing byte
 * buffer, page headers in the Thrift compact protocol, RLE / bit-packed definition levels, the
 * UTF-8 order of strings for statistics, and the column chunk metadata in the shape
 * hyparquet-writer's file writer serialises in the footer (ParquetWriter 0.17: `ColumnChunk`,
 * offset indexes), so the file writer, the footer and the page indexes stay hyparquet-writer's
 * while the per-value work is ours (parquet-columns.ts).
 *
 * Only what the export's columns need: optional (nullable) flat columns, data pages v1 (every
 * reader knows them), PLAIN values (BYTE_ARRAY UTF-8 / JSON, INT32, INT64, DOUBLE, BOOLEAN,
 * TIMESTAMP_MILLIS as INT64, annotated as UTC), dictionary pages + RLE_DICTIONARY indexes, every
 * page Snappy-compressed (snappy.ts).
 *
 * Why not hyparquet-writer's own column writer: it boxes every value through generic paths (a
 * UTF-8 array per string, BigInt per INT64, a slow Snappy, statistics through a generic
 * comparator), ~2× the CSV export's CPU per row.
 */
import { toJson } from 'hyparquet';

export type ParquetColumnType = 'STRING' | 'TIMESTAMP' | 'INT64' | 'INT32' | 'DOUBLE' | 'BOOLEAN' | 'JSON';

/** the values of a page, in bytes, before the next page starts (hyparquet-writer's default) */
export const PAGE_SIZE = 1 << 20;

export type Physical = 'BYTE_ARRAY' | 'INT64' | 'INT32' | 'DOUBLE' | 'BOOLEAN';
export const PHYSICAL: Record<ParquetColumnType, Physical> = {
  STRING: 'BYTE_ARRAY',
  JSON: 'BYTE_ARRAY',
  TIMESTAMP: 'INT64',
  INT64: 'INT64',
  INT32: 'INT32',
  DOUBLE: 'DOUBLE',
  BOOLEAN: 'BOOLEAN',
};

/** Thrift enum values (parquet.thrift) */
export const PAGE_DATA = 0;
export const PAGE_DICTIONARY = 2;
export const ENC_PLAIN = 0;
const ENC_RLE = 3;
export const ENC_RLE_DICTIONARY = 8;

export interface ChunkStatistics {
  min_value?: unknown;
  max_value?: unknown;
  null_count: bigint;
  nan_count?: bigint;
}

/** A column chunk's metadata, as hyparquet-writer's `writeMetadata` reads it. */
export interface ChunkMeta {
  file_offset: bigint;
  meta_data: {
    type: Physical;
    encodings: string[];
    path_in_schema: string[];
    codec: 'UNCOMPRESSED' | 'SNAPPY';
    num_values: bigint;
    total_compressed_size: bigint;
    total_uncompressed_size: bigint;
    data_page_offset: bigint;
    dictionary_page_offset?: bigint;
    index_page_offset?: bigint;
    statistics?: ChunkStatistics;
    encoding_stats: Array<{ page_type: string; encoding: string; count: number }>;
  };
}

export interface PageLocation {
  offset: bigint;
  compressed_page_size: number;
  first_row_index: bigint;
}

/** A chunk of several pages: its offset index (hyparquet-writer's `pendingIndexes` entry). */
export interface ChunkIndex {
  chunk: ChunkMeta;
  offsetIndex: { page_locations: PageLocation[] };
}

/** A growing byte buffer: the row group's bytes, or a page's values before its header is known. */
export class Bytes {
  buf: Buffer;
  dv: DataView;
  pos = 0;
  /** a new buffer of `size` bytes, or over these bytes */
  constructor(size: number | Uint8Array) {
    this.buf = typeof size === 'number' ? Buffer.allocUnsafe(size) : Buffer.from(size.buffer, size.byteOffset, size.byteLength);
    this.dv = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength);
  }
  /** room for `n` more bytes */
  room(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const b = Buffer.allocUnsafe(size);
    this.buf.copy(b, 0, 0, this.pos);
    this.buf = b;
    this.dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
  }
  byte(v: number): void {
    this.room(1);
    this.buf[this.pos++] = v;
  }
  varint(v: number): void {
    this.room(10);
    while (v > 0x7f) {
      this.buf[this.pos++] = (v & 0x7f) | 0x80;
      v = Math.floor(v / 128);
    }
    this.buf[this.pos++] = v;
  }
  u32(v: number): void {
    this.room(4);
    this.dv.setUint32(this.pos, v, true);
    this.pos += 4;
  }
  append(src: Bytes): void {
    this.room(src.pos);
    src.buf.copy(this.buf, this.pos, 0, src.pos);
    this.pos += src.pos;
  }
  /** a string as PLAIN BYTE_ARRAY: 4-byte length, UTF-8 (lone surrogates as U+FFFD, as TextEncoder) */
  str(s: string): number {
    this.room(4 + 3 * s.length);
    const n = this.buf.write(s, this.pos + 4);
    this.dv.setUint32(this.pos, n, true);
    this.pos += 4 + n;
    return n + 4;
  }
}

/** Thrift compact protocol: a field header, an i32 (zigzag varint) */
function fieldI32(b: Bytes, delta: number, v: number): void {
  b.byte((delta << 4) | 5);
  b.varint(v >= 0 ? v * 2 : -v * 2 - 1);
}

export function pageHeader(b: Bytes, type: number, size: number, numValues: number, encoding: number, compressedSize = size): void {
  fieldI32(b, 1, type);
  fieldI32(b, 1, size); // uncompressed_page_size
  fieldI32(b, 1, compressedSize); // compressed_page_size
  if (type === PAGE_DATA) {
    b.byte((2 << 4) | 12); // field 5: data_page_header
    fieldI32(b, 1, numValues);
    fieldI32(b, 1, encoding);
    fieldI32(b, 1, ENC_RLE); // definition levels
    fieldI32(b, 1, ENC_RLE); // repetition levels (none: the column is flat)
    b.byte(0);
  } else {
    b.byte((4 << 4) | 12); // field 7: dictionary_page_header
    fieldI32(b, 1, numValues);
    fieldI32(b, 1, encoding);
    b.byte(0);
  }
  b.byte(0);
}

/** Definition levels (bit width 1) of rows [from, to) as the RLE / bit-packed hybrid, with a v1 page's 4-byte length. */
export function writeLevels(b: Bytes, def: Uint8Array, from: number, to: number, nulls: number): void {
  const count = to - from;
  const at = b.pos;
  b.u32(0);
  if (nulls === 0 || nulls === count) {
    b.varint(count * 2); // one RLE run
    b.byte(nulls === 0 ? 1 : 0);
  } else {
    const groups = Math.ceil(count / 8);
    b.varint(groups * 2 + 1); // one bit-packed run, padded to a multiple of 8 values
    b.room(groups);
    const buf = b.buf;
    let p = b.pos;
    for (let i = from; i < to; i += 8) {
      let v = 0;
      const end = Math.min(to, i + 8);
      for (let j = i; j < end; j++) v |= def[j] << (j - i);
      buf[p++] = v;
    }
    b.pos = p;
  }
  b.dv.setUint32(at, b.pos - at - 4, true);
}

/** UTF-8 byte order (code point order) of two strings, as hyparquet-writer compares them for statistics. */
export function compareUtf8(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  if (i === n) return a.length - b.length;
  const x = a.charCodeAt(i);
  const y = b.charCodeAt(i);
  // below the surrogates UTF-16 order is code point order
  if (x < 0xd800 && y < 0xd800) return x - y;
  if (i > 0) {
    const prev = a.charCodeAt(i - 1);
    if (prev >= 0xd800 && prev <= 0xdbff) i--;
  }
  while (i < a.length && i < b.length) {
    const p = codePoint(a, i);
    const q = codePoint(b, i);
    if (p !== q) return p - q;
    i += p > 0xffff ? 2 : 1;
  }
  return a.length - b.length;
}

function codePoint(s: string, i: number): number {
  const c = s.codePointAt(i) ?? 0xfffd;
  return c >= 0xd800 && c <= 0xdfff ? 0xfffd : c;
}

/** A JSON column's text: JSON.stringify, through hyparquet's toJson where plain JSON cannot hold the value (a BigInt). */
export function jsonText(v: unknown): string {
  try {
    return JSON.stringify(v);
  } catch {
    return JSON.stringify(toJson(v));
  }
}

/** An INT64 value beyond the fast path (a BigInt, a time past 2^53 ms), range-checked as hyparquet-writer does. */
export function int64(v: number | bigint): bigint {
  const b = BigInt(v);
  if (BigInt.asIntN(64, b) !== b) throw new RangeError(`parquet INT64 value out of range: ${b}`);
  return b;
}
