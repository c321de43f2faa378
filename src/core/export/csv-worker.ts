/**
 * Worker thread of a parallel CSV export (docs/export.md "Performance"): receives batches of
 * rows (the record as JSON text when the source has it), parses and renders them with the same
 * code as the single-thread path (csvRenderer), and answers each batch with its CSV text.
 *
 *   workerData: { columns?: string[] }
 *   in:  { seq, rows: WireRow[] }          out: { seq, bytes: Uint8Array (UTF-8) } | { seq, error }
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { ExportRow } from '../ports';
import { csvRenderer, resolveColumns } from './columns';
import { fromWire, type WireBatch } from './wire';

const port = parentPort;
if (!port) throw new Error('csv-worker: not started as a worker thread');
const encoder = new TextEncoder();
const render = csvRenderer(resolveColumns((workerData as { columns?: string[] } | null)?.columns));

port.on('message', (m: WireBatch) => {
  try {
    let text = '';
    for (const w of m.rows) {
      const row: ExportRow = fromWire(w);
      text += render(row);
    }
    // UTF-8 here, moved (not copied) to the writing thread
    const bytes = encoder.encode(text);
    port.postMessage({ seq: m.seq, bytes }, [bytes.buffer]);
  } catch (e) {
    port.postMessage({ seq: m.seq, error: e instanceof Error ? e.message : String(e) });
  }
});
