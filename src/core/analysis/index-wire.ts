/** What the analysis index (analysis-index.ts) and its worker thread (index-worker.ts) send each other. */

export interface IndexWorkerData {
  /** the archive's file */
  file: string;
  /** how far below the app's priority the thread runs on Linux: added to its nice value (default NICE) */
  nice?: number;
  /** the slice's target in ms (default WORKER_SLICE_MS): the benches compare slice sizes */
  sliceMs?: number;
}

/** the worker's reports: a slice done (items still waiting), then done or an error */
export type IndexWorkerMessage = { type: 'slice'; backlog: number } | { type: 'done' } | { type: 'error'; message: string };

/** stop after the slice under way */
export type IndexWorkerCommand = { type: 'stop' };

/**
 * the worker's slice: the longest the app's writes wait for its lock, CPU permitting. Each slice is
 * a commit, and a commit writes every index page the slice touched: 250 ms slices built 1.3-1.6×
 * slower than 500 ms ones (bench/index-build.ts, issue 30), 1,000 ms gained little more
 */
export const WORKER_SLICE_MS = 500;
/** nice 5: ~25 % of a core contended by a normal thread (nice 10: ~10 %), so a 500 ms slice ends within ~2 s at worst, under the app's 5 s busy timeout */
export const NICE = 5;
