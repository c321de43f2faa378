/**
 * A Parquet export whose workers read the rows themselves (docs/export.md "Performance", issue 30),
 * as csv-rids.ts does for CSV: the exporting thread walks the export's rids in order and hands out
 * whole row groups of rids, each to the first worker free; each worker (parquet-worker.ts) reads its group's rows from the
 * archive file on a read-only connection of its own, encodes the group and answers with its bytes,
 * which this thread places in the file in group order. Before, this thread read and copied every
 * row's record to the workers and was the bottleneck (a worker waited on it a third of the time).
 *
 * The rids are one snapshot (the walk holds its read transaction). A row no longer there when a
 * worker reads it (deleted since the snapshot) makes the worker answer `missing`, and this thread
 * encodes that group from the snapshot itself — nothing is dropped.
 */
import type { RidWalk } from '../ports';
import { abortError } from './abort';
import { ExportPool, WORKER_LIMITS } from './csv-pool';
import { RID_PARQUET_LIMITS } from './worker-spawn';
import { GroupEncoder, type EncodedGroup, type ParquetLayout } from './parquet-group';
import { pipelined } from './pipelined';
import { RID_BATCH } from './rid-rows';
import { takeTurns } from './turns';

/** A worker holds one group of 20,000 parsed rows and its columns while it encodes them. */
export const PARQUET_WORKER_LIMITS = { ...WORKER_LIMITS, maxOldGenerationSizeMb: 512 };
/**
 * One group in a worker's hands: the next goes to whichever worker answers first (pipelined.ts
 * sends it when the answer arrives; the pool picks the least busy worker), so the last groups go
 * to the workers that are free. Two in each worker's hands, sent round-robin and only once the
 * oldest group was placed, left one worker idle while the other finished its groups (at load
 * 15-20 a worker idled 0.9-1.8 s of a 10 s export).
 */
const IN_FLIGHT_PER_WORKER = 1;
/** groups held per worker: in its hands, or answered and waiting for the groups before them (~3.6 MB each at 200k rows) */
const HELD_PER_WORKER = 4;

/** Workers that read and encode whole row groups by rid. */
class ParquetRidPool extends ExportPool {
  static start(threads: number, columns: string[] | undefined, reader: { file: string; extra: string }): ParquetRidPool | null {
    const workers = ExportPool.workers('parquet-worker', threads, { columns, reader }, RID_PARQUET_LIMITS);
    return workers ? new ParquetRidPool(workers) : null;
  }

  private given = 0;

  /** the encoded group of these rows, or null when one of them is no longer in the archive */
  encode(rids: number[]): Promise<EncodedGroup | null> {
    const p = this.post((seq) => ({ seq, rids }), true).then((m) => (m.missing ? null : (m.group as EncodedGroup)));
    p.catch(() => undefined); // a group abandoned by a cancel is not an unhandled rejection
    return p;
  }

  /** a group's buffer, its bytes written, back to a worker: its next group is copied into it (parquet-group.ts sealGroup) */
  giveBack(g: EncodedGroup): void {
    const b = g.bytes.buffer as ArrayBuffer;
    this.postTo(this.given++, { spare: [b] }, [b]);
  }
}

/**
 * Encode every rid of `walk` in groups of `groupSize` on workers and hand each group to `place`,
 * in order. Returns false, having read nothing but the first group's rids, when the export is a
 * single group or no worker starts: the caller then exports its rows itself (on a new walk or its
 * row source). `expected`: the rows the caller counted (the export's `total`); more than one
 * group's worth starts the workers before the walk reads its rids, so that they boot while it
 * reads (its first `next` reads every rid of the export: ~0.1 s at 200k rows).
 */
export async function parquetFromRids(
  walk: RidWalk,
  o: {
    layout: ParquetLayout;
    groupSize: number;
    columns?: string[];
    threads: number;
    expected?: number;
    signal?: AbortSignal;
    place: (g: EncodedGroup) => Promise<void>;
  },
): Promise<boolean> {
  const { groupSize, signal } = o;
  if (o.threads < 1) return false;
  const start = (): ParquetRidPool | null => ParquetRidPool.start(o.threads, o.columns, { file: walk.file, extra: walk.extra });
  let pool = o.expected !== undefined && o.expected > groupSize ? start() : null;
  try {
    // a group for each worker: the walk's first read takes them with LIMIT where an index gives the
    // order (export-rows.ts headThenRest), so the second worker does not wait for the read of every
    // other rid before its first group
    const first = walk.next(groupSize * Math.max(1, o.threads));
    // an export of one group never pays for workers (started early on a count that was not so)
    if (first.length < groupSize) return false;
    pool ??= start();
    if (!pool) return false;
    const workers = pool;
    /** the groups the workers encoded (their buffers go back once written) */
    const fromWorkers = new WeakSet<EncodedGroup>();
    await pipelined(walk, first, {
      groupSize,
      cap: workers.size * IN_FLIGHT_PER_WORKER,
      hold: workers.size * HELD_PER_WORKER,
      send: async (rids) => {
        const g = await workers.encode(rids);
        if (g) fromWorkers.add(g);
        return g;
      },
      here: async (rids) => {
        const enc = new GroupEncoder(o.layout, rids.length);
        const turn = takeTurns();
        for (let i = 0; i < rids.length; i += RID_BATCH) {
          for (const row of walk.rows(rids.slice(i, i + RID_BATCH))) enc.add(row);
          await turn();
          if (signal?.aborted) throw abortError(signal);
        }
        return enc.finish();
      },
      place: async (g) => {
        await o.place(g);
        if (fromWorkers.has(g)) workers.giveBack(g);
      },
      signal,
    });
    return true;
  } finally {
    await pool?.close();
  }
}
