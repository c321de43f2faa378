/**
 * Bringing the archive to the current schema before a door composes the app (docs/archive.md
 * "Opening and migrations"). A migration that rewrites every item (0010 re-reads each record's
 * columns: about a minute at 1M posts) used to run inside `openArchive`, synchronously: the
 * desktop app showed nothing and its main process did not answer. Every door now awaits
 * `prepareArchive` first:
 *
 * - nothing due (the usual case: the file's header already says the current version, or there is
 *   no file yet) → it answers at once, no worker, no connection;
 * - migrations due → they run in a worker thread (./prepare-worker.ts) with the same runner and
 *   transactions as `openDb`, while the caller's event loop stays free, reporting each step and
 *   each batch (`onProgress`); the door's `openArchive` then finds nothing left to do;
 * - a folder or file that cannot be written → nothing is done here (the reading path migrates a
 *   temporary copy, ./open.ts).
 *
 * A failure comes back as `openArchive` would have thrown it: StorageError (full, damaged,
 * readonly, locked, io — from the driver's code) or ArchiveVersionError. Each step is one
 * transaction, so a stopped worker (`signal`, or the process killed) leaves the steps that
 * finished and the archive exactly as it was before the step under way; the next opening goes on.
 * Where no worker can start, the migrations run on the calling thread (still reporting).
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { LoupeError } from '../../shared/errors';
import { toStorageError } from '../storage-error';
import { findWorkerEntry, type WorkerEntry } from '../worker-entry';
import {
  ArchiveVersionError,
  latestVersion,
  writable,
  migrate,
  openConnection,
  type MigrationProgress,
  type OnMigrationProgress,
} from './db';
import type { PrepareWorkerData, WorkerAnswer, WorkerError } from './prepare-wire';

export type { MigrationProgress, OnMigrationProgress } from './db';

export interface PrepareOptions {
  onProgress?: OnMigrationProgress;
  /** stops the worker: the step under way is rolled back, the promise rejects (kind `cancelled`) */
  signal?: AbortSignal;
  /** tests: the worker pauses this long after each report (time to stop it mid-step) */
  holdAfterReportMs?: number;
}

export interface Prepared {
  /** the schema version before (0: no archive yet) */
  from: number;
  /** after; equal to `from` when nothing was done here */
  to: number;
  /** whether a worker thread migrated it */
  worker: boolean;
}

const HEADER = Buffer.from('SQLite format 3\0', 'latin1');

/**
 * `PRAGMA user_version` as the file's header says (bytes 60-63), without SQLite; null when there
 * is no file or it is not a SQLite file (the open path reports that). The header can only lag
 * the truth (a WAL not yet written back holds newer pages), never be ahead of it.
 */
