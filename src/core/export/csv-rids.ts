/**
 * A CSV export whose workers read the rows themselves (docs/export.md "Performance", issue 30).
 * The exporting thread walks the export's rids in order (integers, from the archive's RidWalk: an
 * index-only walk for most sorts) and hands them out in batches; each worker (csv-worker.ts) reads
 * its batch's rows from the archive file on a read-only connection of its own, parses, renders and
 * encodes them, and answers with bytes that this thread writes in batch order. Before, this thread
 * read every row's record as text and copied it to a worker (a third of its time making strings,
 * the structured copy, and their garbage), and was the bottleneck: one worker waited on it.
 *
 * The rids are one snapshot (the walk holds its read transaction). A worker reads the rows as they
 * are when it reads its batch: the same as the snapshot's while nothing was committed to the
 * archive since (RidWalk.current, checked once the answer is here). Once something was, this thread
 * renders every batch not yet written from the snapshot itself (a worker's answer could hold a row
 * edited since, or another item under a reused rid), as it does a batch whose worker answered
 * `missing` (a row deleted since): nothing is dropped, nothing is written that the walk did not see.
 */
import type { ExportRow, RidWalk } from '../ports';
import { abortError } from './abort';
import { CsvPool } from './csv-pool';
import { mark } from './timeline';

/** rids per batch (~65 KiB of CSV), and batches in flight per worker */
const BATCH = 500;
const IN_FLIGHT_PER_WORKER = 4;

export interface CsvSink {
  add(s: string): void;
  readonly full: boolean;
  flush(): Promise<void>;
  /** write bytes after what is pending; `written` is called once they are written */
  bytes(b: Uint8Array, written?: () => void): Promise<void>;
}

export { ridThreads } from './worker-spawn';

interface Slot {
  rids: number[];
  answer: Promise<{ bytes: Uint8Array; written: () => void } | null>;
}

/**
 * The walk's first rids (up to parallelAfter), and the workers: none for a small export. An export
 * the caller expects to be large (`expected`, its count) starts them before the walk, so that their
 * start-up (a Node environment each, their code) runs beside this thread's walk of the rids
 * instead of after it; closed again when the rows fall short (deleted since the count).
 */
async function firstRids(
  walk: RidWalk,
  o: { columns?: string[]; threads: number; parallelAfter: number; expected?: number },
): Promise<{ first: number[]; pool: CsvPool | null }> {
  const small = Math.max(1, o.parallelAfter);
  // marks "workers spawned", or "workers claimed" for the ones the command line started (worker-spawn.ts)
  const start = (): CsvPool | null => (o.threads < 1 ? null : CsvPool.start(o.threads, o.columns, { file: walk.file, extra: walk.extra }));
  const early = (o.expected ?? 0) >= small ? start() : null;
  let first: number[];
  try {
    mark('walk');
    first = walk.next(small);
    mark('head');
  } catch (e) {
    await early?.close();
    throw e;
  }
  if (first.length >= small) return { first, pool: early ?? start() };
  await early?.close();
  return { first, pool: null };
}

interface RidOptions {
  sink: CsvSink;
  line: (row: ExportRow) => string;
  columns?: string[];
  threads: number;
  parallelAfter: number;
  /** the rows the export is expected to hold (the caller's count): when past parallelAfter, the workers start before the walk */
  expected?: number;
  signal?: AbortSignal;
  progress: (rows: number) => void;
}

/**
 * Write the CSV records of every rid of `walk` to `sink` (its header already added); returns the
 * row count, and when the workers have ended (they end while the caller completes its file: ~30
 * to 120 ms for two at load 16). `line` renders a row here (the first rows, a batch with a missing
 * row, no worker).
 */
export async function csvFromRids(walk: RidWalk, o: RidOptions): Promise<{ rows: number; closed: Promise<void> }> {
  const { first, pool } = await firstRids(walk, o);
  if (pool) return viaWorkers(walk, pool, first, o);
  const all = first;
  for (let more = walk.next(1 << 16); more.length > 0; more = walk.next(1 << 16)) for (const r of more) all.push(r);
  let count = 0;
  for (let i = 0; i < all.length; i += BATCH) {
    if (o.signal?.aborted) throw abortError(o.signal);
    for (const row of walk.rows(all.slice(i, i + BATCH))) o.sink.add(o.line(row));
    count += Math.min(BATCH, all.length - i);
    if (o.sink.full) await o.sink.flush();
    o.progress(count);
  }
  return { rows: count, closed: Promise.resolve() };
}

/** The rids from `first` on, in batches to the workers of `pool`, their answers written in order. */
async function viaWorkers(walk: RidWalk, pool: CsvPool, first: number[], o: RidOptions): Promise<{ rows: number; closed: Promise<void> }> {
  const { sink, line, signal } = o;
  let count = 0;
  let done = false;
  try {
    // batches not yet handed out: the first rids, then the walk's (or, once a batch needed this
    // thread's snapshot, the rest of the walk read ahead)
    const ahead: number[][] = [];
    for (let i = 0; i < first.length; i += BATCH) ahead.push(first.slice(i, i + BATCH));
    let walking = true;
    const nextBatch = (): number[] | null => {
      const read = ahead.shift();
      if (read !== undefined) return read;
      if (!walking) return null;
      const b = walk.next(BATCH);
      if (b.length === 0) walking = false;
      return b.length > 0 ? b : null;
    };
    const queue: Slot[] = [];
    const cap = pool.size * IN_FLIGHT_PER_WORKER;
    let sent = 0;
    let taken = 0;
    for (let primed = false; ; primed = true) {
      // at first every batch of the walk's first read (its head: the rest is not read yet)
      while (queue.length < cap || (!primed && ahead.length > 0)) {
        const rids = nextBatch();
        if (!rids) break;
        // once the archive changed, no worker's answer is kept: none is asked for
        queue.push({ rids, answer: walk.current() ? pool.renderRids(rids) : Promise.resolve(null) });
        mark(`sent ${sent++}`);
      }
      if (!primed && walking) {
        // the rest of the walk, read while the workers take the first batches
        const b = walk.next(BATCH);
        mark('walked');
        if (b.length > 0) ahead.push(b);
        else walking = false;
      }
      const slot = queue.shift();
      if (!slot) break;
      if (signal?.aborted) throw abortError(signal);
      mark(`wait ${taken}`);
      const answer = await slot.answer;
      mark(`got ${taken++}`);
      if (signal?.aborted) throw abortError(signal);
      if (answer && walk.current()) await sink.bytes(answer.bytes, answer.written);
      else {
        answer?.written(); // its buffer back to the worker: the bytes are not written
        // a row deleted since the snapshot, or the archive changed since (the worker may have read
        // a row edited since, or another item under a reused rid): read the rest of the walk, then
        // this batch from the snapshot
        for (let b = walking ? walk.next(1 << 16) : []; b.length > 0; b = walk.next(1 << 16))
          for (let i = 0; i < b.length; i += BATCH) ahead.push(b.slice(i, i + BATCH));
        walking = false;
        for (const row of walk.rows(slot.rids)) sink.add(line(row));
        await sink.flush();
      }
      count += slot.rids.length;
      o.progress(count);
    }
    done = true;
    return { rows: count, closed: pool.close() };
  } finally {
    if (!done) await pool.close();
  }
}
