/**
 * An XLSX export whose workers read, render and compress the rows themselves (docs/export.md
 * "XLSX"), as csv-rids.ts does for CSV: the exporting thread walks the export's rids in order and
 * hands them out in batches; each worker (xlsx-worker.ts) reads its batch's rows from the archive
 * file on a read-only connection of its own (one statement, one aggregate row: rid-batch.ts),
 * renders their sheet XML with the one-thread path's code (xlsx-cells.ts) and deflates it as one
 * piece of the sheet's raw-deflate stream, with its CRC-32 (zip.ts deflatePiece); this thread
 * writes the pieces in batch order, combining their CRCs. Before, this thread read, parsed and
 * rendered every row and zlib's thread pool compressed beside it: one core did most of the work.
 *
 * A batch never spans two sheets: the batch that starts a sheet says so, and this thread opens the
 * sheet (header row) before its piece. The rids are one snapshot (the walk holds its read
 * transaction); a row no longer there when a worker reads it (deleted since) makes the worker
 * answer `missing`, and this thread renders that batch from the snapshot itself: nothing is dropped.
 * A worker's answer is kept only while nothing was committed to the archive since the snapshot
 * (RidWalk.current, checked once it is here): after that, every batch is rendered here from the
 * snapshot (a worker could have read a row edited since, or another item under a reused rid).
 */
import type { ExportRow, RidWalk } from '../ports';
import { abortError } from './abort';
import { ExportPool, WORKER_LIMITS } from './csv-pool';
import type { DeflatedPiece } from './zip';

/** rids per batch (~1.7 MB of sheet XML at 82 columns, ~170 KB deflated), and batches in flight per worker */
const BATCH = 500;
const IN_FLIGHT_PER_WORKER = 4;

/** A worker's answer to a batch: its rows' XML deflated, and how many of its cells were cut at 32,767 characters. */
export interface XlsxPiece extends DeflatedPiece {
  truncated: number;
}

/** The rows' sheets as this module writes them. */
export interface RidSheets {
  /** close the sheet being written (if any) and open part `part` of the rows' sheets, its header row written */
  open(part: number): Promise<void>;
  /** rows deflated by a worker */
  piece(p: DeflatedPiece): Promise<void>;
  /** rows rendered here */
  write(xml: string): Promise<void>;
}

/** Workers that read, render and deflate batches of rows by rid (xlsx-worker.ts). */
class XlsxPool extends ExportPool {
  static start(threads: number, columns: string[] | undefined, reader: { file: string; extra: string }): XlsxPool | null {
    const workers = ExportPool.workers('xlsx-worker', threads, { columns, reader }, WORKER_LIMITS);
    return workers ? new XlsxPool(workers) : null;
  }

  /** the XML of these rows as rows `first`, `first + 1`, … of their sheet, deflated; null when one is no longer in the archive */
  render(rids: number[], first: number): Promise<XlsxPiece | null> {
    const p = this.post((seq) => ({ seq, rids, first })).then((m) => (m.missing ? null : (m.piece as XlsxPiece)));
    p.catch(() => undefined); // a batch abandoned by a cancel is not an unhandled rejection
    return p;
  }
}

interface Batch {
  rids: number[];
  /** the sheet row of its first rid (the header is row 1) */
  first: number;
  /** it starts a new sheet */
  opens: boolean;
}

/**
 * Write every rid of `walk` as rows of the rows' sheets (the first sheet not yet open), in order.
 * Returns null, having opened no sheet, when the export has fewer than `parallelAfter` rows or no
 * worker starts: the caller then renders the rows on its thread, from its row source.
 */
export async function xlsxFromRids(
  walk: RidWalk,
  o: {
    sheets: RidSheets;
    /** a row's XML, rendered here (a batch with a deleted row) */
    renderRow: (row: ExportRow, r: number) => string;
    columns?: string[];
    perSheet: number;
    threads: number;
    parallelAfter: number;
    signal?: AbortSignal;
    progress: (rows: number) => void;
  },
): Promise<{ rows: number; truncated: number } | null> {
  const { sheets, perSheet, signal } = o;
  const first = walk.next(Math.max(1, o.parallelAfter));
  if (first.length < Math.max(1, o.parallelAfter) || o.threads < 1) return null;
  const pool = XlsxPool.start(o.threads, o.columns, { file: walk.file, extra: walk.extra });
  if (!pool) return null;
  try {
    // every rid (the walk holds them all after its first call; ~8 MB at 1M), so that batches end
    // where sheets end and a batch with a deleted row can be read from the snapshot at once
    const rids = first;
    for (let more = walk.next(1 << 16); more.length > 0; more = walk.next(1 << 16)) for (const r of more) rids.push(r);
    let at = 0;
    let inSheet = 0;
    const nextBatch = (): Batch | null => {
      if (at >= rids.length) return null;
      const opens = at === 0 || inSheet === perSheet;
      if (opens) inSheet = 0;
      const n = Math.min(BATCH, perSheet - inSheet, rids.length - at);
      const b = { rids: rids.slice(at, at + n), first: inSheet + 2, opens };
      at += n;
      inSheet += n;
      return b;
    };
    const queue: Array<{ batch: Batch; answer: Promise<XlsxPiece | null> }> = [];
    const cap = pool.size * IN_FLIGHT_PER_WORKER;
    let part = 0;
    let count = 0;
    let truncated = 0;
    for (;;) {
      while (queue.length < cap) {
        const batch = nextBatch();
        if (!batch) break;
        // once the archive changed, no worker's answer is kept: none is asked for
        queue.push({ batch, answer: walk.current() ? pool.render(batch.rids, batch.first) : Promise.resolve(null) });
      }
      const slot = queue.shift();
      if (!slot) break;
      if (signal?.aborted) throw abortError(signal);
      const piece = await slot.answer;
      if (signal?.aborted) throw abortError(signal);
      const { batch } = slot;
      if (batch.opens) await sheets.open(++part);
      if (piece && walk.current()) {
        await sheets.piece(piece);
        truncated += piece.truncated;
      } else {
        // a row deleted since the snapshot, or the archive changed since: this batch from the snapshot, rendered here
        let x = '';
        for (const [i, row] of walk.rows(batch.rids).entries()) x += o.renderRow(row, batch.first + i);
        await sheets.write(x);
      }
      count += batch.rids.length;
      o.progress(count);
    }
    return { rows: count, truncated };
  } finally {
    await pool.close();
  }
}
