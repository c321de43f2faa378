/**
 * The export workers' threads (csv-worker.ts, parquet-worker.ts, xlsx-worker.ts): where their code
 * is, how many an export starts, their memory limits, and how they are started (docs/export.md
 * "Performance"). A small module of Node's own imports only: the built command line loads it
 * before the rest of its code, so that an export's workers can start at the command's very
 * beginning (`spawnEarly`, src/cli/early-workers.ts) and load their code while this thread loads
 * the command line's; the export then takes them (`startWorkers`) instead of starting its own.
 *
 * One protocol for every caller (the command line, the web host, the desktop app, tests): a worker
 * is started with no workerData; the first message it gets is `{ config }` (its columns, the
 * archive file to read by rid), sent when an export takes it (worker-config.ts); every later
 * message is a batch.
 */
import { availableParallelism } from 'node:os';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { findWorkerEntry, type WorkerEntry } from '../worker-entry';
import { present } from '../../shared/maps';
import { mark } from './timeline';

/**
 * A worker's live data is one batch. A 32 MB young generation is what keeps it fast (16 MB:
 * +35 % time, measured at 200k rows); the old generation cap only bounds a runaway.
 */
export const WORKER_LIMITS = { maxYoungGenerationSizeMb: 32, maxOldGenerationSizeMb: 256 };
export type WorkerLimits = typeof WORKER_LIMITS;
/**
 * A Parquet worker reading its own group by rid (parquet-rids.ts) holds a batch of 500 parsed
 * rows and the group's encoded columns: the CSV workers' old-generation cap (with 512 MB two
 * workers let their heaps grow to ~250 MB each before collecting: peak RSS 554-604 MB at 200k
 * rows, against 368 MB), and a 16 MB young generation: a worker's live young objects are one
 * batch, and its 34 MB new space (of a 47 MB heap) was mostly room; 200k rows, built CLI, 3
 * interleaved pairs at load 13-15: peak RSS 282-290 -> 255-261 MB, CPU and file the same (the CSV
 * workers keep 32 MB: 16 cost them +35 % time).
 */
export const RID_PARQUET_LIMITS: WorkerLimits = { ...WORKER_LIMITS, maxYoungGenerationSizeMb: 16 };

export type WorkerName = 'csv-worker' | 'parquet-worker' | 'xlsx-worker';

/**
 * Workers for an export by rid (csv-rids.ts, parquet-rids.ts, xlsx-rids.ts): one per core (the
 * exporting thread only walks and writes), at most four.
 */
export function ridThreads(): number {
  return Math.max(1, Math.min(4, availableParallelism()));
}

/**
 * Default worker count of an export of rows (not by rid): one per core but one (the exporting
 * thread reads rows and renders batches too), at least one, at most four. 2 cores, 200k rows: 1
 * worker 2.9 s, 2 workers 4.3 s (three busy threads on two cores starve the reading thread).
 */
export function defaultThreads(): number {
  return Math.max(1, Math.min(4, availableParallelism() - 1));
}

const cachedEntries = new Map<WorkerName, WorkerEntry | null>();

/**
 * A worker's code: the built app and the built command line have `<name>.js` beside their main
 * bundle (electron.vite config, scripts/build-cli.mjs); run from sources (tsx: the web host,
 * tests) it is `<name>.ts`, loaded through tsx (../worker-entry.ts). null when neither is there.
 */
export function workerEntry(name: WorkerName = 'csv-worker'): WorkerEntry | null {
  if (cachedEntries.has(name)) return present(cachedEntries, name, 'worker entry');
  let entry: WorkerEntry | null;
  try {
    entry = findWorkerEntry(dirname(fileURLToPath(import.meta.url)), name);
  } catch {
    entry = null;
  }
  cachedEntries.set(name, entry);
  return entry;
}

/** `threads` workers of `name`, waiting for their config; null when none can start here. */
function spawn(name: WorkerName, threads: number, limits: WorkerLimits): Worker[] | null {
  const entry = workerEntry(name);
  if (!entry || threads < 1) return null;
  const workers: Worker[] = [];
  try {
    for (let i = 0; i < threads; i++) {
      const w = new Worker(entry.code, { eval: entry.eval, resourceLimits: limits });
      w.unref();
      workers.push(w);
    }
  } catch {
    for (const w of workers) void w.terminate();
    return null;
  }
  return workers;
}

/** workers started before the export asked for them (spawnEarly), not yet taken */
let early: { name: WorkerName; limits: WorkerLimits; workers: Worker[] } | null = null;

const sameLimits = (a: WorkerLimits, b: WorkerLimits): boolean =>
  a.maxYoungGenerationSizeMb === b.maxYoungGenerationSizeMb && a.maxOldGenerationSizeMb === b.maxOldGenerationSizeMb;

/**
 * The table formats whose export of the archive reads its rows by rid on workers: which worker,
 * its limits, and the rows past which the export starts them (rows.ts and xlsx.ts: parallelAfter,
 * 5,000; parquet.ts: more than one row group, PARQUET_ROW_GROUP). They start `ridThreads()`.
 */
export const RID_EXPORT_WORKERS = {
  csv: { name: 'csv-worker', limits: WORKER_LIMITS, after: 5_000 },
  xlsx: { name: 'xlsx-worker', limits: WORKER_LIMITS, after: 5_000 },
  parquet: { name: 'parquet-worker', limits: RID_PARQUET_LIMITS, after: 20_000 },
} as const satisfies Record<string, { name: WorkerName; limits: WorkerLimits; after: number }>;
export type RidExportFormat = keyof typeof RID_EXPORT_WORKERS;

/**
 * Start the workers an export of the archive to `format` is about to ask for, before it does (the
 * command line, from its arguments alone: src/cli/early-workers.ts). They load their code
 * meanwhile and wait for their config; unreferenced (they never keep the process alive), and ended
 * by `endEarlyWorkers` when no export takes them.
 */
export function spawnEarly(format: RidExportFormat): void {
  if (early) return;
  const { name, limits } = RID_EXPORT_WORKERS[format];
  mark('workers spawned');
  const workers = spawn(name, ridThreads(), limits);
  if (workers) early = { name, limits, workers };
}

/** End the workers spawnEarly started that no export took (the command ended, failed, or exported otherwise). */
export async function endEarlyWorkers(): Promise<void> {
  const e = early;
  early = null;
  if (e) await Promise.all(e.workers.map((w) => w.terminate()));
}

/**
 * `threads` workers of `name` for one export, each sent `config` as its first message: the ones
 * spawnEarly started when they are the same (name, count, limits), else new ones (early ones that
 * differ are ended). null when none can start here.
 */
export function startWorkers(name: WorkerName, threads: number, limits: WorkerLimits, config: unknown): Worker[] | null {
  let workers: Worker[] | null = null;
  if (early) {
    const e = early;
    early = null;
    if (e.name === name && e.workers.length === threads && sameLimits(e.limits, limits)) {
      workers = e.workers;
      mark('workers claimed');
    } else void Promise.all(e.workers.map((w) => w.terminate()));
  }
  if (!workers) {
    mark('workers spawned');
    workers = spawn(name, threads, limits);
  }
  if (!workers) return null;
  for (const w of workers) w.postMessage({ config });
  return workers;
}
