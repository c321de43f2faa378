/**
 * One Parquet column chunk's pages (docs/export.md "Parquet", Performance): definition levels,
 * pages cut every ~1 MiB of values and Snappy-compressed, the dictionary page first, and the
 * chunk's metadata (parquet-encode.ts). The builders of parquet-columns.ts type the values; this
 * is what they share. A column is reused from one row group to the next (`reset`): its buffers
 * are kept, so a worker's groups allocate nothing per page and leave no dead buffers behind.
 */
import {
  Bytes,
  ENC_PLAIN,
  PAGE_DATA,
  PAGE_DICTIONARY,
  pageHeader,
  writeLevels,
  type ChunkIndex,
  type ChunkMeta,
  type ChunkStatistics,
  type Physical,
} from './parquet-encode';
import { maxCompressedLength, snappyCompressInto } from './snappy';

export interface ColumnBuilder {
  /** the next row's value (null / undefined: none); false when it does not fit the column's type (then add null) */
  add(v: unknown): boolean;
  /** write the last pages; the chunk's size in bytes */
  seal(): number;
  /** append the chunk (sealed) to `out`, whose byte 0 lies at file offset `base`; `out` has room for it */
  finish(out: Bytes, base: number): { chunk: ChunkMeta; index?: ChunkIndex };
  /** start a new chunk (the next row group), keeping the buffers */
  reset(): void;
}

/** a page's body before compression, and after (shared by the columns of this thread: pages are written one at a time) */
let scratch = new Uint8Array(1 << 16);
let packed = new Uint8Array(1 << 16);
/** a data page's definition levels (shared the same way) */
const levels = new Bytes(1 << 12);

interface Loc {
  at: number;
  size: number;
  first: number;
}

/** Rows, definition levels and pages of one column chunk. */
export abstract class Column implements ColumnBuilder {
  protected def: Uint8Array;
  protected row = 0;
  protected nulls = 0;
  /** nulls since `from` */
  private pageNulls = 0;
  /** the first row of the page being filled */
  private from = 0;
  /**
   * the chunk's pages so far (header, levels, values), one after another: kept from one row group
   * to the next with the other buffers (the builders are reused), so a group allocates nothing per
   * page and leaves no buffers behind for the collector (issue 30: peak RSS)
   */
  private readonly pages = new Bytes(1 << 16);
  private size = 0;
  /** the same pages' bytes before compression (headers included, as the footer counts them) */
  private rawSize = 0;
  private readonly locs: Loc[] = [];
  protected dictionaryPage = false;
  protected pageEncoding = ENC_PLAIN;
  protected min: unknown = undefined;
  protected max: unknown = undefined;

  constructor(
    private readonly name: string,
    private readonly physical: Physical,
    capacity: number,
    protected readonly stats: boolean,
    /** the values of the page being filled */
    protected readonly vals: Bytes,
  ) {
    this.def = new Uint8Array(Math.max(8, capacity));
  }

  abstract add(v: unknown): boolean;

  /** room for more rows than the capacity given */
  protected grow(): void {
    const d = new Uint8Array(this.def.length * 2);
    d.set(this.def);
    this.def = d;
  }

  /** a null (or a value that did not fit) */
  protected none(): true {
    this.def[this.row++] = 0;
    this.nulls++;
    this.pageNulls++;
    return true;
  }

  /** the nulls among rows [from, to) */
  private nullsIn(from: number, to: number): number {
    let nulls = 0;
    for (let i = from; i < to; i++) nulls += 1 - this.def[i];
    return nulls;
  }

  /** close the page of rows [from, to), whose values are in `vals` */
  protected cut(to: number): void {
    const last = to === this.row;
    const nulls = last ? this.pageNulls : this.nullsIn(this.from, to);
    this.pageNulls = last ? 0 : this.nullsIn(to, this.row);
    levels.pos = 0;
    writeLevels(levels, this.def, this.from, to, nulls);
    const at = this.size;
    this.page(PAGE_DATA, levels.pos + this.vals.pos, to - this.from, this.pageEncoding, levels);
    this.locs.push({ at, size: this.size - at, first: this.from });
    this.from = to;
  }

