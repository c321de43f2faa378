/**
 * The contract's archive part (issue 24 #10): a consistent single-file copy of the archive, made
 * while Loupe keeps working — how to share or back up an archive (docs/archive.md "Copies to share
 * or back up"). Runs in the background like an export: `archive.snapshot` answers a running job,
 * `snapshot-progress` events follow, then `done` with its path (and, on the web door, a download
 * URL). Re-exported by contract.ts.
 */
import { z } from 'zod';

export const archiveSnapshotInput = z.object({
  /** a file name in the data folder's exports folder (the desktop app asks where to save it) */
  fileName: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .regex(/^[^/\\]+$/, 'a file name, not a path')
    .optional(),
});
export const snapshotIdInput = z.object({ snapshotId: z.string().min(1).max(100) });

/** What a copy holds (counted in the copy itself). */
export interface SnapshotCountsInfo {
  items: number;
  tags: number;
  notes: number;
  overrides: number;
  resultSets: number;
  ledgerRows: number;
  walks: number;
  watchlists: number;
}

export interface SnapshotJob {
  snapshotId: string;
  status: 'running' | 'done' | 'failed' | 'cancelled';
  /** pages of the archive copied so far, of `pages` */
  pagesDone: number;
  pages: number;
  path: string | null;
  bytes: number | null;
  counts: SnapshotCountsInfo | null;
  /** one sentence: what the copy holds and where it is */
  summary: string | null;
  /** web door: a URL (with token) to download the finished copy */
  downloadUrl: string | null;
  error: string | null;
}
