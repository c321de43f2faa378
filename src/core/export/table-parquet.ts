/**
 * The Parquet form of the small typed tables (tables.ts: the metric history and the annotations
 * beside an export, a dataset bundle's `items.history.parquet` and `items.annotations.parquet`),
 * written with the items' own encoder (parquet-columns.ts: v1 data pages, Snappy, dictionaries
 * while they pay, min / max statistics) into hyparquet-writer's file frame (the magic, the schema,
 * the footer and the page indexes: `placeGroup`), as the items' Parquet is (docs/export.md
 * "History and annotations"). Before 2026-11-28 these went through hyparquet-writer's own column
 * writer (a BigInt per INT64, an array per value, v2 uncompressed pages): ~4 s of the bundle's
 * history job at 200k items.
 *
 * The types keep their meaning: text UTF-8, int INT64, time TIMESTAMP(MILLIS, isAdjustedToUTC)
 * (DuckDB TIMESTAMP WITH TIME ZONE, pandas tz-aware UTC), json the value's JSON text, bool
 * BOOLEAN (the writer before took the same values); a null, or a value the column cannot hold (an
 * int or time that is not a number, a bool that is not a boolean), is a null; a number past INT64
 * ends the file with a RangeError, as before.
 */
import { ByteWriter, ParquetWriter } from 'hyparquet-writer';
import { abortError } from './abort';
import type { ColumnBuilder } from './parquet-chunk';
import { columnBuilder } from './parquet-columns';
import { int64, type ParquetColumnType } from './parquet-encode';
import { placeGroup, sealGroup } from './parquet-group';
import type { ColumnType, Table, TableColumn } from './table-types';

/** rows a row group */
const GROUP = 50_000;

const TYPE: Record<ColumnType, ParquetColumnType> = { text: 'STRING', json: 'JSON', int: 'INT64', time: 'TIMESTAMP', bool: 'BOOLEAN' };

function schemaElement(c: TableColumn) {
  switch (c.type) {
    case 'text':
      return { name: c.name, type: 'BYTE_ARRAY' as const, converted_type: 'UTF8' as const, repetition_type: 'OPTIONAL' as const };
    case 'json':
      return { name: c.name, type: 'BYTE_ARRAY' as const, converted_type: 'JSON' as const, repetition_type: 'OPTIONAL' as const };
    case 'int':
      return { name: c.name, type: 'INT64' as const, repetition_type: 'OPTIONAL' as const };
    case 'time':
      // an instant, annotated as UTC as the items' times are (parquet-group.ts): DuckDB reads
      // TIMESTAMP WITH TIME ZONE and pandas a tz-aware column (the legacy converted type alone
      // read as a naive time, which pandas will not compare with the items' UTC times)
      return {
        name: c.name,
        type: 'INT64' as const,
        converted_type: 'TIMESTAMP_MILLIS' as const,
        logical_type: { type: 'TIMESTAMP' as const, isAdjustedToUTC: true, unit: 'MILLIS' as const },
        repetition_type: 'OPTIONAL' as const,
      };
    case 'bool':
      return { name: c.name, type: 'BOOLEAN' as const, repetition_type: 'OPTIONAL' as const };
  }
}

export function tableSchema(columns: readonly TableColumn[]) {
  return [{ name: 'root', num_children: columns.length }, ...columns.map(schemaElement)];
}

/**
 * a count or a time as the INT64 / TIMESTAMP builder takes it: a finite number's whole part (a
 * number while it is safe, else a BigInt); null when not a finite number; past INT64 a RangeError
 * that ends the file, as hyparquet-writer's (parquet-encode.ts int64)
 */
function int64Of(v: unknown, time: boolean): number | bigint | null {
  if (typeof v !== 'number' || !Number.isFinite(v)) return null;
  const x = Math.trunc(v);
  if (Number.isSafeInteger(x)) return x;
  const b = int64(BigInt(x));
  return time ? x : b;
}

/** one value into its column's builder, as the column's type holds it */
function put(b: ColumnBuilder, t: ColumnType, v: unknown): void {
  if (v === null || v === undefined) b.add(null);
  else if (t === 'text') b.add(typeof v === 'string' ? v : String(v));
  else if (t === 'int' || t === 'time') b.add(int64Of(v, t === 'time'));
  else if (t === 'bool') b.add(typeof v === 'boolean' ? v : null);
  else b.add(v); // json: its JSON text (parquet-encode.ts jsonText)
}

/**
 * Write `table` as Parquet through `out` (each piece of the file in order; the bytes are not kept
 * after the call), `group` rows a row group (tests give fewer); the number of rows.
 */
export function writeParquetTable(table: Table, out: (b: Uint8Array) => void, signal?: AbortSignal, group = GROUP): number {
  const { columns } = table;
  const types = columns.map((c) => c.type);
  const bw = new ByteWriter(1 << 12) as ByteWriter & { flush(): void };
  bw.flush = () => {
    if (bw.index === 0) return;
    out(new Uint8Array(bw.buffer, 0, bw.index).slice());
    bw.index = 0;
  };
  const writer = new ParquetWriter({ writer: bw, schema: tableSchema(columns), createdBy: 'Loupe (hyparquet-writer)' });
  const cols = columns.map((c) => columnBuilder(c.name, TYPE[c.type], group, c.type !== 'json'));
  let n = 0;
  let total = 0;
  // a group's bytes after what the file holds; its offsets moved to where they land
  const place = () => {
    const g = sealGroup(cols, n);
    for (const c of cols) c.reset();
    bw.flush();
    const at = bw.offset;
    out(g.bytes);
    bw.offset += g.bytes.length;
    placeGroup(writer, g, at);
    n = 0;
  };
  for (const r of table.rows) {
    if (signal?.aborted) throw abortError(signal);
    for (let i = 0; i < cols.length; i++) put(cols[i], types[i], r[i]);
    n++;
    total++;
    if (n === group) place();
  }
  if (n > 0) place();
  void writer.finish();
  bw.flush();
  return total;
}
