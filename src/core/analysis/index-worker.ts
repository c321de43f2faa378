/**
 * The analysis index's worker thread (AnalysisIndex.warm with `worker`, ./analysis-index.ts):
 * opens the archive on a connection of its own and builds the index slice by slice — each slice
 * one transaction, the items read under its write lock — until it is current or told to stop.
 * The app's thread stays free (on the thread, each slice held it ~1 s; a 1M-post build writes for
 * many minutes).
 *
 * Slices aim at WORKER_SLICE_MS: while one is under way the app's own writes (a page of results,
 * a tag) wait for its lock. On Linux the nice value belongs to each thread, and this one lowers
 * its own to NICE — the app's threads and the renderer come first for the CPU — but not to 19:
 * a slice starved while it holds the write lock would make the app's writes wait past their
 * busy timeout. The step is relative to the thread's own nice value (an app started under `nice`
 * keeps its index build below it, and a thread is never raised above the app). Elsewhere
 * setPriority would lower the whole process, so it is not called.
 * A busy archive (another writer's long transaction) is waited for, then the build goes on.
 */
import { getPriority, setPriority } from 'node:os';
import { workerData } from 'node:worker_threads';
import { openArchive } from '../archive';
import { StorageError } from '../storage-error';
import { AnalysisIndex } from './analysis-index';
import { NICE, WORKER_SLICE_MS, type IndexWorkerCommand, type IndexWorkerData, type IndexWorkerMessage } from './index-wire';
import { workerPort } from '../worker-entry';

const BUSY_RETRIES = 20;

const { file, nice, sliceMs } = workerData as IndexWorkerData;
const port = workerPort('the analysis index worker');
const post = (m: IndexWorkerMessage): void => port.postMessage(m);
let stopped = false;
port.on('message', (m: IndexWorkerCommand) => {
  if (m.type === 'stop') stopped = true;
});

if (process.platform === 'linux') {
  try {
    setPriority(Math.min(19, getPriority() + (nice ?? NICE)));
  } catch {
    // not permitted: the build runs at the thread's priority
  }
}

/** the archive is locked by another writer (the driver's SQLITE_BUSY, or the archive's own error for it) */
function isBusy(e: unknown): boolean {
  if (e instanceof StorageError) return e.kind === 'locked';
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'));
}

const pause = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function build(): Promise<void> {
  const archive = openArchive(file);
  try {
    const index = new AnalysisIndex(archive);
    const size = { items: 500, authors: 5_000 };
    let busy = 0;
    for (;;) {
      if (stopped) return;
      let more: boolean;
      try {
        more = index.buildSlice(size, sliceMs ?? WORKER_SLICE_MS);
        busy = 0;
      } catch (e) {
        if (!isBusy(e) || ++busy > BUSY_RETRIES) throw e;
        await pause(500); // another writer holds the archive: its transaction ends, this slice runs again
        continue;
      }
      if (!more) break;
      post({ type: 'slice', backlog: index.backlog() });
      await new Promise((r) => setImmediate(r)); // a 'stop' is heard between slices
    }
    post({ type: 'done' });
  } finally {
    archive.close();
  }
}

build().then(
  () => port.close(),
  (e: unknown) => {
    post({ type: 'error', message: e instanceof Error ? e.message : String(e) });
    port.close();
  },
);
