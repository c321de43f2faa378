/**
 * A Parquet export whose workers read the rows themselves (docs/export.md "Performance", issue 30),
 * as csv-rids.ts does for CSV: the exporting thread walks the export's rids in order and hands out
 * whole row groups of rids; each worker (parquet-worker.ts) reads its group's rows from the
 * archive file on a read-only connection of its own, encodes the group and answers with its bytes,
 * which this thread places in the file in group order. Before, this thread read and copied every
 * row's record to the workers and was the bottleneck (a worker waited on it a third of the time).
 *
 * The rids are one snapshot (the walk holds its read transaction). A row no longer there when a
 * worker reads it (deleted since the snapshot) makes the worker answer `missing`, and this thread
 * encodes that group from the snapshot itself — nothing is dropped.
 */
import type { RidWalk } from '../ports';
import { ExportPool, WORKER_LIMITS } from './csv-pool';
import { GroupEncoder, type EncodedGroup, type ParquetLayout } from './parquet-group';
import { pipelined } from './pipelined';
import { RID_BATCH } from './rid-rows';

/** A worker holds one group of 20,000 parsed rows and its columns while it encodes them. */
export const PARQUET_WORKER_LIMITS = { ...WORKER_LIMITS, maxOldGenerationSizeMb: 512 };
/**
 * A worker reading its own group holds a batch of 500 parsed rows and the group's encoded columns:
 * the CSV workers' old-generation cap (with 512 MB two workers let their heaps grow to ~250 MB each
 * before collecting: peak RSS 554-604 MB at 200k rows, against 368 MB), and a 16 MB young
 * generation: a worker's live young objects are one batch, and its 34 MB new space (of a 47 MB
 * heap) was mostly room; 200k rows, built CLI, 3 interleaved pairs at load 13-15: peak RSS 282-290
 * -> 255-261 MB, CPU and file the same (the CSV workers keep 32 MB: 16 cost them +35 % time).
 */
const RID_WORKER_LIMITS = { ...WORKER_LIMITS, maxYoungGenerationSizeMb: 16 };
/** groups in a worker's hands (one encoding, one waiting) */
const IN_FLIGHT_PER_WORKER = 2;

/** Workers that read and encode whole row groups by rid. */
class ParquetRidPool extends ExportPool {
  static start(threads: number, columns: string[] | undefined, reader: { file: string; extra: string }): ParquetRidPool | null {
    const workers = ExportPool.workers('parquet-worker', threads, { columns, reader }, RID_WORKER_LIMITS);
    return workers ? new ParquetRidPool(workers) : null;
  }

  /** the encoded group of these rows, or null when one of them is no longer in the archive */
  encode(rids: number[]): Promise<EncodedGroup | null> {
    const p = this.post((seq) => ({ seq, rids })).then((m) => (m.missing ? null : (m.group as EncodedGroup)));
    p.catch(() => undefined); // a group abandoned by a cancel is not an unhandled rejection
    return p;
  }
}

/**
 * Encode every rid of `walk` in groups of `groupSize` on workers and hand each group to `place`,
 * in order. Returns false, having read nothing but the first group's rids, when the export is a
 * single group or no worker starts: the caller then exports its rows itself (on a new walk or its
 * row source).
 */
export async function parquetFromRids(
  walk: RidWalk,
  o: {
    layout: ParquetLayout;
    groupSize: number;
    columns?: string[];
    threads: number;
    signal?: AbortSignal;
    place: (g: EncodedGroup) => Promise<void>;
  },
): Promise<boolean> {
  const { groupSize, signal } = o;
  const first = walk.next(groupSize);
  // an export of one group never pays for workers
  if (first.length < groupSize || o.threads < 1) return false;
  const pool = ParquetRidPool.start(o.threads, o.columns, { file: walk.file, extra: walk.extra });
  if (!pool) return false;
  try {
    await pipelined(walk, first, {
      groupSize,
      cap: pool.size * IN_FLIGHT_PER_WORKER,
      send: (rids) => pool.encode(rids),
      here: (rids) => {
        const enc = new GroupEncoder(o.layout, rids.length);
        for (let i = 0; i < rids.length; i += RID_BATCH) for (const row of walk.rows(rids.slice(i, i + RID_BATCH))) enc.add(row);
        return enc.finish();
      },
      place: o.place,
      signal,
    });
    return true;
  } finally {
    await pool.close();
  }
}
