/**
 * The column-chunk encoder of the Parquet export (docs/export.md "Parquet", Performance): one
 * typed column of a row group → its pages, written into the group's buffer, and the chunk's
 * metadata in the shape hyparquet-writer's file writer serialises in the footer (ParquetWriter
 * 0.17: `ColumnChunk`, offset indexes), so the file writer, the footer and the page indexes stay
 * hyparquet-writer's while the per-value work is ours.
 *
 * Only what the export's columns need: optional (nullable) flat columns, data pages v1 (every
 * reader knows them) with RLE / bit-packed definition levels, PLAIN values (BYTE_ARRAY UTF-8 / JSON,
 * INT32, INT64, DOUBLE, BOOLEAN, TIMESTAMP_MILLIS as INT64), a dictionary page + RLE_DICTIONARY
 * indexes for byte-array columns with few distinct values, uncompressed. Pages hold ~1 MiB of
 * values; a chunk of several pages gets an offset index. Min / max statistics as hyparquet-writer
 * computes them (strings in UTF-8 byte order, -0 / +0 for zero bounds of doubles).
 *
 * Why not hyparquet-writer's own column writer: it boxes every value through generic paths (a
 * UTF-8 array per string, BigInt per INT64, Snappy in JavaScript, statistics through a generic
 * comparator), ~2× the CSV export's CPU per row; this encoder writes straight into one buffer.
 */
import { toJson } from 'hyparquet';

export type ParquetColumnType = 'STRING' | 'TIMESTAMP' | 'INT64' | 'INT32' | 'DOUBLE' | 'BOOLEAN' | 'JSON';

/** the values of a page, in bytes, before the next page starts (hyparquet-writer's default) */
export const PAGE_SIZE = 1 << 20;
/** byte-array columns with more distinct values than this in a group are written PLAIN */
const DICT_MAX = 4096;

type Physical = 'BYTE_ARRAY' | 'INT64' | 'INT32' | 'DOUBLE' | 'BOOLEAN';
const PHYSICAL: Record<ParquetColumnType, Physical> = { STRING: 'BYTE_ARRAY', JSON: 'BYTE_ARRAY', TIMESTAMP: 'INT64', INT64: 'INT64', INT32: 'INT32', DOUBLE: 'DOUBLE', BOOLEAN: 'BOOLEAN' };

