/**
 * A dataset bundle's metric history files (`items.history.csv`, `items.history.parquet`) written
 * by one of the pass's export workers once it has no group left (issue 29; docs/datasets.md "How
 * a bundle is written", bundle-tables.ts): the history is keyed by rid, not by the walk's order,
 * so the worker reads it by rid in ascending order (bundle-batch.ts historyBatchOf: the values the
 * groups' facts carry) while the other workers render their last groups and the exporting thread
 * writes the manifest. The files are the ones writeCompanions writes from the facts (the same
 * rows, the same writer: tables.ts), each hashed as it is written. With LOUPE_EXPORT_TIMELINE
 * set (timeline.ts) the job notes when it starts, has read the history, and has written each file.
 */
import { basename, join } from 'node:path';
import { companionPath, HISTORY_COLUMNS } from './companions';
import { writeTable } from './tables';
import { mark } from './timeline';

/** rids a history statement reads (one aggregate row each: bundle-batch.ts) */
const HISTORY_BATCH = 2000;

/** A history file written: its name in the bundle's folder, SHA-256, bytes. */
export interface HistoryFile {
  path: string;
  sha256: string;
  bytes: number;
}

/**
 * Reads the history of `rids` (ascending) and writes both files into `dir` (the bundle's folder);
 * null when a rid is no longer in the archive (nothing written: the exporting thread writes them).
 */
export async function writeHistoryFiles(
  read: (ascending: readonly number[]) => unknown[][] | null,
  rids: Float64Array,
  dir: string,
): Promise<HistoryFile[] | null> {
  mark('history start');
  const rows: unknown[][] = [];
  for (let i = 0; i < rids.length; i += HISTORY_BATCH) {
    const batch = read(Array.from(rids.subarray(i, i + HISTORY_BATCH)));
    if (!batch) return null;
    for (const r of batch) rows.push(r);
  }
  mark(`history read ${rows.length}`);
  const files: HistoryFile[] = [];
  for (const format of ['csv', 'parquet'] as const) {
    const f = await writeTable({ columns: HISTORY_COLUMNS, rows }, format, companionPath(join(dir, `items.${format}`), 'history'));
    files.push({ path: basename(f.path), sha256: f.sha256, bytes: f.bytes });
    mark(`history ${format}`);
  }
  return files;
}
