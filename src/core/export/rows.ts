/**
 * Streaming exports of archived items to CSV, JSON (one array) or JSONL (docs/export.md).
 *
 * - Rows are pulled one at a time from a (possibly async) iterable, rendered into chunks of
 *   ~64 KiB and written through a file stream that is awaited on backpressure: memory stays flat
 *   whatever the row count.
 * - The file is written to a temporary name in the destination directory and renamed onto the
 *   final name only after every byte was flushed. On failure or cancel the temporary file is
 *   removed; whatever already sits at the final name is untouched until the rename.
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import { rename, stat, unlink } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { ExportRow, ExportRowSource } from '../ports';
import { csvFromRids, ridThreads } from './csv-rids';
import { csvRecord } from './cells';
import { csvRenderer, resolveColumns } from './columns';
import { CsvPool, defaultThreads } from './csv-pool';
import { toWire } from './wire';
import { abortError } from './abort';
import { YIELD_MS } from './turns';
import { mark } from './timeline';
import { absent, shifted } from '../../shared/maps';
import { freshPartial } from '../partial-files';

export type ExportFormat = 'csv' | 'json' | 'jsonl';

export interface ExportOptions {
  format: ExportFormat;
  /** final path of the file */
  out: string;
  /** CSV only: write a UTF-8 byte order mark first (Excel needs it to read UTF-8). Default true. */
  bom?: boolean;
  /** CSV only: a subset of CSV_COLUMNS, written in the order given. Default: all of them. */
  columns?: string[];
  signal?: AbortSignal;
  /** called with the number of rows written so far, now and then and once at the end */
  onProgress?: (rowsWritten: number) => void;
  /**
   * expected row count, if known: sets how often progress is reported (~every 0.5%), and a CSV
   * export of the archive expected past `parallelAfter` rows starts its workers before its walk
   */
  total?: number;
  /**
   * CSV from a synchronous source (the archive): worker threads that render rows once more than
   * `parallelAfter` rows were written. Default: one per core (max 4); 0 = this thread only.
   */
  threads?: number;
  /** rows rendered on this thread before workers start (small exports never start any). Default 5000. */
  parallelAfter?: number;
}

export interface ExportResult {
  rows: number;
  bytes: number;
  path: string;
}

/**
 * The JSON / JSONL envelope of one item (docs/export.md "JSON and JSONL"): the row's platform,
 * kind, id, record, tags, note and overrides as they are, its times as ISO strings (key order:
 * toEnvelopeShell).
 */
export interface ExportEnvelope extends Pick<ExportRow, 'platform' | 'kind' | 'id' | 'record' | 'tags' | 'note' | 'overrides'> {
  first_seen_at: string | null;
  last_seen_at: string | null;
  /** the last re-check, and since when it has been found missing (null: never re-checked / available) */
  checked_at: string | null;
  missing_since: string | null;
}

export function toEnvelope(row: ExportRow): ExportEnvelope {
  return { ...toEnvelopeShell(row), record: row.record }; // `record` keeps its place (4th key)
}

/**
 * `JSON.stringify(toEnvelope(row))`. A row that carries its record as JSON text (the
 * archive's rows) is written around that text, so the record is neither parsed nor
 * re-serialised; the bytes are the same (recordJson === JSON.stringify(record)).
 */
export function envelopeJson(row: ExportRow): string {
  if (typeof row.recordJson !== 'string') return JSON.stringify(toEnvelope(row));
  const e = toEnvelopeShell(row);
  const head = JSON.stringify({ platform: e.platform, kind: e.kind, id: e.id });
  const tail = JSON.stringify({
    tags: e.tags,
    note: e.note,
    overrides: e.overrides,
    first_seen_at: e.first_seen_at,
    last_seen_at: e.last_seen_at,
    checked_at: e.checked_at,
    missing_since: e.missing_since,
  });
  return `${head.slice(0, -1)},"record":${row.recordJson},${tail.slice(1)}`;
}

/** a time as ISO 8601 UTC, null when none (or not a time) */
export const isoOrNull = (t: number | null | undefined): string | null =>
  typeof t === 'number' && Number.isFinite(t) ? new Date(t).toISOString() : null;

/** The envelope without touching `row.record` (which may parse lazily). */
function toEnvelopeShell(row: ExportRow): Omit<ExportEnvelope, 'record'> & { record: null } {
  return {
    platform: row.platform,
    kind: row.kind,
    id: row.id,
    record: null,
    tags: row.tags,
    note: row.note,
    overrides: row.overrides,
    first_seen_at: Number.isFinite(row.firstSeenAt) ? new Date(row.firstSeenAt).toISOString() : null,
    last_seen_at: Number.isFinite(row.lastSeenAt) ? new Date(row.lastSeenAt).toISOString() : null,
    checked_at: isoOrNull(row.checkedAt),
    missing_since: isoOrNull(row.missingSince),
  };
}

