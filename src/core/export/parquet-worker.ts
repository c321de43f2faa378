/**
 * Worker thread of a Parquet export (docs/export.md "Parquet", Performance): receives the rows of
 * one row group (the record as JSON text when the source has it), parses, types and encodes them
 * with the same code as the exporting thread (parquet-group.ts), and answers with the group's
 * bytes (moved, not copied) and its metadata; the exporting thread places them in the file.
 *
 *   workerData: { columns?: string[] }
 *   in:  { seq, rows: WireRow[] }   out: { seq, group: EncodedGroup } | { seq, error }
 */
import { parentPort, workerData } from 'node:worker_threads';
import { encodeGroup, parquetLayout } from './parquet-group';
import { fromWire, type WireBatch } from './wire';

const port = parentPort;
if (!port) throw new Error('parquet-worker: not started as a worker thread');
const layout = parquetLayout((workerData as { columns?: string[] } | null)?.columns);

port.on('message', (m: WireBatch) => {
  try {
    const group = encodeGroup(layout, m.rows, fromWire);
    // the metadata and its page indexes go in one message: they share the column chunk objects
    port.postMessage({ seq: m.seq, group }, [group.bytes.buffer as ArrayBuffer]);
  } catch (e) {
    port.postMessage({ seq: m.seq, error: e instanceof Error ? e.message : String(e) });
  }
});
