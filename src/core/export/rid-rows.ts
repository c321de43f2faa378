/**
 * Rows of an export read by rid in an export worker (csv-worker.ts, parquet-worker.ts; issue 30):
 * the worker opens the archive file read-only on a connection of its own and reads each batch of
 * rids in one statement, in the batch's order.
 */
import Database from 'better-sqlite3';
import { EXPORT_COLS, exportRowOf, type ExportTuple } from '../archive/export-row';
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
  let reader: { st: Statements; cols: RawSql } | null = null;
  return (rids) => {
    if (!reader) {
      if (!source) throw new Error('export worker: rids without an archive to read them from');
      const db = new Database(source.file, { readonly: true, fileMustExist: true });
      db.pragma('busy_timeout = 5000');
      db.pragma('cache_size = -4096'); // rows are read once each, in no page order
      reader = { st: new Statements(db), cols: raw(`${EXPORT_COLS}${source.extra}`) };
    }
    const order = ridOrder(rids);
    const sorted = new Array<number>(rids.length);
    for (let i = 0; i < order.length; i++) sorted[i] = rids[order[i]];
    const found = reader.st.rows<[number, ...ExportTuple]>(
      sql`SELECT j.key, ${reader.cols} FROM json_each(${JSON.stringify(sorted)}) j CROSS JOIN items i ON i.rid = j.value`,
    );
    if (found.length !== rids.length) return null;
    const rows: ExportRow[] = new Array(rids.length);
    for (const t of found) rows[order[t[0]]] = exportRowOf(t.slice(1) as ExportTuple);
    return rows;
  };
}

/** The positions of `rids` in ascending rid order (rids are distinct integers). */
export function ridOrder(rids: readonly number[]): Uint32Array {
  const order = new Uint32Array(rids.length);
  for (let i = 0; i < order.length; i++) order[i] = i;
  return order.sort((a, b) => rids[a] - rids[b]);
}
