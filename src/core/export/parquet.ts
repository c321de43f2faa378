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
import { open, rename, stat, unlink, type FileHandle } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { ByteWriter, ParquetWriter } from 'hyparquet-writer';
import type { ExportRow, ExportRowSource } from '../ports';
import { defaultThreads, ExportPool } from './csv-pool';
import { ridThreads } from './csv-rids';
import { parquetFromRids, PARQUET_WORKER_LIMITS } from './parquet-rids';
import {
  encodeGroup,
  GroupEncoder,
  parquetLayout,
  placeGroup,
  PARQUET_OPTIONS,
  type EncodedGroup,
  type ParquetLayout,
} from './parquet-group';
import { fromWire, toWire, type WireRow } from './wire';
import { abortError } from './abort';
import { YIELD_MS } from './turns';
import { absent, shifted } from '../../shared/maps';
import { freshPartial } from '../partial-files';

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
  /**
   * worker threads that encode row groups (0 = this thread only). Default: from the archive,
   * workers that read their groups' rows themselves, one per core (max 4); from other rows, one
   * per core but one (this thread reads the rows), max 4.
   */
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

/** groups in a worker's hands before this thread encodes one itself */
const IN_FLIGHT_PER_WORKER = 2;
/** rows of a group sent to its worker in one message */
const CHUNK_ROWS = 1000;

/** A row group streamed to a worker: its rows go in parts, the answer is the encoded group. */
interface GroupJob {
  post(rows: WireRow[], more: boolean): void;
  done: Promise<EncodedGroup>;
}

/**
 * Workers that encode row groups (parquet-worker.ts). A group goes to one worker in parts of
 * CHUNK_ROWS rows as they are read, so neither thread holds a whole group of rows (their strings
 * die young instead of being promoted and collected at length); the worker answers once per group.
 */
class ParquetPool extends ExportPool {
  private readonly answers = new Map<number, { resolve(g: EncodedGroup): void; reject(e: Error): void }>();
  private groupSeq = 0;
  private broken: Error | null = null;

  static start(threads: number, columns: string[] | undefined): ParquetPool | null {
    const workers = ExportPool.workers('parquet-worker', threads, { columns }, PARQUET_WORKER_LIMITS);
    return workers ? new ParquetPool(workers) : null;
  }

  private constructor(private readonly threads: Worker[]) {
    super(threads);
    for (const w of threads) {
      w.on('message', (m: { seq: number; group?: EncodedGroup; error?: string }) => {
        const a = this.answers.get(m.seq);
        if (!a) return;
        this.answers.delete(m.seq);
        if (m.error !== undefined) a.reject(new Error(`export worker: ${m.error}`));
        else if (m.group) a.resolve(m.group);
        else a.reject(new Error('export worker: an answer without its row group'));
      });
      w.on('error', (e) => this.stop(e));
      w.on('exit', (code) => {
        if (this.answers.size > 0) this.stop(new Error(`export worker stopped (exit code ${code})`));
      });
    }
  }

  /** a group for the next worker (round-robin), about `size` rows */
  begin(size: number): GroupJob {
    const seq = this.groupSeq++;
    const w = this.threads[seq % this.threads.length];
    const done = this.broken
      ? Promise.reject(this.broken)
      : new Promise<EncodedGroup>((resolve, reject) => this.answers.set(seq, { resolve, reject }));
    done.catch(() => undefined); // a group abandoned by a cancel is not an unhandled rejection
    let first = true;
    return {
      done,
      post: (rows, more) => {
        if (this.broken) return;
        w.postMessage(first ? { seq, rows, more, size } : { seq, rows, more });
        first = false;
      },
    };
  }

  private stop(e: Error): void {
    this.broken ??= e;
    for (const a of this.answers.values()) a.reject(this.broken);
    this.answers.clear();
  }

  override async close(): Promise<void> {
    this.stop(new Error('export workers closed'));
    await super.close();
  }
}

/** Where a Parquet file's bytes go, in order: a file, or one that hashes them as written (bundle-tables.ts HashedFile). */
export interface ParquetSink {
  write(b: Uint8Array): Promise<unknown>;
}

