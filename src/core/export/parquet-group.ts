/**
 * One Parquet row group, encoded on its own (docs/export.md "Parquet", Performance): the same code
 * runs on the exporting thread and in export workers (parquet-worker.ts). A group's columns are
 * encoded by parquet-encode.ts into a buffer of their own, as if the group were the first of a file
 * (right after the 4-byte `PAR1` magic); the file writer (hyparquet-writer's `ParquetWriter`) then
 * appends the bytes and moves the group's offsets (column chunks, pages) to where the bytes landed
 * (`placeGroup`). Page bytes hold no file offsets, so the file is the same bytes whichever thread
 * encoded which group.
 */
import { ParquetWriter, schemaFromColumnData } from 'hyparquet-writer';
import { LABEL_SPECS } from '../../shared/labels';
import type { ExportRow } from '../ports';
import { resolveColumns, valuesSink, type SinkFn, type ValueSink } from './columns';
import type { ColumnBuilder } from './parquet-chunk';
import { columnBuilder } from './parquet-columns';
import { Bytes, type ChunkIndex, type ChunkMeta, type ParquetColumnType } from './parquet-encode';
import type { SpareBuffers } from './spare-buffers';

export type { ParquetColumnType } from './parquet-encode';

const FIXED: Record<string, ParquetColumnType> = {
  published_at: 'TIMESTAMP',
  'author.joined_at': 'TIMESTAMP',
  first_seen_at: 'TIMESTAMP',
  last_seen_at: 'TIMESTAMP',
  checked_at: 'TIMESTAMP',
  missing_since: 'TIMESTAMP',
  'author.followers': 'INT64',
  'author.following': 'INT64',
  'engagement.views': 'INT64',
  'engagement.likes': 'INT64',
  'engagement.comments': 'INT64',
  'engagement.shares': 'INT64',
  'engagement.saves': 'INT64',
  'content.duration_seconds': 'DOUBLE',
  'relevance.p': 'DOUBLE',
  'relevance.depth': 'DOUBLE',
  'relevance.spam': 'DOUBLE',
  'author.verified': 'BOOLEAN',
  'content.media_urls': 'JSON',
  ext: 'JSON',
  coauthors: 'JSON',
  tags: 'JSON',
  overrides: 'JSON',
  extra: 'JSON',
};

/** The Parquet type of an export column. */
export function parquetType(column: string): ParquetColumnType {
  const fixed = FIXED[column];
  if (fixed) return fixed;
  if (column.startsWith('flags.')) return 'BOOLEAN';
  const m = /^labels\.([^.]+)\.(.+)$/.exec(column);
  if (m) {
    const spec = LABEL_SPECS[m[1]]?.fields[m[2]];
    if (spec?.type === 'prob') return 'DOUBLE';
    if (spec?.type === 'int') return 'INT32';
    if (spec?.type === 'bool') return 'BOOLEAN';
    return 'STRING';
  }
  return 'STRING';
}

type Schema = ReturnType<typeof schemaFromColumnData>;

/** Free text, URLs and JSON: a min / max there serves no reader's filter (it is also written whole). */
const NO_STATISTICS = new Set([
  'url',
  'content.text',
  'author.bio',
  'author.display_name',
  'author.avatar_url',
  'content.thumbnail_url',
  'note',
]);

/**
 * Whether a column's chunks carry min / max statistics: numbers, times, flags, ids and words do
 * (DuckDB, Arrow and Spark skip row groups by them); free text, URLs and JSON do not.
 */
export function withStatistics(column: string, type: ParquetColumnType): boolean {
  return type !== 'JSON' && !NO_STATISTICS.has(column);
}

/** The columns of a Parquet export: names, types, the file schema and the row renderer. */
export interface ParquetLayout {
  names: string[];
  types: ParquetColumnType[];
  schema: Schema;
  /** per column: whether its chunks carry min / max statistics (`withStatistics`) */
  statistics: boolean[];
  /** each column's raw value to its builder (`valuesSink`) */
  sink: SinkFn;
}

