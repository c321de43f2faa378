/**
 * Worker thread of a parallel CSV export (docs/export.md "Performance"). Two kinds of batch:
 *  - rows (the record as JSON text when the source has it), parsed and rendered with the same
 *    code as the single-thread path (csvRenderer);
 *  - rids (csv-rids.ts): the worker reads those rows itself from the archive file, on a read-only
 *    connection of its own, each record as its stored bytes (the batch in one statement and one
 *    aggregate row, rid-batch.ts), and writes each cell from the bytes (csv-spans.ts: no
 *    JSON.parse of the record); when one of them is no longer there (deleted since
 *    the export's snapshot) it answers `missing` and the exporting thread renders that batch from
 *    its snapshot.
 * Each batch is answered with its CSV as UTF-8 bytes, written straight into a buffer as the cells
 * are made (csv-bytes.ts) and moved, not copied, to the writing thread; a batch by rid's buffer
 * comes back once written (`spare`), and later batches are written into it.
 *
 *   in:  first { config: { columns?: string[]; reader?: { file: string; extra: string } } } (worker-config.ts)
 *        then { seq, rows: WireRow[] } | { seq, rids: number[] } | { spare: ArrayBuffer } (no answer)
 *   out: { seq, bytes: Uint8Array } | { seq, missing: true } | { seq, error }
 */
import { parentPort } from 'node:worker_threads';
import { csvBytesRenderer, resolveColumns } from './columns';
import { beginBytes, handOffBytes, spareBytes } from './csv-bytes';
import { csvSpanRenderer } from './csv-spans';
import { detachEarly } from './detach-early';
import { ridBatchReader } from './rid-batch';
import { fromWire, type WireBatch } from './wire';
import { mark } from './timeline';
import { afterConfig } from './worker-config';

const port = parentPort;
if (!port) throw new Error('csv-worker: not started as a worker thread');
// its batches' buffers are moved to the exporting thread: detach one before any code is hot
detachEarly();

afterConfig<WireBatch | { seq: number; rids: number[] } | { spare: ArrayBuffer }>(port, (config) => {
  const render = csvBytesRenderer(resolveColumns(config.columns));
  const renderStored = csvSpanRenderer(config.columns);
  const readRows = ridBatchReader(config.reader);
  return (m) => {
    if ('spare' in m) return void spareBytes(m.spare);
    mark(`in ${m.seq}`);
    try {
      beginBytes();
      if ('rids' in m) {
        const rows = readRows(m.rids);
        if (!rows) return void port.postMessage({ seq: m.seq, missing: true });
        for (const row of rows) renderStored(row);
      } else for (const w of m.rows) render(fromWire(w));
      const bytes = handOffBytes();
      port.postMessage({ seq: m.seq, bytes }, [bytes.buffer]);
      mark(`out ${m.seq}`);
    } catch (e) {
      port.postMessage({ seq: m.seq, error: e instanceof Error ? e.message : String(e) });
    }
  };
});