/** hyparquet-writer's byte writer over a file: what it holds is written when flushed (the magic, the footer). */
function fileWriter(fh: ParquetSink): ByteWriter & { flush(): Promise<void>; finish(): Promise<void> } {
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

/** The file being written: encoded groups placed in order, then the footer (hyparquet-writer's). */
export class GroupFile {
  rows = 0;
  groups = 0;
  untypedValues = 0;
  private nextReport: number;
  private readonly bw: ReturnType<typeof fileWriter>;
  private readonly writer: ParquetWriter;

  constructor(
    private readonly file: ParquetSink,
    layout: ParquetLayout,
    private readonly every: number,
    private readonly onProgress?: (rows: number) => void,
  ) {
    this.bw = fileWriter(file);
    this.writer = new ParquetWriter({ writer: this.bw, schema: layout.schema, ...PARQUET_OPTIONS });
    this.nextReport = every;
  }

  /** write an encoded group after what the file holds */
  async place(g: EncodedGroup): Promise<void> {
    await this.bw.flush();
    const at = this.bw.offset;
    await this.file.write(g.bytes);
    this.bw.offset += g.bytes.length;
    placeGroup(this.writer, g, at);
    this.groups++;
    this.rows += g.rows;
    this.untypedValues += g.untypedValues;
    if (this.onProgress && this.rows >= this.nextReport) {
      this.nextReport = this.rows + this.every;
      this.onProgress(this.rows);
    }
  }

  async finish(): Promise<void> {
    await this.writer.finish();
  }
}

/**
 * The archive's rows as rids, read and encoded by the workers themselves (parquet-rids.ts) into
 * `out`; false when the rows are to be exported here (not the archive, one group, no worker).
 */
async function placedByRids(
  rows: Iterable<ExportRow> | AsyncIterable<ExportRow>,
  opts: ParquetOptions,
  layout: ParquetLayout,
  groupSize: number,
  out: GroupFile,
): Promise<boolean> {
  const walk = !(Symbol.asyncIterator in rows) && opts.threads !== 0 ? ((rows as ExportRowSource).ridWalk?.() ?? null) : null;
  if (!walk) return false;
  try {
    const threads = opts.threads ?? ridThreads();
    return await parquetFromRids(walk, {
      layout,
      groupSize,
      columns: opts.columns,
      threads,
      expected: opts.total,
      signal: opts.signal,
      place: (g) => out.place(g),
    });
  } finally {
    walk.close();
  }
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
  const tmp = freshPartial(finalPath);
  const every = opts.total && opts.total > 0 ? Math.max(1, Math.floor(opts.total / 200)) : 1000;

  let fh: FileHandle | null = null;
  let pool: ParquetPool | null | undefined; // undefined: not needed yet
  try {
    fh = await open(tmp, 'wx');
    const file = fh;
    const out = new GroupFile(file, layout, every, onProgress);
    const queue: Slot[] = [];
    let atWorkers = 0;
    const writeHead = async (): Promise<void> => {
      const slot = shifted(queue, 'row group');
      if (!slot.group && slot.err === undefined) await slot.wait;
      if (slot.err !== undefined) throw slot.err;
      await out.place(slot.group ?? absent('encoded row group'));
    };
    const byRids = await placedByRids(rows, opts, layout, groupSize, out);
    // the group being filled: encoded here as rows come, streamed to a worker in parts, or (the
    // first group) kept as tuples until it is full: then workers start and it goes to one of them
    type Current = { enc: GroupEncoder; job?: undefined; part?: undefined } | { enc?: undefined; job?: GroupJob; part: WireRow[] };
    let cur: Current | null = null;
    let inGroup = 0;
    let begun = 0;
    /** a group for a worker, or null when they all have enough in hand (or there is none) */
    const toWorker = (): GroupJob | null => {
      if (!pool || atWorkers >= pool.size * IN_FLIGHT_PER_WORKER) return null;
      const slot: Slot = { rows: 0 };
      atWorkers++;
      const job = pool.begin(groupSize);
      slot.wait = job.done
        .then(
          (g) => void (slot.group = g),
          (e: unknown) => void (slot.err = e),
        )
        .finally(() => atWorkers--);
      queue.push(slot);
      return job;
    };
    const begin = (): Current => {
      if (begun++ === 0) return { part: [] };
      const job = toWorker();
      return job ? { job, part: [] } : { enc: new GroupEncoder(layout, groupSize) };
    };
    /** one more row; true when it completed a group */
    const add = (row: ExportRow): boolean => {
      const c = (cur ??= begin());
      if (c.enc) c.enc.add(row);
      else {
        c.part.push(toWire(row));
        if (c.job && c.part.length >= CHUNK_ROWS) {
          c.job.post(c.part, true);
          c.part = [];
        }
      }
      if (++inGroup < groupSize) return false;
      endGroup();
      return true;
    };
    const endGroup = (): void => {
      const c = cur ?? absent('row group being filled');
      if (c.enc) queue.push({ rows: inGroup, group: c.enc.finish() });
      else if (c.job) c.job.post(c.part, false);
      else {
        // the first group: workers start with it when it is full (an export of one group never pays for them)
        pool = threads > 0 && inGroup === groupSize ? ParquetPool.start(threads, opts.columns) : null;
        const job = toWorker();
        if (job)
          for (let i = 0; i < c.part.length; i += CHUNK_ROWS) job.post(c.part.slice(i, i + CHUNK_ROWS), i + CHUNK_ROWS < c.part.length);
        else queue.push({ rows: inGroup, group: encodeGroup(layout, c.part, fromWire) });
      }
      cur = null;
      inGroup = 0;
    };
    /** after a group is handed out: write what is ready, wait while too many groups are pending */
    const settle = async (): Promise<void> => {
      while (queue.length > 0 && (queue[0].group || queue[0].err !== undefined)) await writeHead();
      const cap = pool ? pool.size * IN_FLIGHT_PER_WORKER + 1 : 0;
      while (queue.length > cap) await writeHead();
    };

    let turn = performance.now();
    if (byRids) {
      // every row is in the file
    } else if (Symbol.asyncIterator in rows) {
      for await (const row of rows) {
        if (signal?.aborted) throw abortError(signal);
        if (add(row)) await settle();
      }
    } else {
      // a synchronous source (the archive) is read without an await per row; the event loop gets
      // a turn at least every YIELD_MS (worker answers, a cancel, the app's other requests)
      let k = 0;
      for (const row of rows) {
        if (signal?.aborted) throw abortError(signal);
        if (add(row)) await settle();
        if ((++k & 255) === 0 && performance.now() - turn >= YIELD_MS) {
          await new Promise<void>((res) => setImmediate(res));
          turn = performance.now();
        }
      }
    }
    if (inGroup > 0) endGroup();
    while (queue.length > 0) {
      if (signal?.aborted) throw abortError(signal);
      await writeHead();
    }
    if (signal?.aborted) throw abortError(signal);
    await out.finish();
    await file.close();
    fh = null;
    const bytes = (await stat(tmp)).size;
    await rename(tmp, finalPath);
    onProgress?.(out.rows);
    return { rows: out.rows, bytes, path: finalPath, rowGroups: out.groups, untypedValues: out.untypedValues };
  } catch (e) {
    await fh?.close().catch(() => undefined);
    await unlink(tmp).catch(() => undefined);
    throw e;
  } finally {
    await pool?.close();
  }
}
