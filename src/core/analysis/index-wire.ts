/** What the analysis index (analysis-index.ts) and its worker thread (index-worker.ts) send each other. */

export interface IndexWorkerData {
  /** the archive's file */
  file: string;
  /** the thread's nice value on Linux (default index-worker.ts NICE) */
  nice?: number;
}

/** the worker's reports: a slice done (items still waiting), then done or an error */
export type IndexWorkerMessage = { type: 'slice'; backlog: number } | { type: 'done' } | { type: 'error'; message: string };

/** stop after the slice under way */
export type IndexWorkerCommand = { type: 'stop' };

/** the worker's slice: the longest the app's writes wait for its lock, CPU permitting */
export const WORKER_SLICE_MS = 250;
/** nice 10: ~10 % of a core contended by normal threads, so a 250 ms slice ends within ~2.5 s at worst */
export const NICE = 10;
