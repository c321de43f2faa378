/**
 * Worker thread of an XLSX export read by rid (xlsx-rids.ts, docs/export.md "XLSX"): reads a
 * batch's rows from the archive file on a read-only connection of its own (one statement, one
 * aggregate row: rid-batch.ts), writes their sheet XML from the stored records' bytes (xlsx-spans.ts:
 * no JSON.parse of a record; the bytes of the exporting thread's renderer, xlsx-cells.ts) as rows
 * `first`, `first + 1`, … of their sheet into one reused buffer, and deflates it as one piece of
 * the sheet's raw-deflate stream (zip.ts deflatePiece: its bytes, moved, not copied, its CRC-32
 * and length). When one of the rows is no longer there (deleted since the export's snapshot) it
 * answers `missing` and the exporting thread renders that batch from its snapshot.
 *
 *   in:  first { config: { columns?: string[]; reader: { file: string; extra: string } } } (worker-config.ts)
 *        then { seq, rids: number[], first: number }
 *   out: { seq, piece: { bytes, crc, usize, truncated } } | { seq, missing: true } | { seq, error }
 */
import { parentPort } from 'node:worker_threads';
import { detachEarly } from './detach-early';
import { ridBatchReader } from './rid-batch';
import { CellWriter, XLSX_DEFLATE_LEVEL } from './xlsx-cells';
import { DATE_STYLE } from './xlsx-parts';
import { beginXml, xlsxSpanRenderer, xmlSoFar } from './xlsx-spans';
import { deflatePiece } from './zip';
import { afterConfig } from './worker-config';

const port = parentPort;
if (!port) throw new Error('xlsx-worker: not started as a worker thread');
// its batches' buffers are moved to the exporting thread: detach one before any code is hot
detachEarly();

afterConfig<{ seq: number; rids: number[]; first: number }>(port, (config) => {
  const readRows = ridBatchReader(config.reader);
  const cells = new CellWriter(DATE_STYLE);
  const renderRow = xlsxSpanRenderer(config.columns, cells);
  return (m) => {
    try {
      const rows = readRows(m.rids);
      if (!rows) return void port.postMessage({ seq: m.seq, missing: true });
      const cut = cells.truncated;
      beginXml();
      for (let i = 0; i < rows.length; i++) renderRow(rows[i], m.first + i);
      const p = deflatePiece(xmlSoFar(), XLSX_DEFLATE_LEVEL);
      // a buffer of its own to move (zlib's answer may share its memory)
      const bytes = new Uint8Array(p.bytes.length);
      bytes.set(p.bytes);
      const piece = { bytes, crc: p.crc, usize: p.usize, truncated: cells.truncated - cut };
      port.postMessage({ seq: m.seq, piece }, [bytes.buffer]);
    } catch (e) {
      port.postMessage({ seq: m.seq, error: e instanceof Error ? e.message : String(e) });
    }
  };
});
