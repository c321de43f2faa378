/**
 * Worker thread of a Parquet export (docs/export.md "Parquet", Performance): receives the rows of
 * a row group in parts as the exporting thread reads them (the record as JSON text when the source
 * has it), parses, types and encodes each row at once with the same code as the exporting thread
 * (parquet-group.ts), and when the group's last part arrives answers with the group's bytes (moved,
 * not copied) and its metadata; the exporting thread places them in the file.
 *
 * Or (issue 30) a whole group as rids: the worker reads those rows itself from the archive file
 * (rid-rows.ts, each record as its stored bytes) and encodes them from those bytes (parquet-spans.ts); when one of them is no longer there (deleted since the export's
 * snapshot) it answers `missing` and the exporting thread encodes that group from its snapshot.
 *
 * Or (issue 29) a whole group of a dataset bundle's item tables by rid (`tables`): the rows read
 * once, answered as the Parquet group, the CSV and JSONL bytes, the row hashes and each row's
 * calls and metric history (bundle-render.ts).
 *
 *   workerData: { columns?: string[]; reader?: RidSource }
 *   in:  { seq, rows: WireRow[], more?: true, size?: number }   (seq: the group; more: parts follow; size: rows expected)
 *      | { seq, rids: number[] }                                (a whole group, by rid)
 *      | { seq, rids: number[], tables: true }                  (a bundle's tables: out { seq, part: TablesPart })
 *      | { spare: ArrayBuffer[] }                               (a bundle's CSV / JSONL buffers back, written: no answer)
 *      | { seq, history: { rids: Float64Array, dir } }          (a bundle's metric history files: out { seq, files } | { seq, missing })
 *   out: { seq, group: EncodedGroup } | { seq, missing: true } | { seq, error }   (after the part without `more`)
 */
import { parentPort, workerData } from 'node:worker_threads';
import { detachEarly } from './detach-early';
import { writeHistoryFiles } from './bundle-history';
import { bundleReader, partBuffers, SpareBuffers, tablesLayout, tablesOfRids, type GroupReuse, type TablesLayout } from './bundle-render';
import { GroupEncoder, parquetLayout, type EncodedGroup } from './parquet-group';
import { parquetSpanAdder } from './parquet-spans';
import { ridBatchReader } from './rid-batch';
import { RID_BATCH, type RidSource } from './rid-rows';
import { warmSnappy } from './snappy';
import { mark } from './timeline';
import { fromWire, type WireBatch } from './wire';

const port = parentPort;
if (!port) throw new Error('parquet-worker: not started as a worker thread');
// before any code is hot: the groups' buffers are moved to the exporting thread (detach-early.ts)
detachEarly();
// Snappy's every path run once, so that its first pages are not compiled again and again (snappy.ts)
warmSnappy();
const data = (workerData ?? {}) as { columns?: string[]; reader?: RidSource };
const layout = parquetLayout(data.columns);
/** rows by rid, a batch in one aggregate row (rid-batch.ts), each record its stored bytes, added from those bytes (parquet-spans.ts) */
const readRows = ridBatchReader(data.reader);
const addRow = parquetSpanAdder(layout);
/** one encoder for every group of this worker (groups come one after another): its buffers are reused */
let encoder: GroupEncoder | null = null;
const encoderFor = (size: number): GroupEncoder => {
  encoder ??= new GroupEncoder(layout, size);
  encoder.reset();
  return encoder;
};

/**
 * a group by rid: read in batches and encoded as they come; null when a row is gone. The loop is a
 * function of its own: V8 optimises it while the first group runs (on-stack replacement), and
 * `finish` in the same function, not yet run then, threw that code away at the group's end
 * ("Insufficient type feedback", `--trace-deopt`), to compile the loop and all it inlines again.
 */
function encodeRids(rids: number[]): EncodedGroup | null {
  const enc = encoderFor(rids.length);
  return addRids(enc, rids) ? enc.finish() : null;
}

/** the rows of `rids` into `enc`; false when one is gone */
function addRids(enc: GroupEncoder, rids: number[]): boolean {
  for (let i = 0; i < rids.length; i += RID_BATCH) {
    const rows = readRows(rids.slice(i, i + RID_BATCH));
    if (!rows) return false;
    for (const row of rows) addRow(enc, row);
  }
  return true;
}

let tables: TablesLayout | null = null;
/** a bundle's rows with their calls and metric history (bundle-render.ts) */
const bundle = data.reader ? bundleReader(data.reader) : null;
const readBundle = bundle?.read ?? null;
/** a bundle's encoder and the CSV and JSONL buffers the exporting thread gave back, from group to group */
let reuse: GroupReuse | null = null;

mark('worker ready');

/** the group being received (parts of one group arrive in order, one group after another) */
let current: { seq: number; enc: GroupEncoder; error?: string } | null = null;

type Message =
  | (WireBatch & { more?: boolean; size?: number })
  | { seq: number; rids: number[]; tables?: true }
  | { spare: ArrayBuffer[] }
  | { seq: number; history: { rids: Float64Array; dir: string } };

/** a bundle's history files, once this worker's groups are done (bundle-history.ts) */
async function history(seq: number, job: { rids: Float64Array; dir: string }): Promise<void> {
  try {
    if (!bundle) throw new Error('export worker: a history without an archive to read it from');
    const files = await writeHistoryFiles(bundle.history, job.rids, job.dir);
    port?.postMessage(files ? { seq, files } : { seq, missing: true });
  } catch (e) {
    port?.postMessage({ seq, error: e instanceof Error ? e.message : String(e) });
  }
}

port.on('message', (m: Message) => {
  if ('spare' in m) {
    // a bundle's group buffers, written: kept for the next groups (no answer)
    if (reuse) for (const b of m.spare) reuse.spare.give(b);
    return;
  }
  if ('history' in m) return void history(m.seq, m.history);
  if ('rids' in m && m.tables) {
    try {
      if (!readBundle) throw new Error('export worker: rids without an archive to read them from');
      tables ??= tablesLayout();
      reuse ??= { enc: new GroupEncoder(tables.layout, m.rids.length), spare: new SpareBuffers() };
      const part = tablesOfRids(tables, readBundle, m.rids, reuse);
      if (!part) return void port.postMessage({ seq: m.seq, missing: true });
      port.postMessage({ seq: m.seq, part }, partBuffers(part));
    } catch (e) {
      port.postMessage({ seq: m.seq, error: e instanceof Error ? e.message : String(e) });
    }
    return;
  }
  if ('rids' in m) {
    mark(`in ${m.seq}`);
    try {
      const group = encodeRids(m.rids);
      if (!group) return void port.postMessage({ seq: m.seq, missing: true });
      port.postMessage({ seq: m.seq, group }, [group.bytes.buffer as ArrayBuffer]);
      mark(`out ${m.seq}`);
    } catch (e) {
      port.postMessage({ seq: m.seq, error: e instanceof Error ? e.message : String(e) });
    }
    return;
  }
  if (current?.seq !== m.seq) current = { seq: m.seq, enc: encoderFor(m.size ?? m.rows.length) };
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