const CHUNK_CHARS = 64 * 1024;
/** bytes the file stream may hold before a write waits for the disk (the default 16 KiB made every 64 KiB chunk wait) */
const WRITE_AHEAD = 1 << 20;
/** rows (or record characters) per batch sent to an export worker, and batches in flight per worker */
const WIRE_BATCH = 500;
const WIRE_BATCH_CHARS = 1 << 20;
/** 4 queued batches per worker: with 2 the worker sat idle a quarter of the time waiting for the next (200k rows: -8 % time) */
const IN_FLIGHT_PER_WORKER = 4;
/** batches this thread may render ahead of a worker answer it still waits for */
const MAX_LOCAL_AHEAD = 4;

/** Stream writer with backpressure and error capture. */
class ChunkWriter {
  private err: Error | null = null;
  private constructor(private readonly ws: WriteStream) {
    ws.on('error', (e) => (this.err ??= e));
  }

  static async open(path: string): Promise<ChunkWriter> {
    // 'wx': the temp name is fresh; never clobber anything
    const ws = createWriteStream(path, { flags: 'wx', flush: true, highWaterMark: WRITE_AHEAD });
    const w = new ChunkWriter(ws);
    await new Promise<void>((res, rej) => {
      ws.once('open', () => res());
      ws.once('error', rej);
    });
    return w;
  }

