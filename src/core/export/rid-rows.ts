/**
 * Rows of an export read by rid in an export worker (csv-worker.ts, parquet-worker.ts; issue 30):
 * the worker opens the archive file read-only on a connection of its own and reads each batch of
 * rids in one statement, in the batch's order.
 */
import Database from 'better-sqlite3';
import { EXPORT_BYTES_COLS, EXPORT_COLS, exportRowOf, type ExportTuple, type RowTuple } from '../archive/export-row';
import { raw, sql, Statements, type RawSql } from '../archive/sql';
import type { ExportRow } from '../ports';

/** The archive a worker reads rids from: its file, and the annotation columns (RidWalk.extra). */
export interface RidSource {
  file: string;
  extra: string;
}

/** rids read per statement by a worker that reads a larger set (a Parquet row group) */
export const RID_BATCH = 500;

/**
 * A reader of rows by rid: the rows of `rids` in that order, or null when one is not in the
 * archive any more. The rids go as a JSON array in ascending order, each looked up by rowid
 * (CROSS JOIN keeps json_each the outer loop; each row says its index in the sorted array, which
 * maps it back to its place in the batch), all rows at once (`all`: a third less CPU than
 * iterating them into a map and back in order). Ascending: neighbouring lookups share the
 * b-tree's pages, where the export's order (a sort by time, by a count) jumps across the table
 * (the exports bench's 200k rows by date in batches of 500: the reads' CPU -10 to -11 %, old and
 * new interleaved batch by batch).
 * The connection opens on first use.
 */
export function ridReader(source: RidSource | undefined): (rids: number[]) => ExportRow[] | null {
  const read = ridTupleReader<ExportTuple>(source, EXPORT_COLS);
  return (rids) => {
    const tuples = read(rids);
    return tuples && tuples.map(exportRowOf);
  };
}

/**
 * ridReader's rows as the stored columns, `cols` (then the source's annotation columns): the CSV
 * workers read the record as its bytes (EXPORT_BYTES_COLS, csv-spans.ts).
 */
export function ridTupleReader<T extends unknown[]>(source: RidSource | undefined, cols: string): (rids: number[]) => T[] | null {
  let reader: { st: Statements; cols: RawSql } | null = null;
  return (rids) => {
    if (!reader) {
      const { db, extra } = openRidSource(source);
      reader = { st: new Statements(db), cols: raw(`${cols}${extra}`) };
    }
    const { order, sorted } = ridsAscending(rids);
    const found = reader.st.rows<[number, ...T]>(
      sql`SELECT j.key, ${reader.cols} FROM json_each(${JSON.stringify(sorted)}) j CROSS JOIN items i ON i.rid = j.value`,
    );
    if (found.length !== rids.length) return null;
    const rows: T[] = new Array<T>(rids.length);
    for (const t of found) rows[order[t[0]]] = t.slice(1) as T;
    return rows;
  };
}

/** A worker's read-only connection to the archive file it reads rids from, and the source's annotation columns. */
export function openRidSource(source: RidSource | undefined): { db: Database.Database; extra: string } {
  if (!source) throw new Error('export worker: rids without an archive to read them from');
  const db = new Database(source.file, { readonly: true, fileMustExist: true });
  db.pragma('busy_timeout = 5000');
  db.pragma('cache_size = -4096'); // rows are read once each, in no page order
  return { db, extra: source.extra };
}

/** `rids` in ascending order (neighbouring lookups share pages), and each one's place in `rids`. */
export function ridsAscending(rids: readonly number[]): { order: Uint32Array; sorted: number[] } {
  const order = ridOrder(rids);
  const sorted = new Array<number>(rids.length);
  for (let i = 0; i < order.length; i++) sorted[i] = rids[order[i]];
  return { order, sorted };
}

/** The positions of `rids` in ascending rid order (rids are distinct integers). */
function ridOrder(rids: readonly number[]): Uint32Array {
  const order = new Uint32Array(rids.length);
  for (let i = 0; i < order.length; i++) order[i] = i;
  return order.sort((a, b) => rids[a] - rids[b]);
}

/** A row as a CSV worker reads it: ExportTuple with the record as its stored UTF-8 bytes. */
export type BytesTuple = RowTuple<Uint8Array>;

/** ridReader's rows with each record as its stored bytes (`CAST(raw AS BLOB)`: no string of the record). */
export function ridBytesReader(source: RidSource | undefined): (rids: number[]) => BytesTuple[] | null {
  return ridTupleReader<BytesTuple>(source, EXPORT_BYTES_COLS);
}

const decoder = new TextDecoder();

/** A BytesTuple as an ExportRow whose record is parsed from its bytes when read. */
export function bytesRow(t: BytesTuple): ExportRow {
  const copy: ExportTuple = [t[0], t[1], t[2], decoder.decode(t[3]), t[4], t[5], t[6], t[7], t[8], t[9], t[10]];
  return exportRowOf(copy);
}