  /**
   * A page (header, then levels and the values in `vals`, Snappy-compressed) as one buffer of its
   * own. The body is gathered into a scratch buffer, compressed into another, and the header
   * written with both sizes.
   */
  private page(type: number, size: number, count: number, encoding: number, levels: Bytes | null): void {
    let body: Uint8Array;
    if (levels) {
      if (scratch.length < size) scratch = new Uint8Array(Math.max(size, scratch.length * 2));
      scratch.set(levels.buf.subarray(0, levels.pos), 0);
      scratch.set(this.vals.buf.subarray(0, this.vals.pos), levels.pos);
      body = scratch.subarray(0, size);
    } else body = new Uint8Array(this.vals.buf.buffer, this.vals.buf.byteOffset, this.vals.pos); // a plain view: Snappy's loads see one array type
    const room = maxCompressedLength(size);
    if (packed.length < room) packed = new Uint8Array(Math.max(room, packed.length * 2));
    const csize = snappyCompressInto(body, packed, 0);
    const out = this.pages;
    out.room(32 + csize);
    const at = out.pos;
    pageHeader(out, type, size, count, encoding, csize);
    const head = out.pos - at;
    out.buf.set(packed.subarray(0, csize), out.pos);
    out.pos += csize;
    this.vals.pos = 0;
    this.size = out.pos;
    this.rawSize += head + size;
  }

  /** the dictionary page (its `count` keys as PLAIN values in `keys`), before any data page */
  protected writeDictionary(keys: Bytes, count: number): void {
    this.vals.pos = 0;
    this.vals.append(keys);
    this.page(PAGE_DICTIONARY, this.vals.pos, count, ENC_PLAIN, null);
    this.dictionaryPage = true;
  }

  /** write what is left (the last page, a dictionary) */
  protected abstract close(): void;

  protected statistics(): ChunkStatistics {
    return { min_value: this.min, max_value: this.max, null_count: BigInt(this.nulls) };
  }

  /** the chunk's size in bytes, every page written */
  seal(): number {
    this.close();
    if (this.locs.length === 0 || this.from < this.row) this.cut(this.row);
    return this.size;
  }

  reset(): void {
    this.row = 0;
    this.nulls = 0;
    this.pageNulls = 0;
    this.from = 0;
    this.pages.pos = 0;
    this.size = 0;
    this.rawSize = 0;
    this.locs.length = 0;
    this.dictionaryPage = false;
    this.pageEncoding = ENC_PLAIN;
    this.min = undefined;
    this.max = undefined;
    this.vals.pos = 0;
  }

  finish(out: Bytes, base: number): { chunk: ChunkMeta; index?: ChunkIndex } {
    const start = out.pos;
    const at = base + start;
    this.pages.buf.copy(out.buf, out.pos, 0, this.pages.pos);
    out.pos += this.pages.pos;
    const dict = this.dictionaryPage;
    const dataStart = this.locs[0].at;
    const page_locations = this.locs.map((l) => ({
      offset: BigInt(at + l.at),
      compressed_page_size: l.size,
      first_row_index: BigInt(l.first),
    }));
    const size = BigInt(this.size);
    const chunk: ChunkMeta = {
      file_offset: BigInt(at),
      meta_data: {
        type: this.physical,
        encodings: dict ? ['PLAIN', 'RLE', 'RLE_DICTIONARY'] : ['PLAIN', 'RLE'],
        path_in_schema: [this.name],
        codec: 'SNAPPY',
        num_values: BigInt(this.row),
        total_compressed_size: size,
        total_uncompressed_size: BigInt(this.rawSize),
        data_page_offset: BigInt(at + dataStart),
        ...(dict ? { dictionary_page_offset: BigInt(at) } : {}),
        ...(this.stats ? { statistics: this.statistics() } : {}),
        encoding_stats: [
          ...(dict ? [{ page_type: 'DICTIONARY_PAGE', encoding: 'PLAIN', count: 1 }] : []),
          { page_type: 'DATA_PAGE', encoding: dict ? 'RLE_DICTIONARY' : 'PLAIN', count: this.locs.length },
        ],
      },
    };
    return { chunk, index: this.locs.length > 1 ? { chunk, offsetIndex: { page_locations } } : undefined };
  }
}