  /** `written`: called once `s` is written (not when the write fails) */
  async write(s: string | Buffer, signal?: AbortSignal, written?: () => void): Promise<void> {
    if (this.err) throw this.err;
    const done = written && ((e?: Error | null): void => void (e || written()));
    if (this.ws.write(s, done)) return;
    await new Promise<void>((res, rej) => {
      const cleanup = (): void => {
        this.ws.off('drain', onDrain);
        this.ws.off('error', onErr);
        signal?.removeEventListener('abort', onAbort);
      };
      const onDrain = (): void => (cleanup(), res());
      const onErr = (e: Error): void => (cleanup(), rej(e));
      const onAbort = (): void => (cleanup(), rej(signal ? abortError(signal) : new Error('aborted')));
      this.ws.on('drain', onDrain);
      this.ws.on('error', onErr);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
    if (this.err) throw this.err;
  }

  async close(): Promise<void> {
    if (this.err) throw this.err;
    await new Promise<void>((res, rej) => {
      this.ws.end((e?: Error | null) => (e ? rej(e) : res()));
    });
    if (this.err) throw this.err;
  }

  async destroy(): Promise<void> {
    if (this.ws.closed) return;
    await new Promise<void>((res) => {
      this.ws.once('close', () => res());
      this.ws.destroy();
    });
  }
}

/** Accumulates text and hands it to the writer in ~64 KiB pieces. */
class Chunker {
  private buf = '';
  constructor(
    private readonly w: ChunkWriter,
    private readonly signal?: AbortSignal,
  ) {}
  async push(s: string): Promise<void> {
    this.add(s);
    if (this.full) await this.flush();
  }
  /** append without writing; call flush() once `full` */
  add(s: string): void {
    this.buf += s;
  }
  get full(): boolean {
    return this.buf.length >= CHUNK_CHARS;
  }
  /** write bytes (already UTF-8) after what is pending; `written` is called once they are written */
  async bytes(b: Uint8Array, written?: () => void): Promise<void> {
    await this.flush();
    await this.w.write(Buffer.from(b.buffer, b.byteOffset, b.byteLength), this.signal, written);
  }
  async flush(): Promise<void> {
    if (this.buf.length === 0) return;
    const s = this.buf;
    this.buf = '';
    await this.w.write(s, this.signal);
  }
}

/**
 * Iterate a sync or async source. For an async source the wait for the next row is raced against
 * the abort signal, so a cancel takes effect even while a slow source is still producing a row.
 */
async function* rowsOf<T>(it: Iterable<T> | AsyncIterable<T>, signal?: AbortSignal): AsyncIterable<T> {
  if (!signal || !(Symbol.asyncIterator in it)) {
    yield* it;
    return;
  }
  const iter = it[Symbol.asyncIterator]();
  let onAbort: (() => void) | null = null;
  const aborted = new Promise<never>((_, rej) => {
    onAbort = () => rej(abortError(signal));
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  aborted.catch(() => undefined);
  let finished = false;
  try {
    for (;;) {
      const r = await Promise.race([iter.next(), aborted]);
      if (r.done) {
        finished = true;
        return;
      }
      yield r.value;
    }
  } finally {
    if (onAbort) signal.removeEventListener('abort', onAbort);
    // let the source release its resources; do not wait for a source stuck in next()
    if (!finished) void Promise.resolve(iter.return?.()).catch(() => undefined);
  }
}

/** A clearer message when the final name cannot be replaced (e.g. the file is open in Excel on Windows). */
function renameError(e: unknown, finalPath: string): unknown {
  const code = (e as { code?: unknown } | null)?.code;
  if (code === 'EPERM' || code === 'EBUSY' || code === 'EACCES') {
    const err = new Error(`cannot write ${finalPath}: the file is open in another program or not writable (${String(code)})`);
    (err as Error & { code?: unknown; cause?: unknown }).code = code;
    (err as Error & { cause?: unknown }).cause = e;
    return err;
  }
  return e;
}

/** Write what is pending, close the file (flushed to disk) and rename it onto the final name; its size. */
async function complete(out: Chunker, writer: ChunkWriter, tmpPath: string, finalPath: string, signal?: AbortSignal): Promise<number> {
  await out.flush();
  mark('rows written');
  if (signal?.aborted) throw abortError(signal);
  await writer.close();
  mark('file closed');
  const bytes = (await stat(tmpPath)).size;
  if (signal?.aborted) throw abortError(signal);
  await rename(tmpPath, finalPath).catch((e: unknown) => {
    throw renameError(e, finalPath);
  });
  mark('file renamed');
  return bytes;
}

/** the options of a CSV export read by rid (csv-rids.ts) that come from the export's own */
function ridOptions(opts: ExportOptions): { columns?: string[]; threads: number; parallelAfter: number; expected?: number } {
  return {
    columns: opts.columns,
    threads: opts.threads ?? ridThreads(),
    parallelAfter: Math.max(0, opts.parallelAfter ?? 5000),
    expected: opts.total,
  };
}

/**
 * Export rows to `opts.out`. Resolves with the row count, the file size in bytes and the
 * absolute final path. Rejects (and leaves no file behind) on error or when `signal` aborts.
 */
export async function exportRows(rows: Iterable<ExportRow> | AsyncIterable<ExportRow>, opts: ExportOptions): Promise<ExportResult> {
  const { format, signal, onProgress } = opts;
  if (format !== 'csv' && format !== 'json' && format !== 'jsonl') throw new Error(`export: unknown format '${String(format)}'`);
  const defs = format === 'csv' ? resolveColumns(opts.columns) : null;
  signal?.throwIfAborted();

  const finalPath = resolve(opts.out);
  const tmpPath = freshPartial(finalPath);
  const every = opts.total && opts.total > 0 ? Math.max(1, Math.floor(opts.total / 200)) : 1000;

  let writer: ChunkWriter | null = null;
  let workersClosed: Promise<void> | undefined;
  let count = 0;
  try {
    writer = await ChunkWriter.open(tmpPath);
    mark('file open');
    const out = new Chunker(writer, signal);
    let nextReport = every;
    const progress = (): void => {
      if (onProgress && count >= nextReport) {
        nextReport = count + every;
        onProgress(count);
      }
    };

    let line: (row: ExportRow) => string;
    if (format === 'csv') {
      const cols = defs ?? resolveColumns(opts.columns);
      if (opts.bom ?? true) out.add('\uFEFF');
      out.add(csvRecord(cols.map((c) => c.name)));
      line = csvRenderer(cols);
    } else if (format === 'jsonl') {
      line = (row) => envelopeJson(row) + '\n';
    } else {
      // one JSON array, one item per line so that the file stays readable and streamable
      out.add('[');
      line = (row) => (count === 0 ? '\n' : ',\n') + envelopeJson(row);
    }

    // the archive's rows as rids, read by the CSV workers themselves (csv-rids.ts)
    const walk =
      format === 'csv' && !(Symbol.asyncIterator in rows) && (opts.threads ?? 1) > 0
        ? ((rows as ExportRowSource).ridWalk?.() ?? null)
        : null;
    if (walk) {
      try {
        // its workers end while the file is completed (below)
        ({ closed: workersClosed } = await csvFromRids(walk, {
          ...ridOptions(opts),
          sink: out,
          line,
          signal,
          progress: (n) => {
            count = n;
            progress();
          },
        }));
      } finally {
        walk.close();
      }
    } else if (Symbol.asyncIterator in rows) {
      for await (const row of rowsOf(rows, signal)) {
        if (signal?.aborted) throw abortError(signal);
        out.add(line(row));
        count++;
        if (out.full) await out.flush();
        progress();
      }
    } else {
      // A synchronous source (the archive's SQLite iterator) is drained without an await per
      // row; every ~64 KiB is written (awaiting backpressure) and at least every YIELD_MS the
      // event loop gets a turn, so that a cancel, progress events and other requests are
      // served while a long export runs in the app's main process. A large CSV export moves
      // the rendering to worker threads after the first `parallelAfter` rows.
      const it = rows[Symbol.iterator]();
      let finished = false;
      let turn = performance.now();
      /** up to `limit` rows on this thread; true when the source is exhausted */
      const here = async (limit: number): Promise<boolean> => {
        while (count < limit) {
          const r = it.next();
          if (r.done) return true;
          if (signal?.aborted) throw abortError(signal);
          out.add(line(r.value));
          count++;
          if (out.full) {
            await out.flush();
            progress();
            if (performance.now() - turn >= YIELD_MS) {
              await new Promise<void>((res) => setImmediate(res));
              turn = performance.now();
            }
          }
        }
        return false;
      };
      try {
        const threads = format === 'csv' ? (opts.threads ?? defaultThreads()) : 0;
        finished = await here(threads > 0 ? Math.max(0, opts.parallelAfter ?? 5000) : Infinity);
        const pool = finished ? null : CsvPool.start(threads, opts.columns);
        if (!finished && !pool) finished = await here(Infinity); // no worker here: the rest on this thread
        if (pool) {
          try {
            // Work sharing: a batch goes to a worker while one has room, else this thread
            // renders it itself (with one worker per core but one, every core keeps busy).
            // Answers are written in batch order; batches waiting to be written are bounded.
            interface Slot {
              n: number;
              ready: boolean;
              out?: Uint8Array | string;
              err?: unknown;
              wait?: Promise<void>;
            }
            const queue: Slot[] = [];
            const cap = pool.size * IN_FLIGHT_PER_WORKER;
            let atWorkers = 0;
            const submit = (rowsOfBatch: ExportRow[]): void => {
              if (atWorkers < cap) {
                const slot: Slot = { n: rowsOfBatch.length, ready: false };
                atWorkers++;
                slot.wait = pool
                  .render(rowsOfBatch.map(toWire))
                  .then(
                    (b) => void Object.assign(slot, { out: b, ready: true }),
                    (e: unknown) => void Object.assign(slot, { err: e, ready: true }),
                  )
                  .finally(() => atWorkers--);
                queue.push(slot);
              } else {
                let text = '';
                for (const row of rowsOfBatch) text += line(row);
                queue.push({ n: rowsOfBatch.length, ready: true, out: text });
              }
            };
            const writeHead = async (): Promise<void> => {
              const slot = shifted(queue, 'batch');
              if (!slot.ready) await slot.wait;
              if (slot.err !== undefined) throw slot.err;
              if (typeof slot.out === 'string') {
                out.add(slot.out);
                if (out.full) await out.flush();
              } else await out.bytes(slot.out ?? absent('batch output'));
              count += slot.n;
              progress();
            };
            let batch: ExportRow[] = [];
            let batchChars = 0;
            for (let r = it.next(); !r.done; r = it.next()) {
              if (signal?.aborted) throw abortError(signal);
              batch.push(r.value);
              batchChars += typeof r.value.recordJson === 'string' ? r.value.recordJson.length : 1000;
              if (batch.length >= WIRE_BATCH || batchChars >= WIRE_BATCH_CHARS) {
                submit(batch);
                batch = [];
                batchChars = 0;
                // let worker answers arrive, write what is ready, wait when too much is pending
                if (!queue[0].ready) await new Promise<void>((res) => setImmediate(res));
                while (queue.length > 0 && queue[0].ready) await writeHead();
                while (queue.length > cap + MAX_LOCAL_AHEAD) await writeHead();
              }
            }
            if (batch.length > 0) submit(batch);
            while (queue.length > 0) {
              if (signal?.aborted) throw abortError(signal);
              await writeHead();
            }
            finished = true;
          } finally {
            await pool.close();
          }
        }
      } finally {
        // an export that stops early closes its source (the SQLite statement and its connection)
        if (!finished) it.return?.();
      }
      progress();
    }
    if (format === 'json') out.add(count === 0 ? ']\n' : '\n]\n');

    const bytes = await complete(out, writer, tmpPath, finalPath, signal);
    await workersClosed;
    onProgress?.(count);
    return { rows: count, bytes, path: finalPath };
  } catch (e) {
    await workersClosed;
    if (writer) await writer.destroy();
    await unlink(tmpPath).catch(() => undefined);
    throw e;
  }
}
