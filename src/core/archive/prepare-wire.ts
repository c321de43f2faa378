/** What prepare.ts and its worker (prepare-worker.ts) send each other. */
import type { MigrationProgress } from './db';

export interface PrepareWorkerData {
  file: string;
  /** tests: the worker pauses this long after each report */
  holdAfterReportMs?: number;
}

export interface WorkerError {
  name: string;
  message: string;
  stack?: string;
  /** the driver's or the file system's code (SQLITE_FULL, ENOSPC, …) */
  code?: string;
  /** ArchiveVersionError's versions */
  fileVersion?: number;
  knownVersion?: number;
}

export type WorkerAnswer =
  { type: 'progress'; p: MigrationProgress } | { type: 'done'; from: number; to: number } | { type: 'error'; error: WorkerError };
