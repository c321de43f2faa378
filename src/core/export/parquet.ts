/**
 * Parquet exports for DuckDB, pandas, R (arrow) and Spark (docs/export.md "Parquet").
 *
 * The columns of the CSV export, typed: ids and all other text `STRING` (UTF-8; ids never become
 * numbers), times `TIMESTAMP` (milliseconds, UTC), counts `INT64`, probabilities and durations
 * `DOUBLE`, flags `BOOLEAN`, one column per label field typed from the spec's label table
 * (src/shared/labels.ts: probability → DOUBLE, 0–3 / 0–4 scales → INT32, flags → BOOLEAN, words →
 * STRING), and nested values (media URLs, `ext`, tags, overrides, `extra`) as JSON. A value that
 * does not fit its column's type (an API change, a label given as text) is written as null there
 * and kept, by column name, in the JSON column `untyped`, so nothing is lost.
 *
 * Rows are gathered into row groups of 20,000, each encoded (dictionary where it pays, Snappy) by
 * hyparquet-writer (parquet-group.ts). From the second group on, groups are encoded on export
 * worker threads (parquet-worker.ts) while this thread reads the next rows, and written in order;
 * when every worker has two groups in hand this thread encodes the next one itself. Memory holds
 * a few groups however many rows there are.
 */
