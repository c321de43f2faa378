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
 *   in:  first { config: { columns?: string[]; reader?: RidSource } }   (worker-config.ts)
 *      then { seq, rows: WireRow[], more?: true, size?: number }   (seq: the group; more: parts follow; size: rows expected)
 *      | { seq, rids: number[] }                                (a whole group, by rid)
 *      | { seq, rids: number[], tables: true }                  (a bundle's tables: out { seq, part: TablesPart })
 *      | { spare: ArrayBuffer[] }                               (buffers back, written: a bundle's CSV / JSONL, an export's group bytes; no answer)
 *      | { seq, history: { rids: Float64Array, dir } }          (a bundle's metric history files: out { seq, files } | { seq, missing })
 *   out: { seq, group: EncodedGroup } | { seq, missing: true } | { seq, error }   (after the part without `more`)
 */
import { parentPort, type MessagePort } from 'node:worker_threads';
import { detachEarly } from './detach-early';
import { writeHistoryFiles } from './bundle-history';
import { bundleReader, partBuffers, SpareBuffers, tablesLayout, tablesOfRids, type GroupReuse, type TablesLayout } from './bundle-render';
import { GroupEncoder, parquetLayout, type EncodedGroup, type ParquetLayout } from './parquet-group';
import { parquetSpanAdder } from './parquet-spans';
import { ridBatchReader } from './rid-batch';
import { RID_BATCH } from './rid-rows';
import { warmSnappy } from './snappy';
import { mark } from './timeline';
import { fromWire, type WireBatch } from './wire';
import { afterConfig, type WorkerConfig } from './worker-config';

if (!parentPort) throw new Error('parquet-worker: not started as a worker thread');
const port: MessagePort = parentPort;
// before any code is hot: the groups' buffers are moved to the exporting thread (detach-early.ts)
detachEarly();
// Snappy's every path run once, so that its first pages are not compiled again and again (snappy.ts)
warmSnappy();

type Message =
  | (WireBatch & { more?: boolean; size?: number })
  | { seq: number; rids: number[]; tables?: true }
  | { spare: ArrayBuffer[] }
  | { seq: number; history: { rids: Float64Array; dir: string } };

const failed = (seq: number, e: unknown): void => port.postMessage({ seq, error: e instanceof Error ? e.message : String(e) });

/** one encoder for every group of this worker (groups come one after another): its buffers are reused */
function encoders(layout: ParquetLayout): (size: number) => GroupEncoder {
  let encoder: GroupEncoder | null = null;
  return (size) => {
    encoder ??= new GroupEncoder(layout, size);
    encoder.reset();
    return encoder;
  };
}

/**
 * Whole groups by rid: read in batches and encoded as they come; null when a row is gone. The loop
 * is a function of its own: V8 optimises it while the first group runs (on-stack replacement), and
 * `finish` in the same function, not yet run then, threw that code away at the group's end
 * ("Insufficient type feedback", `--trace-deopt`), to compile the loop and all it inlines again.
 */
function ridGroups(
  config: WorkerConfig,
  layout: ParquetLayout,
  encoderFor: (size: number) => GroupEncoder,
  spares: SpareBuffers,
): (rids: number[]) => EncodedGroup | null {
  /** rows by rid, a batch in one aggregate row (rid-batch.ts), each record its stored bytes, added from those bytes (parquet-spans.ts) */
  const readRows = ridBatchReader(config.reader);
  const addRow = parquetSpanAdder(layout);
  /** the rows of `rids` into `enc`; false when one is gone */
  function addRids(enc: GroupEncoder, rids: number[]): boolean {
    for (let i = 0; i < rids.length; i += RID_BATCH) {
      const rows = readRows(rids.slice(i, i + RID_BATCH));
      if (!rows) return false;
      for (const row of rows) addRow(enc, row);
    }
    return true;
  }
  return (rids) => {
    const enc = encoderFor(rids.length);
    return addRids(enc, rids) ? enc.finish(spares) : null;
  };
}

/** A dataset bundle's groups: its tables by rid, the buffers given back, its history files (bundle-render.ts, bundle-history.ts). */
function bundleParts(config: WorkerConfig): {
  tables(seq: number, rids: number[]): void;
  spare(buffers: ArrayBuffer[]): boolean;
  history(seq: number, job: { rids: Float64Array; dir: string }): Promise<void>;
} {
  let tables: TablesLayout | null = null;
  /** a bundle's rows with their calls and metric history */
  const bundle = config.reader ? bundleReader(config.reader) : null;
  const readBundle = bundle?.read ?? null;
  /** a bundle's encoder and the CSV and JSONL buffers the exporting thread gave back, from group to group */
  let reuse: GroupReuse | null = null;
  return {
    tables(seq, rids) {
      try {
        if (!readBundle) throw new Error('export worker: rids without an archive to read them from');
        tables ??= tablesLayout();
        reuse ??= { enc: new GroupEncoder(tables.layout, rids.length), spare: new SpareBuffers() };
        const part = tablesOfRids(tables, readBundle, rids, reuse);
        if (!part) return void port.postMessage({ seq, missing: true });
        port.postMessage({ seq, part }, partBuffers(part));
      } catch (e) {
        failed(seq, e);
      }
    },
    // a bundle's group buffers, written: kept for the next groups (no answer); false when this is not a bundle's worker
    spare(buffers) {
      if (!reuse) return false;
      for (const b of buffers) reuse.spare.give(b);
      return true;
    },
    // a bundle's history files, once this worker's groups are done
    async history(seq, job) {
      try {
        if (!bundle) throw new Error('export worker: a history without an archive to read it from');
        const files = await writeHistoryFiles(bundle.history, job.rids, job.dir);
        port.postMessage(files ? { seq, files } : { seq, missing: true });
      } catch (e) {
        failed(seq, e);
      }
    },
  };
}

/** Groups sent as rows in parts: each part encoded as it comes, the group answered after its last part. */
function rowParts(encoderFor: (size: number) => GroupEncoder): (m: WireBatch & { more?: boolean; size?: number }) => void {
  /** the group being received (parts of one group arrive in order, one group after another) */
  let current: { seq: number; enc: GroupEncoder; error?: string } | null = null;
  return (m) => {
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
      failed(m.seq, e);
    }
  };
}

/** this worker's code for the export that sent `config` (worker-config.ts): the handler of its every later message */
function setup(config: WorkerConfig): (m: Message) => void {
  const layout = parquetLayout(config.columns);
  const encoderFor = encoders(layout);
  /** an export's groups by rid: their buffers given back once written (parquet-rids.ts), for the next groups' bytes */
  const groupSpares = new SpareBuffers(2);
  const encodeRids = ridGroups(config, layout, encoderFor, groupSpares);
  const bundle = bundleParts(config);
  const parts = rowParts(encoderFor);
  return (m) => {
    if ('spare' in m) {
      if (!bundle.spare(m.spare)) for (const b of m.spare) groupSpares.give(b);
      return;
    }
    if ('history' in m) return void bundle.history(m.seq, m.history);
    if ('rids' in m && m.tables) return bundle.tables(m.seq, m.rids);
    if (!('rids' in m)) return parts(m);
    mark(`in ${m.seq}`);
    try {
      const group = encodeRids(m.rids);
      if (!group) return void port.postMessage({ seq: m.seq, missing: true });
      port.postMessage({ seq: m.seq, group }, [group.bytes.buffer as ArrayBuffer]);
      mark(`out ${m.seq}`);
    } catch (e) {
      failed(m.seq, e);
    }
  };
}

afterConfig<Message>(port, setup);
