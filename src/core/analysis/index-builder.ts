/**
 * Starting the analysis index's worker thread (./index-worker.ts) for AnalysisIndex.warm: where its
 * code is (built: out/main/index-worker.js beside the main bundle; from sources: the .ts through
 * tsx — src/core/worker-entry.ts), and its end: `done` resolves true when the index was finished,
 * false when the worker stopped or failed.
 */
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { findWorkerEntry, type WorkerEntry } from '../worker-entry';
import type { IndexWorkerCommand, IndexWorkerData, IndexWorkerMessage } from './index-wire';

let entry: WorkerEntry | null | undefined;
function builderEntry(): WorkerEntry | null {
  if (entry === undefined) {
    try {
      entry = findWorkerEntry(dirname(fileURLToPath(import.meta.url)), 'index-worker');
    } catch {
      entry = null;
    }
  }
  return entry;
}

export interface IndexBuilder {
  /** true when the worker finished the index; false when it was stopped or failed */
  done: Promise<boolean>;
  /** asks the worker to stop after its slice under way, and waits for it to end */
  stop(): Promise<void>;
}

/** Starts a worker building the index of the archive at `file`; null where no worker can start. */
export function startIndexBuilder(
  data: IndexWorkerData,
  opts: { keepAlive?: boolean; onMessage?: (m: IndexWorkerMessage) => void } = {},
): IndexBuilder | null {
  const { keepAlive = false, onMessage } = opts;
  const code = builderEntry();
  if (!code) return null;
  let w: Worker;
  try {
    w = new Worker(code.code, { eval: code.eval, workerData: data });
  } catch {
    return null;
  }
  let ok = false;
  w.on('message', (m: IndexWorkerMessage) => {
    if (m.type === 'done') ok = true;
    onMessage?.(m);
  });
  w.on('error', () => undefined);
  const done = new Promise<boolean>((resolve) => w.once('exit', () => resolve(ok)));
  // after the listeners: a 'message' listener added to an unref()ed worker refs it again (Node 20),
  // and the process then lived until the whole index was built (issue 30)
  if (!keepAlive) w.unref();
  return {
    done,
    async stop() {
      w.postMessage({ type: 'stop' } satisfies IndexWorkerCommand);
      await done;
    },
  };
}