import { randomBytes } from 'node:crypto';
import { open, rename, stat, unlink, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { ByteWriter, ParquetWriter } from 'hyparquet-writer';
import type { ExportRow } from '../ports';
import { defaultThreads, ExportPool, WORKER_LIMITS } from './csv-pool';
import { encodeGroup, parquetLayout, placeGroup, PARQUET_OPTIONS, type EncodedGroup } from './parquet-group';
import { fromWire, toWire, type WireRow } from './wire';

export { parquetType, type ParquetColumnType } from './parquet-group';

export const PARQUET_ROW_GROUP = 20_000;

export interface ParquetOptions {
  out: string;
  columns?: string[];
  signal?: AbortSignal;
  onProgress?: (rows: number) => void;
  total?: number;
  /** rows per row group (tests use small groups); default 20,000 */
  rowGroupSize?: number;
  /** worker threads that encode row groups (default: one per core but one, max 4; 0 = this thread only) */
  threads?: number;
}

export interface ParquetResult {
  rows: number;
  bytes: number;
  path: string;
  rowGroups: number;
  /** values that did not fit their column's type (kept in `untyped`) */
  untypedValues: number;
}

/** A worker holds one group of 20,000 parsed rows and its columns while it encodes them. */
const PARQUET_WORKER_LIMITS = { ...WORKER_LIMITS, maxOldGenerationSizeMb: 512 };
/** groups in a worker's hands before this thread encodes one itself */
const IN_FLIGHT_PER_WORKER = 2;
/** the longest this thread reads rows without giving the event loop a turn */
const YIELD_MS = 25;

/** Workers that encode row groups (parquet-worker.ts). */
class ParquetPool extends ExportPool {
  static start(threads: number, columns: string[] | undefined): ParquetPool | null {
    const workers = ExportPool.workers('parquet-worker', threads, { columns }, PARQUET_WORKER_LIMITS);
    return workers ? new ParquetPool(workers) : null;
  }

  encode(rows: WireRow[]): Promise<EncodedGroup> {
    const p = this.send(rows).then((m) => m.group as EncodedGroup);
    p.catch(() => undefined); // a group abandoned by a cancel is not an unhandled rejection
    return p;
  }
}

/** hyparquet-writer's byte writer over a file: what it holds is written when flushed (the magic, the footer). */
function fileWriter(fh: FileHandle): ByteWriter & { flush(): Promise<void>; finish(): Promise<void> } {
  const w = new ByteWriter(1 << 16) as ByteWriter & { flush(): Promise<void>; finish(): Promise<void> };
  const drain = async (): Promise<void> => {
    if (w.index === 0) return;
    const chunk = Buffer.from(w.buffer.slice(0, w.index));
    w.index = 0;
    await fh.write(chunk);
  };
  w.flush = drain;
  w.finish = drain;
  return w;
}

function abortError(signal: AbortSignal): Error {
  const r: unknown = signal.reason;
  if (r instanceof Error) return r;
  const e = new Error('export cancelled');
  e.name = 'AbortError';
  return e;
}

interface Slot {
  rows: number;
  group?: EncodedGroup;
  err?: unknown;
  wait?: Promise<void>;
}

/** Export rows to a Parquet file at `opts.out` (temporary name, renamed when complete). */
export async function exportParquet(rows: Iterable<ExportRow> | AsyncIterable<ExportRow>, opts: ParquetOptions): Promise<ParquetResult> {
  const layout = parquetLayout(opts.columns);
  const groupSize = Math.max(1, opts.rowGroupSize ?? PARQUET_ROW_GROUP);
  const threads = Math.max(0, opts.threads ?? defaultThreads());
  const { signal, onProgress } = opts;
  signal?.throwIfAborted();
  const finalPath = resolve(opts.out);
  const tmp = join(dirname(finalPath), `.${basename(finalPath)}.${randomBytes(6).toString('hex')}.partial`);
  const every = opts.total && opts.total > 0 ? Math.max(1, Math.floor(opts.total / 200)) : 1000;

  let fh: FileHandle | null = null;
  let pool: ParquetPool | null | undefined; // undefined: not needed yet
  let count = 0;
  let groups = 0;
  let untypedValues = 0;
  let nextReport = every;
  try {
    fh = await open(tmp, 'wx');
    const file = fh;
    const bw = fileWriter(file);
    const writer = new ParquetWriter({ writer: bw, schema: layout.schema, ...PARQUET_OPTIONS });
    const queue: Slot[] = [];
    let atWorkers = 0;

    const writeHead = async (): Promise<void> => {
      const slot = queue.shift()!;
      if (!slot.group && slot.err === undefined) await slot.wait;
      if (slot.err !== undefined) throw slot.err;
      const g = slot.group!;
      await bw.flush();
      const at = bw.offset;
      await file.write(g.bytes);
      bw.offset += g.bytes.length;
      placeGroup(writer, g, at);
      groups++;
      count += g.rows;
      untypedValues += g.untypedValues;
      if (onProgress && count >= nextReport) {
        nextReport = count + every;
        onProgress(count);
      }
    };
    const submit = (batch: WireRow[]): void => {
      // workers start with the first full group: an export of one group never pays for them
      if (pool === undefined) pool = threads > 0 && batch.length === groupSize ? ParquetPool.start(threads, opts.columns) : null;
      if (pool && atWorkers < pool.size * IN_FLIGHT_PER_WORKER) {
        const slot: Slot = { rows: batch.length };
        atWorkers++;
        slot.wait = pool
          .encode(batch)
          .then(
            (g) => void (slot.group = g),
            (e: unknown) => void (slot.err = e),
          )
          .finally(() => atWorkers--);
        queue.push(slot);
      } else queue.push({ rows: batch.length, group: encodeGroup(layout, batch, fromWire) });
    };
    /** after a group is handed out: write what is ready, wait while too many groups are pending */
    const settle = async (): Promise<void> => {
      while (queue.length > 0 && (queue[0].group || queue[0].err !== undefined)) await writeHead();
      const cap = pool ? pool.size * IN_FLIGHT_PER_WORKER + 1 : 0;
      while (queue.length > cap) await writeHead();
    };

    // rows wait as tuples with their record's JSON text (no parsed record is held for a whole group)
    let batch: WireRow[] = [];
    let turn = performance.now();
    if (Symbol.asyncIterator in rows) {
      for await (const row of rows) {
        if (signal?.aborted) throw abortError(signal);
        batch.push(toWire(row));
        if (batch.length >= groupSize) {
          submit(batch);
          batch = [];
          await settle();
        }
      }
    } else {
      // a synchronous source (the archive) is read without an await per row; the event loop gets
      // a turn at least every YIELD_MS (worker answers, a cancel, the app's other requests)
      for (const row of rows) {
        if (signal?.aborted) throw abortError(signal);
        batch.push(toWire(row));
        if (batch.length >= groupSize) {
          submit(batch);
          batch = [];
          await settle();
        }
        if ((batch.length & 255) === 0 && performance.now() - turn >= YIELD_MS) {
          await new Promise<void>((res) => setImmediate(res));
          turn = performance.now();
        }
      }
    }
    if (batch.length > 0) submit(batch);
    while (queue.length > 0) {
      if (signal?.aborted) throw abortError(signal);
      await writeHead();
    }
    if (signal?.aborted) throw abortError(signal);
    await writer.finish();
    await file.close();
    fh = null;
    const bytes = (await stat(tmp)).size;
    await rename(tmp, finalPath);
    onProgress?.(count);
    return { rows: count, bytes, path: finalPath, rowGroups: groups, untypedValues };
  } catch (e) {
    await fh?.close().catch(() => undefined);
    await unlink(tmp).catch(() => undefined);
    throw e;
  } finally {
    await pool?.close();
  }
}
