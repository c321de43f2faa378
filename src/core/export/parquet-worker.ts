/**
 * Worker thread of a Parquet export (docs/export.md "Parquet", Performance): receives the rows of
 * a row group in parts as the exporting thread reads them (the record as JSON text when the source
 * has it), parses, types and encodes each row at once with the same code as the exporting thread
 * (parquet-group.ts), and when the group's last part arrives answers with the group's bytes (moved,
 * not copied) and its metadata; the exporting thread places them in the file.
 *
 *   workerData: { columns?: string[] }
 *   in:  { seq, rows: WireRow[], more?: true, size?: number }   (seq: the group; more: parts follow; size: rows expected)
 *   out: { seq, group: EncodedGroup } | { seq, error }           (after the part without `more`)
 */
import { parentPort, workerData } from 'node:worker_threads';
import { GroupEncoder, parquetLayout } from './parquet-group';
import { fromWire, type WireBatch } from './wire';

const port = parentPort;
if (!port) throw new Error('parquet-worker: not started as a worker thread');
const layout = parquetLayout((workerData as { columns?: string[] } | null)?.columns);

/** the group being received (parts of one group arrive in order, one group after another) */
let current: { seq: number; enc: GroupEncoder; error?: string } | null = null;

port.on('message', (m: WireBatch & { more?: boolean; size?: number }) => {
  if (current?.seq !== m.seq) current = { seq: m.seq, enc: new GroupEncoder(layout, m.size ?? m.rows.length) };
  const g = current;
  if (g.error === undefined) {
    try {
      for (const w of m.rows) g.enc.add(fromWire(w));
    } catch (e) {
      g.error = e instanceof Error ? e.message : String(e);
    }
  }
  if (m.more) return;
  current = null;
  try {
    if (g.error !== undefined) throw new Error(g.error);
    const group = g.enc.finish();
    // the metadata and its page indexes go in one message: they share the column chunk objects
    port.postMessage({ seq: m.seq, group }, [group.bytes.buffer as ArrayBuffer]);
  } catch (e) {
    port.postMessage({ seq: m.seq, error: e instanceof Error ? e.message : String(e) });
  }
});
