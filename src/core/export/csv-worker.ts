/**
 * Worker thread of a parallel CSV export (docs/export.md "Performance"). Two kinds of batch:
 *  - rows (the record as JSON text when the source has it), parsed and rendered with the same
 *    code as the single-thread path (csvRenderer);
 *  - rids (csv-rids.ts): the worker reads those rows itself from the archive file, on a read-only
 *    connection of its own, and renders them; when one of them is no longer there (deleted since
 *    the export's snapshot) it answers `missing` and the exporting thread renders that batch from
 *    its snapshot.
 * Each batch is answered with its CSV as UTF-8 bytes (moved, not copied, to the writing thread).
 *
 *   workerData: { columns?: string[]; reader?: { file: string; extra: string } }
 *   in:  { seq, rows: WireRow[] } | { seq, rids: number[] }
 *   out: { seq, bytes: Uint8Array } | { seq, missing: true } | { seq, error }
 */
import Database, { type Statement } from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';
import { EXPORT_COLS, exportRowOf, type ExportTuple } from '../archive/export-row';
import type { ExportRow } from '../ports';
import { csvRenderer, resolveColumns } from './columns';
import { fromWire, type WireBatch } from './wire';

const port = parentPort;
if (!port) throw new Error('csv-worker: not started as a worker thread');
const data = (workerData ?? {}) as { columns?: string[]; reader?: { file: string; extra: string } };
const encoder = new TextEncoder();
const render = csvRenderer(resolveColumns(data.columns));

let byRid: Statement | null = null;
/**
 * The rows of `rids` in that order, or null when one is not in the archive any more. One
 * statement per batch: the rids as a JSON array, each looked up by rowid in the array's order
 * (CROSS JOIN keeps json_each the outer loop; each row says its index in the array); all
 * rows at once (`all`: a third less CPU than iterating them into a map and back in order).
 */
function readRows(rids: number[]): ExportRow[] | null {
  if (!byRid) {
    const r = data.reader;
    if (!r) throw new Error('csv-worker: rids without an archive to read them from');
    const db = new Database(r.file, { readonly: true, fileMustExist: true });
    db.pragma('busy_timeout = 5000');
    db.pragma('cache_size = -4096'); // rows are read once each, in no page order
    byRid = db.prepare(`SELECT j.key, ${EXPORT_COLS}${r.extra} FROM json_each(?) j CROSS JOIN items i ON i.rid = j.value`).raw(true);
  }
  const found = byRid.all(JSON.stringify(rids)) as Array<[number, ...ExportTuple]>;
  if (found.length !== rids.length) return null;
  const rows: ExportRow[] = new Array(rids.length);
  for (const t of found) rows[t[0]] = exportRowOf(t.slice(1) as ExportTuple);
  return rows;
}

port.on('message', (m: WireBatch | { seq: number; rids: number[] }) => {
  try {
    let text = '';
    if ('rids' in m) {
      const rows = readRows(m.rids);
      if (!rows) return void port.postMessage({ seq: m.seq, missing: true });
      for (const row of rows) text += render(row);
    } else for (const w of m.rows) text += render(fromWire(w));
    const bytes = encoder.encode(text);
    port.postMessage({ seq: m.seq, bytes }, [bytes.buffer]);
  } catch (e) {
    port.postMessage({ seq: m.seq, error: e instanceof Error ? e.message : String(e) });
  }
});
