/**
 * A consistent single-file copy of the archive while Loupe keeps writing it (issue 24 #10;
 * docs/archive.md "Copies to share or back up"). A plain `cp loupe.db` misses everything still
 * in the write-ahead log — with the app open that is the analyst's recent work (tags, notes,
 * overrides: 0 of 3,486 tags in one copy). This uses SQLite's online backup API from a connection
 * of its own that holds one read transaction for the whole copy: the copy is the archive as of that
 * moment, WAL included, and writers are never blocked (without the held transaction every write by
 * another connection restarts the backup — measured: 324 restarts in 380 steps while one writer
 * ran). It is copied in steps (progress, cancel, the event loop free between steps) into a
 * temporary file beside the target, turned into a self-contained file (rollback journal, not WAL:
 * it opens read-only anywhere), counted, and only then renamed onto the target — never a half
 * file under the final name. An existing target is replaced only with `force`.
 */
import { accessSync, constants, existsSync, realpathSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Database from 'better-sqlite3';
import type { SnapshotCountsInfo } from '../../shared/contract-archive';
import { LoupeError } from '../../shared/errors';
import { freshPartial } from '../partial-files';
import { asStorageError, roomFor, storageError } from '../storage-error';
import { openReadOnlyDb } from './open';
import { raw, sql, Statements } from './sql';

export interface SnapshotProgress {
  /** pages copied, of `pages` */
  done: number;
  pages: number;
}

/** What a copy holds: the contract's shape (the app shows it as it is). */
export type SnapshotCounts = SnapshotCountsInfo;

export interface SnapshotResult {
  /** the archive copied */
  source: string;
  /** the copy (absolute) */
  path: string;
  bytes: number;
  pages: number;
  schema: number;
  counts: SnapshotCounts;
  ms: number;
}

export interface SnapshotOptions {
  /** replace an existing file at the target */
  force?: boolean;
  onProgress?: (p: SnapshotProgress) => void;
  signal?: AbortSignal;
  /** pages copied per step (default 2,048: 8 MiB at 4 KiB pages) */
  pagesPerStep?: number;
  clock?: () => number;
}

/** A snapshot refused before anything was written: no archive, the target exists, the archive itself. */
export class SnapshotError extends LoupeError {
  constructor(kind: 'validation' | 'not_found' | 'cancelled', message: string) {
    super(kind, message);
    this.name = 'SnapshotError';
  }
}

const COUNTED: Array<[keyof SnapshotCounts, string]> = [
  ['items', 'items'],
  ['tags', 'item_tags'],
  ['notes', 'notes'],
  ['overrides', 'label_overrides'],
  ['resultSets', 'result_sets'],
  ['ledgerRows', 'calls'],
  ['walks', 'walks'],
  ['watchlists', 'watchlists'],
];

/** What an archive file holds, read from a connection (tables it lacks count 0). */
export function countArchive(db: Database.Database): SnapshotCounts {
  const s = new Statements(db);
  const have = new Set(s.values<string>(sql`SELECT name FROM sqlite_schema WHERE type = 'table'`));
  const out = {} as SnapshotCounts;
  for (const [key, table] of COUNTED) out[key] = have.has(table) ? (s.value<number>(sql`SELECT count(*) AS n FROM ${raw(table)}`) ?? 0) : 0;
  return out;
}

function sameFile(a: string, b: string): boolean {
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
}

/** Checks made before anything is read or written; returns the absolute target. */
export function checkSnapshotTarget(source: string, target: string, force = false): string {
  const dest = resolve(target);
  if (!existsSync(source)) throw new SnapshotError('not_found', `There is no archive at ${source} yet; nothing to copy.`);
  if (sameFile(source, dest) || [`${source}-wal`, `${source}-shm`].some((f) => sameFile(f, dest)))
    throw new SnapshotError('validation', `${dest} is the archive itself; choose another file for the copy.`);
  if (existsSync(dest)) {
    if (!force) throw new SnapshotError('validation', `${dest} already exists; choose another name, or replace it with --force.`);
    if (!statSync(dest).isFile()) throw new SnapshotError('validation', `${dest} is not a file; choose a file name for the copy.`);
  }
  const dir = dirname(dest);
  if (!existsSync(dir))
    throw new SnapshotError('validation', `The folder ${dir} does not exist; create it or choose another place for the copy.`);
  try {
    accessSync(dir, constants.W_OK);
  } catch (e) {
    throw asStorageError(e, dest, { what: 'the copy', wayOut: 'choose a folder you can write to' }) ?? e;
  }
  return dest;
}

/**
 * Copies the archive at `source` to `target` (see the header). Rejects with SnapshotError (the
 * target exists, no archive, cancelled) or a StorageError naming the target (full disk, folder
 * not writable: the temporary file is removed, the target untouched).
 */
export async function snapshotArchive(source: string, target: string, o: SnapshotOptions = {}): Promise<SnapshotResult> {
  const now = o.clock ?? Date.now;
  const started = now();
  const dest = checkSnapshotTarget(source, target, o.force);
  // pid-tagged hidden name (with its -journal): what a killed copy left for this name is removed here (partial-files.ts)
  const tmp = freshPartial(dest);
  const clean = (): void => {
    for (const f of [tmp, `${tmp}-journal`, `${tmp}-wal`, `${tmp}-shm`]) rmSync(f, { force: true });
  };
  const wording = {
    what: 'the copy',
    wayOut: 'free some space or choose another place, then make the copy again (the archive itself is unchanged)',
  };
  const src = openReadOnlyDb(source);
  let pages = 0;
  let pageSize = 4096;
  let schema = 0;
  try {
    // one read transaction for the whole copy: a consistent snapshot, WAL included, and no
    // restart when another connection writes between two steps
    src.db.exec('BEGIN');
    schema = src.db.pragma('user_version', { simple: true }) as number;
    pages = src.db.pragma('page_count', { simple: true }) as number;
    pageSize = src.db.pragma('page_size', { simple: true }) as number;
    o.onProgress?.({ done: 0, pages });
    const step = Math.max(1, o.pagesPerStep ?? 2048);
    await src.db.backup(tmp, {
      progress: ({ totalPages, remainingPages }) => {
        if (o.signal?.aborted) throw new SnapshotError('cancelled', 'The copy was cancelled; no file was written.');
        pages = totalPages;
        o.onProgress?.({ done: totalPages - remainingPages, pages: totalPages });
        return step;
      },
    });
  } catch (e) {
    // the backup API reports a write past the disk's end or the file-size limit as a bare I/O error
    const full = !(e instanceof LoupeError) && !roomFor(dirname(dest), pages * pageSize);
    clean();
    if (e instanceof LoupeError) throw e;
    // a damaged archive is the archive's problem, not the copy's
    const code = String((e as { code?: unknown }).code ?? '');
    if (/^SQLITE_(CORRUPT|NOTADB)/.test(code)) throw asStorageError(e, source, { op: 'read' }) ?? e;
    const err = asStorageError(e, dest, wording);
    if (full && (!err || err.kind === 'io'))
      throw storageError('full', dest, {
        ...wording,
        detail: e instanceof Error ? `${code ? `${code}: ` : ''}${e.message}` : String(e),
        code,
      });
    throw err ?? e;
  } finally {
    try {
      if (src.db.inTransaction) src.db.exec('COMMIT');
    } catch {
      /* a read transaction */
    }
    src.close();
  }
  let counts: SnapshotCounts;
  try {
    // a self-contained file: no -wal beside it is needed to read it (read-only folders, other tools)
    const db = new Database(tmp);
    try {
      db.pragma('journal_mode = DELETE');
      counts = countArchive(db);
    } finally {
      db.close();
    }
    if (o.signal?.aborted) throw new SnapshotError('cancelled', 'The copy was cancelled; no file was written.');
    // a replaced file's -wal / -shm would be read into the new copy: they go with it
    if (o.force) for (const f of [`${dest}-wal`, `${dest}-shm`, `${dest}-journal`]) rmSync(f, { force: true });
    renameSync(tmp, dest);
  } catch (e) {
    clean();
    if (e instanceof LoupeError) throw e;
    throw asStorageError(e, dest, wording) ?? storageError('io', dest, { ...wording, detail: e instanceof Error ? e.message : String(e) });
  }
  o.onProgress?.({ done: pages, pages });
  return { source, path: dest, bytes: statSync(dest).size, pages, schema, counts, ms: now() - started };
}