export function parquetLayout(columns?: string[]): ParquetLayout {
  const defs = resolveColumns(columns);
  const names = [...defs.map((d) => d.name), 'untyped'];
  const types = [...defs.map((d) => parquetType(d.name)), 'JSON' as const];
  // the schema from the declared types (an empty column list would make hyparquet infer them)
  const schema = schemaFromColumnData({ columnData: names.map((name, i) => ({ name, data: [], type: types[i], nullable: true })) });
  // times are instants: annotated as UTC (TIMESTAMP(MILLIS, isAdjustedToUTC = true)), so DuckDB
  // reads TIMESTAMP WITH TIME ZONE and pandas / Arrow a tz-aware UTC column (hyparquet-writer
  // writes only the legacy converted type, which DuckDB reads as a naive time)
  for (const el of schema)
    if (el.converted_type === 'TIMESTAMP_MILLIS') el.logical_type = { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MILLIS' };
  return { names, types, schema, statistics: names.map((n, i) => withStatistics(n, types[i])), sink: valuesSink(defs) };
}

/** ParquetWriter's bookkeeping that `placeGroup` reads and moves (hyparquet-writer 0.17). */
interface WriterState {
  row_groups: Array<RowGroupMeta>;
  pendingIndexes: Array<ChunkIndex>;
  num_rows: bigint;
}
type RowGroupMeta = { num_rows: bigint; total_byte_size: bigint; total_compressed_size: bigint; columns: ChunkMeta[] };

/** A row group encoded on its own: its bytes, and its metadata as if it started right after `PAR1`. */
export interface EncodedGroup {
  rows: number;
  bytes: Uint8Array;
  /** the group's metadata and page indexes, offsets counted from the start of a file whose only group this is */
  meta: { rowGroup: RowGroupMeta; indexes: ChunkIndex[] };
  untypedValues: number;
}

export const PARQUET_OPTIONS = {
  createdBy: 'Loupe (hyparquet-writer)',
  kvMetadata: [{ key: 'loupe.columns', value: 'the CSV export columns, typed (docs/export.md "Parquet")' }],
};

function writerState(w: ParquetWriter): WriterState {
  // eslint-disable-next-line no-restricted-syntax -- the writer keeps its row groups private: every field read is checked next
  const s = w as unknown as Partial<WriterState>;
  if (!Array.isArray(s.row_groups) || !Array.isArray(s.pendingIndexes) || typeof s.num_rows !== 'bigint')
    throw new Error('parquet: this hyparquet-writer version keeps its row groups differently (expected 0.17)');
  return s as WriterState;
}

/**
 * Seal these column builders (`rows` rows each) into one row group: its bytes in one buffer
 * (moved, not copied, to the writing thread) and its metadata, offsets counted as if the group
 * started right after the file's 4-byte magic. The builders are left to `reset`.
 *
 * The buffer is one of `spare` (an earlier group's, given back by the writing thread once written:
 * parquet-rids.ts) when one is large enough, else a new one with an eighth more room than the
 * bytes, so that the next groups (a little larger or smaller) fit it when it comes back. A new
 * buffer is faulted in page by page as the chunks are copied into it: 2.5-12 ms of CPU for a
 * group's ~3.6 MB on this machine, against 0.1-0.5 ms for one already written once.
 */
export function sealGroup(cols: readonly ColumnBuilder[], rows: number, spare?: SpareBuffers): Pick<EncodedGroup, 'bytes' | 'meta'> {
  let size = 0;
  for (const c of cols) size += c.seal();
  const reused = spare?.take(size);
  const bytes = new Uint8Array(reused ? reused.buffer : new ArrayBuffer(spare ? size + (size >> 3) : size), 0, size);
  const out = new Bytes(bytes);
  const columns: ChunkMeta[] = [];
  const indexes: ChunkIndex[] = [];
  let total = 0n;
  for (const c of cols) {
    const { chunk, index } = c.finish(out, 4);
    columns.push(chunk);
    total += chunk.meta_data.total_uncompressed_size;
    if (index) indexes.push(index);
  }
  const rowGroup: RowGroupMeta = { columns, total_byte_size: total, num_rows: BigInt(rows), total_compressed_size: BigInt(size) };
  return { bytes, meta: { rowGroup, indexes } };
}

/**
 * One row group being encoded: rows are added one at a time (each typed and written into its
 * columns at once), `finish` returns the group's bytes and metadata and leaves the encoder empty
 * for the next group.
 */
export class GroupEncoder {
  private readonly cols: ColumnBuilder[];
  private rows = 0;
  private untypedValues = 0;

  /** `capacity`: the rows expected (the builders grow past it) */
  constructor(
    private readonly layout: ParquetLayout,
    capacity: number,
  ) {
    this.cols = layout.names.map((name, i) => columnBuilder(name, layout.types[i], capacity, layout.statistics[i]));
  }

  /** the row's values that did not fit their column, by column name */
  private untyped: Record<string, unknown> | null = null;
  private readonly miss = (i: number, v: unknown): void => {
    (this.untyped ??= {})[this.layout.names[i]] = v;
    this.untypedValues++;
    this.cols[i].add(null);
  };

  add(row: ExportRow): void {
    this.untyped = null;
    // each column's value straight to its builder (columns.ts valuesSink: no array per row)
    this.layout.sink(row, this.cols, this.miss);
    this.cols[this.cols.length - 1].add(this.untyped);
    this.rows++;
  }

  /** add(row) through `f`, a valuesSink that also returns something (columns.ts valuesSinkCsv: the row's CSV record) */
  addThrough<T>(row: ExportRow, f: (row: ExportRow, sinks: readonly ValueSink[], miss: (i: number, v: unknown) => void) => T): T {
    this.untyped = null;
    const out = f(row, this.cols, this.miss);
    this.cols[this.cols.length - 1].add(this.untyped);
    this.rows++;
    return out;
  }

  /**
   * A row whose values `fill` hands to the columns itself (parquet-spans.ts: from the stored
   * record's bytes), each column once, in order, through `miss` where a value does not fit.
   */
  addWith(fill: (cols: readonly ColumnBuilder[], miss: (i: number, v: unknown) => void) => void): void {
    this.untyped = null;
    fill(this.cols, this.miss);
    this.cols[this.cols.length - 1].add(this.untyped);
    this.rows++;
  }

  /** the group; its bytes in one of `spare` when one is large enough (sealGroup) */
  finish(spare?: SpareBuffers): EncodedGroup {
    const { bytes, meta } = sealGroup(this.cols, this.rows, spare);
    const group = { rows: this.rows, bytes, meta, untypedValues: this.untypedValues };
    this.reset();
    return group;
  }

  /**
   * Empty again for the next group (`finish` does it), keeping every column's buffers: a thread
   * that encodes group after group reuses one encoder, and a group's buffers are not left to the
   * collector (two workers' heaps grew by a group's worth of dead buffers each: issue 30).
   */
  reset(): void {
    for (const c of this.cols) c.reset();
    this.rows = 0;
    this.untypedValues = 0;
  }
}

/**
 * Encode rows as one row group (typed columns, `untyped` for values that do not fit). `toRow`
 * makes each export row when its turn comes (a worker parses one record at a time).
 */
export function encodeGroup<T = ExportRow>(
  layout: ParquetLayout,
  rows: readonly T[],
  toRow: (x: T) => ExportRow = (x) => x as ExportRow,
): EncodedGroup {
  const g = new GroupEncoder(layout, rows.length);
  for (const r of rows) g.add(toRow(r));
  return g.finish();
}

/**
 * Record a group whose bytes now start at file offset `at` in `writer` (the file's writer, whose
 * `finish` writes the page indexes and the footer): its offsets move by `at - 4`.
 */
export function placeGroup(writer: ParquetWriter, group: Pick<EncodedGroup, 'meta'>, at: number): void {
  const s = writerState(writer);
  const d = BigInt(at - 4);
  const { rowGroup, indexes } = group.meta;
  for (const c of rowGroup.columns) {
    c.file_offset += d;
    const m = c.meta_data;
    m.data_page_offset += d;
    if (m.dictionary_page_offset !== undefined) m.dictionary_page_offset += d;
    if (m.index_page_offset !== undefined) m.index_page_offset += d;
  }
  for (const x of indexes) for (const p of x.offsetIndex.page_locations) p.offset += d;
  s.row_groups.push(rowGroup);
  s.pendingIndexes.push(...indexes);
  s.num_rows += rowGroup.num_rows;
}
