/**
 * The worker thread of prepareArchive (./prepare.ts): opens the archive, applies the migrations
 * that are due (each in its own transaction, as openDb does), closes it — the WAL written into
 * the file — and says so. Every migration report goes to the starting thread as it happens.
 *
 * Messages: `{ type: 'progress', p }`, then `{ type: 'done', from, to }` or
 * `{ type: 'error', error }` (the error's name, message, driver code, stack and, for a newer
 * schema, its versions: the starting thread rebuilds the archive's own error from them).
 */
import { workerData } from 'node:worker_threads';
import { migrate, openConnection, type MigrationProgress } from './db';
import type { PrepareWorkerData, WorkerAnswer, WorkerError } from './prepare-wire';
import { workerPort } from '../worker-entry';

const { file, holdAfterReportMs } = workerData as PrepareWorkerData;
const port = workerPort('the archive preparation worker');
const post = (m: WorkerAnswer) => port.postMessage(m);
const sleeper = holdAfterReportMs ? new Int32Array(new SharedArrayBuffer(4)) : null;

function asWire(e: unknown): WorkerError {
  if (!(e instanceof Error)) return { name: 'Error', message: String(e) };
  const x = e as Error & { code?: unknown; fileVersion?: unknown; knownVersion?: unknown };
  return {
    name: x.name,
    message: x.message,
    stack: x.stack,
    code: typeof x.code === 'string' ? x.code : undefined,
    fileVersion: typeof x.fileVersion === 'number' ? x.fileVersion : undefined,
    knownVersion: typeof x.knownVersion === 'number' ? x.knownVersion : undefined,
  };
}

try {
  const db = openConnection(file);
  let result: { from: number; to: number };
  let last: MigrationProgress | null = null;
  try {
    result = migrate(db, undefined, (p) => {
      last = p;
      post({ type: 'progress', p });
      if (sleeper) Atomics.wait(sleeper, 0, 0, holdAfterReportMs); // tests: time to stop it mid-step
    });
    // closing writes the WAL into the file (after a rewrite of every item: seconds); say so
    const l = last as MigrationProgress | null;
    if (l) post({ type: 'progress', p: { ...l, done: 0, total: 0, words: 'saving the updated archive' } });
  } finally {
    db.close();
  }
  post({ type: 'done', ...result });
} catch (e) {
  post({ type: 'error', error: asWire(e) });
}