/** Thrift enum values (parquet.thrift) */
const PAGE_DATA = 0;
const PAGE_DICTIONARY = 2;
const ENC_PLAIN = 0;
const ENC_RLE = 3;
const ENC_RLE_DICTIONARY = 8;

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
    codec: 'UNCOMPRESSED';
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
  constructor(size: number) {
    this.buf = Buffer.allocUnsafe(size);
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

function pageHeader(b: Bytes, type: number, size: number, numValues: number, encoding: number): void {
  fieldI32(b, 1, type);
  fieldI32(b, 1, size); // uncompressed_page_size
  fieldI32(b, 1, size); // compressed_page_size
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
function writeLevels(b: Bytes, def: Uint8Array, from: number, to: number, nulls: number): void {
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
function jsonText(v: unknown): string {
  try {
    return JSON.stringify(v);
  } catch {
    return JSON.stringify(toJson(v));
  }
}

/** Pages of one column chunk being written: each page's values go to `vals`, then header + levels + values to `out`. */
class PageSink {
  readonly locations: PageLocation[] = [];
  pages = 0;
  uncompressed = 0;
  constructor(
    private readonly out: Bytes,
    private readonly base: number,
    private readonly def: Uint8Array,
    private readonly encoding: number,
    readonly vals: Bytes,
  ) {}
  /** the page of rows [from, to), whose values are in `vals` */
  flush(from: number, to: number, nulls: number): void {
    const { out, vals } = this;
    const levels = new Bytes(16 + ((to - from) >> 3));
    writeLevels(levels, this.def, from, to, nulls);
    const size = levels.pos + vals.pos;
    const at = out.pos;
    pageHeader(out, PAGE_DATA, size, to - from, this.encoding);
    out.append(levels);
    out.append(vals);
    this.locations.push({ offset: BigInt(this.base + at), compressed_page_size: out.pos - at, first_row_index: BigInt(from) });
    this.uncompressed += out.pos - at;
    this.pages++;
    vals.pos = 0;
  }
}

/** a page's scratch buffer, reused for every page of every column */
const scratch = new Bytes(PAGE_SIZE + (1 << 16));

/**
 * Write one column of a row group (`values[0..n)`, null where there is no value; strings for
 * STRING, any JSON value for JSON, numbers for the numeric types, numbers or BigInts for INT64)
 * into `out`, whose byte 0 lies at file offset `base`. Returns the chunk's metadata, and its offset
 * index when it has several pages.
 */
export function encodeColumn(out: Bytes, base: number, name: string, type: ParquetColumnType, values: readonly unknown[], n: number, stats: boolean): { chunk: ChunkMeta; index?: ChunkIndex } {
  const physical = PHYSICAL[type];
  const start = out.pos;
  const def = new Uint8Array(n);
  let nulls = 0;
  for (let i = 0; i < n; i++) {
    if (values[i] === null || values[i] === undefined) nulls++;
    else def[i] = 1;
  }
  let strs: string[] | null = null;
  if (type === 'JSON') {
    strs = new Array<string>(n);
    for (let i = 0; i < n; i++) if (def[i]) strs[i] = jsonText(values[i]);
  } else if (type === 'STRING') strs = values as string[];

  const encodings: string[] = [];
  const encodingStats: ChunkMeta['meta_data']['encoding_stats'] = [];
  let dictionaryOffset: bigint | undefined;
  let uncompressed = 0;
  let statistics: ChunkStatistics | undefined;
  let sink: PageSink;
  scratch.pos = 0;

  const dict = strs && n - nulls > 1 ? dictionary(strs, def, n) : null;
  if (dict) {
    // dictionary page: the distinct strings, PLAIN
    const at = out.pos;
    for (const s of dict.keys) scratch.str(s);
    pageHeader(out, PAGE_DICTIONARY, scratch.pos, dict.keys.length, ENC_PLAIN);
    out.append(scratch);
    scratch.pos = 0;
    dictionaryOffset = BigInt(base + at);
    uncompressed += out.pos - at;
    encodingStats.push({ page_type: 'DICTIONARY_PAGE', encoding: 'PLAIN', count: 1 });
    encodings.push('PLAIN', 'RLE', 'RLE_DICTIONARY');
    if (stats) statistics = stringStats(dict.keys, nulls);
    // one data page of indexes: the bit width, then one bit-packed run
    const width = Math.max(1, 32 - Math.clz32(dict.keys.length - 1));
    sink = new PageSink(out, base, def, ENC_RLE_DICTIONARY, scratch);
    const idx = dict.indexes;
    const count = idx.length;
    const groups = Math.ceil(count / 8);
    scratch.byte(width);
    scratch.varint(groups * 2 + 1);
    scratch.room(groups * width);
    const buf = scratch.buf;
    let p = scratch.pos;
    let acc = 0;
    let bits = 0;
    for (let i = 0; i < count; i++) {
      acc |= idx[i] << bits;
      bits += width;
      while (bits >= 8) {
        buf[p++] = acc & 0xff;
        acc >>>= 8;
        bits -= 8;
      }
    }
    if (bits > 0) buf[p++] = acc & 0xff;
    const end = scratch.pos + groups * width;
    while (p < end) buf[p++] = 0;
    scratch.pos = end;
    sink.flush(0, n, nulls);
  } else {
    encodings.push('PLAIN', 'RLE');
    sink = new PageSink(out, base, def, ENC_PLAIN, scratch);
    if (strs) statistics = plainStrings(sink, strs, def, n, stats);
    else if (physical === 'BOOLEAN') statistics = plainBooleans(sink, values as boolean[], def, n, stats);
    else statistics = plainNumbers(sink, physical, values as number[], def, n, stats);
    if (statistics) statistics.null_count = BigInt(nulls);
  }
  encodingStats.push({ page_type: 'DATA_PAGE', encoding: dict ? 'RLE_DICTIONARY' : 'PLAIN', count: sink.pages });
  uncompressed += sink.uncompressed;
  const chunk: ChunkMeta = {
    file_offset: BigInt(base + start),
    meta_data: {
      type: physical,
      encodings,
      path_in_schema: [name],
      codec: 'UNCOMPRESSED',
      num_values: BigInt(n),
      total_compressed_size: BigInt(out.pos - start),
      total_uncompressed_size: BigInt(uncompressed),
      data_page_offset: sink.locations[0].offset,
      ...(dictionaryOffset !== undefined ? { dictionary_page_offset: dictionaryOffset } : {}),
      ...(stats && statistics ? { statistics } : {}),
      encoding_stats: encodingStats,
    },
  };
  return { chunk, index: sink.pages > 1 ? { chunk, offsetIndex: { page_locations: sink.locations } } : undefined };
}

/** The distinct strings of a column and each value's index, or null when there are too many to pay. */
function dictionary(strs: readonly string[], def: Uint8Array, n: number): { keys: string[]; indexes: Uint16Array } | null {
  const map = new Map<string, number>();
  const keys: string[] = [];
  const indexes = new Uint16Array(n);
  let k = 0;
  for (let i = 0; i < n; i++) {
    if (!def[i]) continue;
    const s = strs[i];
    let x = map.get(s);
    if (x === undefined) {
      x = keys.length;
      if (x >= DICT_MAX) return null;
      // mostly distinct so far (ids, texts): give up early
      if (x === 256 && k < 512) return null;
      map.set(s, x);
      keys.push(s);
    }
    indexes[k++] = x;
  }
  return keys.length * 2 <= k ? { keys, indexes: indexes.subarray(0, k) } : null;
}

function stringStats(keys: readonly string[], nulls: number): ChunkStatistics {
  let min = keys[0];
  let max = keys[0];
  for (let i = 1; i < keys.length; i++) {
    const s = keys[i];
    if (compareUtf8(s, min) < 0) min = s;
    else if (compareUtf8(s, max) > 0) max = s;
  }
  return { min_value: min, max_value: max, null_count: BigInt(nulls) };
}

function plainStrings(sink: PageSink, strs: readonly string[], def: Uint8Array, n: number, stats: boolean): ChunkStatistics | undefined {
  const vals = sink.vals;
  let min: string | undefined;
  let max: string | undefined;
  let from = 0;
  let nulls = 0;
  for (let i = 0; i < n; i++) {
    if (!def[i]) {
      nulls++;
      continue;
    }
    const s = strs[i];
    vals.str(s);
    if (stats) {
      if (min === undefined) min = max = s;
      else if (s !== min && s !== max) {
        if (compareUtf8(s, min) < 0) min = s;
        else if (compareUtf8(s, max!) > 0) max = s;
      }
    }
    if (vals.pos >= PAGE_SIZE && i + 1 < n) {
      sink.flush(from, i + 1, nulls);
      from = i + 1;
      nulls = 0;
    }
  }
  sink.flush(from, n, nulls);
  return stats ? { min_value: min, max_value: max, null_count: 0n } : undefined;
}

function plainBooleans(sink: PageSink, values: readonly boolean[], def: Uint8Array, n: number, stats: boolean): ChunkStatistics | undefined {
  const vals = sink.vals;
  let trues = 0;
  let count = 0;
  vals.room((n >> 3) + 1);
  const buf = vals.buf;
  let acc = 0;
  let bits = 0;
  let p = vals.pos;
  for (let i = 0; i < n; i++) {
    if (!def[i]) continue;
    const v = values[i] ? 1 : 0;
    trues += v;
    count++;
    acc |= v << bits;
    if (++bits === 8) {
      buf[p++] = acc;
      acc = 0;
      bits = 0;
    }
  }
  if (bits > 0) buf[p++] = acc;
  vals.pos = p;
  sink.flush(0, n, n - count);
  if (!stats) return undefined;
  return count === 0 ? { null_count: 0n } : { min_value: trues === count, max_value: trues > 0, null_count: 0n };
}

/** An INT64 value beyond the fast path (a BigInt, a time past 2^53 ms), range-checked as hyparquet-writer does. */
function int64(v: number | bigint): bigint {
  const b = BigInt(v);
  if (BigInt.asIntN(64, b) !== b) throw new RangeError(`parquet INT64 value out of range: ${b}`);
  return b;
}

function plainNumbers(sink: PageSink, physical: Physical, values: readonly (number | bigint)[], def: Uint8Array, n: number, stats: boolean): ChunkStatistics | undefined {
  const vals = sink.vals;
  const width = physical === 'INT32' ? 4 : 8;
  const perPage = Math.max(1, Math.floor(PAGE_SIZE / width));
  let min: number | bigint | undefined;
  let max: number | bigint | undefined;
  let from = 0;
  let inPage = 0;
  let nulls = 0;
  for (let i = 0; i < n; i++) {
    if (!def[i]) {
      nulls++;
      continue;
    }
    const v = values[i];
    vals.room(8);
    const dv = vals.dv;
    const p = vals.pos;
    if (physical === 'DOUBLE') dv.setFloat64(p, v as number, true);
    else if (physical === 'INT32') dv.setInt32(p, v as number, true);
    else if (typeof v === 'bigint' || !Number.isSafeInteger(v)) dv.setBigInt64(p, int64(v), true);
    else {
      // a safe integer as two 32-bit halves (no BigInt per value)
      const hi = Math.floor(v / 4294967296);
      dv.setUint32(p, v - hi * 4294967296, true);
      dv.setInt32(p + 4, hi, true);
    }
    vals.pos = p + width;
    if (stats) {
      if (min === undefined || v < min) min = v;
      if (max === undefined || v > max) max = v;
    }
    if (++inPage >= perPage && i + 1 < n) {
      sink.flush(from, i + 1, nulls);
      from = i + 1;
      inPage = 0;
      nulls = 0;
    }
  }
  sink.flush(from, n, nulls);
  if (!stats) return undefined;
  if (physical === 'DOUBLE') {
    // signed zero per the spec: a zero min is -0, a zero max +0
    if (min === 0) min = -0;
    if (max === 0) max = 0;
    return { min_value: min, max_value: max, null_count: 0n, nan_count: 0n };
  }
  return { min_value: min, max_value: max, null_count: 0n };
}