export function headerVersion(file: string): number | null {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return null;
  }
  try {
    const b = Buffer.alloc(100);
    if (readSync(fd, b, 0, 100, 0) < 100 || !b.subarray(0, 16).equals(HEADER)) return null;
    return b.readInt32BE(60);
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/** The schema version under SQLite (the WAL included); a driver failure as openArchive's error. */
function currentVersion(file: string): number {
  let db: Database.Database | null = null;
  try {
    db = new Database(file, { fileMustExist: true });
    return db.pragma('user_version', { simple: true }) as number;
  } catch (e) {
    throw toStorageError(e, file, { op: 'open' });
  } finally {
    db?.close();
  }
}

/** The error the worker reported, as openArchive would have thrown it (nothing of it lost). */
function rebuild(w: WorkerError, file: string): unknown {
  if (w.name === 'ArchiveVersionError' && w.fileVersion !== undefined && w.knownVersion !== undefined)
    return new ArchiveVersionError(w.fileVersion, w.knownVersion);
  const e = Object.assign(new Error(w.message), w.code !== undefined ? { code: w.code } : {});
  e.name = w.name;
  if (w.stack) e.stack = w.stack;
  return toStorageError(e, file, { op: 'open' });
}

function cancelled(): LoupeError {
  return new LoupeError(
    'cancelled',
    'The archive update was stopped; the step under way was undone and the archive is as it was before it. Opening it again continues the update.',
  );
}

/** The migrations on this thread (no worker could start): same runner, same reports. */
function migrateHere(file: string, onProgress?: OnMigrationProgress): Prepared {
  let db;
  try {
    db = openConnection(file);
  } catch (e) {
    throw toStorageError(e, file, { op: 'open' });
  }
  try {
    const r = migrate(db, undefined, onProgress);
    return { ...r, worker: false };
  } catch (e) {
    throw toStorageError(e, file, { op: 'open' });
  } finally {
    db.close();
  }
}

let entry: WorkerEntry | null | undefined;
function workerEntry(): WorkerEntry | null {
  if (entry === undefined) {
    try {
      entry = findWorkerEntry(dirname(fileURLToPath(import.meta.url)), 'prepare-worker');
    } catch {
      entry = null;
    }
  }
  return entry;
}

/**
 * Brings the archive at `file` to the current schema, in a worker thread when migrations are due
 * (see the header). Resolves once the archive can be opened without migrating.
 */
export async function prepareArchive(file: string, opts: PrepareOptions = {}): Promise<Prepared> {
  const known = latestVersion();
  const seen = headerVersion(file);
  if (seen === null) return { from: 0, to: 0, worker: false }; // no archive yet (or not one: openArchive says so)
  if (seen > known) throw new ArchiveVersionError(seen, known);
  if (seen === known) return { from: seen, to: seen, worker: false };
  if (!writable(file) || !writable(dirname(file))) return { from: seen, to: seen, worker: false }; // read-only: ./open.ts
  const from = currentVersion(file);
  if (from > known) throw new ArchiveVersionError(from, known);
  if (from === known) return { from, to: from, worker: false };
  if (opts.signal?.aborted) throw cancelled();
  const code = workerEntry();
  if (!code) return migrateHere(file, opts.onProgress);
  const data: PrepareWorkerData = { file, holdAfterReportMs: opts.holdAfterReportMs };
  return new Promise<Prepared>((resolve, reject) => {
    let settled = false;
    let heard = false;
    let worker: Worker;
    try {
      worker = new Worker(code.code, { eval: code.eval, workerData: data });
    } catch {
      resolve(migrateHere(file, opts.onProgress));
      return;
    }
    const finish = (f: () => void) => {
      if (settled) return;
      settled = true;
      opts.signal?.removeEventListener('abort', onAbort);
      f();
    };
    let stopping = false;
    const onAbort = () => {
      if (settled) return;
      stopping = true;
      void worker.terminate();
    };
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    worker.on('message', (m: WorkerAnswer) => {
      heard = true;
      if (m.type === 'progress') {
        if (!settled) opts.onProgress?.(m.p);
      } else if (m.type === 'done') finish(() => resolve({ from: m.from, to: m.to, worker: true }));
      else finish(() => reject(rebuild(m.error, file)));
    });
    worker.on('error', (e) => {
      // the worker's code could not load (a build without it): the migrations run here instead
      if (!heard) {
        finish(() => {
          try {
            resolve(migrateHere(file, opts.onProgress));
          } catch (x) {
            reject(x);
          }
        });
      } else finish(() => reject(e));
    });
    worker.on('exit', (exitCode) => {
      finish(() =>
        reject(
          stopping
            ? cancelled()
            : new Error(
                `The archive update stopped before it finished (worker exit code ${exitCode}); the steps that finished are kept and the one under way was undone. Opening the archive again continues it.`,
              ),
        ),
      );
    });
  });
}

const fmt = (n: number) => n.toLocaleString('en');

/** A report in words: "Updating your archive — 340,000 of 1,000,000 items", and what the step does. */
export function describeMigration(p: MigrationProgress): { headline: string; detail: string; fraction: number | null } {
  const counted = p.total > 0;
  return {
    headline: counted ? `Updating your archive — ${fmt(p.done)} of ${fmt(p.total)} items` : 'Updating your archive…',
    detail: `${p.steps > 1 ? `Step ${p.step} of ${p.steps}: ` : ''}${p.words.charAt(0).toUpperCase()}${p.words.slice(1)}`,
    fraction: counted ? Math.min(1, p.done / p.total) : null,
  };
}

/** One line: the headline and the step. */
export function migrationLine(p: MigrationProgress): string {
  const d = describeMigration(p);
  return `${d.headline} (${d.detail.charAt(0).toLowerCase()}${d.detail.slice(1)})`;
}

/**
 * Progress lines for a terminal or a log: on a terminal one line rewritten in place (at most ten
 * times a second); elsewhere a line when a step starts and at every tenth of a counted step.
 * `end()` finishes the terminal's line.
 */
export function migrationPrinter(out: { write(s: string): unknown; isTTY?: boolean }): { onProgress: OnMigrationProgress; end(): void } {
  let lastAt = 0;
  let lastKey = '';
  let drawn = false;
  return {
    onProgress(p) {
      const line = migrationLine(p);
      if (out.isTTY) {
        const now = Date.now();
        if (now - lastAt < 100 && p.done < p.total) return;
        lastAt = now;
        out.write(`\r\x1b[2K${line}`);
        drawn = true;
        return;
      }
      const key = `${p.version}:${p.words}:${p.total > 0 ? Math.floor((p.done / p.total) * 10) : -1}`;
      if (key === lastKey) return;
      lastKey = key;
      out.write(`${line}\n`);
    },
    end() {
      if (drawn) out.write('\r\x1b[2K');
      drawn = false;
    },
  };
}
