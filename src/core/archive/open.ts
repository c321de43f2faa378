/**
 * Opening the archive for a job that writes, or for one that only reads
 * (docs/archive.md "Read-only data folders").
 *
 * - Writing: the data folder is created if needed and must be writable, and so must the file;
 *   otherwise a StorageError ('readonly') is thrown at once, before anything is sent or spent.
 * - Reading: a writable folder opens the archive as usual (created, migrated). A read-only one
 *   opens the file read-only in place when SQLite can (its WAL -shm/-wal files exist, schema
 *   current). A cleanly closed WAL archive cannot be read in place from a read-only folder
 *   (SQLite must create its -shm file; this build has no `immutable=1` URIs), nor can an older
 *   schema be migrated there: then the reader works on a temporary copy (the file and its -wal)
 *   made in the system temp folder, migrated, set `query_only`, and deleted on close. Without a
 *   file at all, an empty in-memory archive stands in. Nothing in the data folder is written.
 * - Reading on a full disk (no room for the -shm file a cleanly closed WAL archive needs): the
 *   file in EXCLUSIVE locking mode, where SQLite keeps the WAL index in this process's memory and
 *   creates no -shm, set `query_only`, with a note saying so (`Archive.note`).
 */
import Database from 'better-sqlite3';
import { constants, copyFileSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { freshTempDir } from '../partial-files';
import { asStorageError, isStorageError, storageError, toStorageError, type StorageError } from '../storage-error';
import { Archive, openArchive, type OpenArchiveOptions } from './archive';
import { ArchiveVersionError, latestVersion, writable, openDb, type Db } from './db';
import { ctxOf } from './context';
import { sql, Statements } from './sql';

export type ArchiveMode = 'read' | 'write';

/** The nearest folder of `path` that exists (where a missing data folder would be created). */
function nearestExisting(path: string): string {
  let p = path;
  while (!existsSync(p)) {
    const up = dirname(p);
    if (up === p) break;
    p = up;
  }
  return p;
}

/**
 * The archive for a job that writes. Throws StorageError 'readonly' when the folder or the file
 * cannot be written (before anything is read from the service), 'damaged' for a damaged or
 * foreign file, ArchiveVersionError for a newer schema.
 */
export function openArchiveForWriting(file: string, opts: OpenArchiveOptions = {}): Archive {
  const dir = dirname(file);
  try {
    mkdirSync(dir, { recursive: true });
  } catch (e) {
    throw toStorageError(e, dir, { op: 'write', what: 'the data folder' });
  }
  if (!writable(dir)) throw storageError('readonly', file, { op: 'write', detail: `the folder ${dir} is not writable` });
  if (existsSync(file) && !writable(file)) throw storageError('readonly', file, { op: 'write', detail: 'the file is not writable' });
  const a = openArchive(file, opts);
  if (ctxOf(a).db.readonly) {
    a.close();
    throw storageError('readonly', file, { op: 'write', detail: 'SQLite opened it read-only' });
  }
  return a;
}

function readerPragmas(db: Db): void {
  db.pragma('busy_timeout = 5000');
  db.pragma('cache_size = -65536');
}

/** The file opened read-only where it is, or null when SQLite cannot (see the header). */
function openInPlace(file: string, opts: OpenArchiveOptions): Archive | null {
  let db: Db;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
  } catch (e) {
    throw toStorageError(e, file, { op: 'open' });
  }
  try {
    const v = db.pragma('user_version', { simple: true }) as number;
    if (v > latestVersion()) throw new ArchiveVersionError(v, latestVersion());
    if (v < latestVersion()) {
      db.close();
      return null; // needs migrating: only a copy can be
    }
    readerPragmas(db);
    new Statements(db).value(sql`SELECT count(*) FROM sqlite_schema`); // reads the schema now: damage shows here
    return new Archive(db, { ...opts, path: opts.path ?? file });
  } catch (e) {
    if (db.open) db.close();
    const code = String((e as { code?: unknown }).code ?? '');
    // WAL without -shm in a read-only folder
    if (
      code === 'SQLITE_READONLY_DIRECTORY' ||
      code.startsWith('SQLITE_CANTOPEN') ||
      code === 'SQLITE_READONLY_CANTINIT' ||
      code === 'SQLITE_READONLY_RECOVERY'
    )
      return null;
    throw toStorageError(e, opts.path ?? file, { op: 'open' });
  }
}

/** A migrated, query-only copy of the archive in the system temp folder, removed on close. */
function openSnapshot(file: string, opts: OpenArchiveOptions): Archive {
  let tmp: string;
  try {
    tmp = freshTempDir(tmpdir(), 'loupe-readonly');
  } catch (e) {
    throw toStorageError(e, tmpdir(), { op: 'write', what: 'the temporary folder' });
  }
  const cleanup = () => rmSync(tmp, { recursive: true, force: true });
  const copy = join(tmp, 'loupe.db');
  let db: Db;
  try {
    copyFileSync(file, copy, constants.COPYFILE_FICLONE);
    if (existsSync(`${file}-wal`)) copyFileSync(`${file}-wal`, `${copy}-wal`, constants.COPYFILE_FICLONE);
  } catch (e) {
    cleanup();
    const se = toStorageError(e, tmp, { op: 'write', what: 'a temporary copy of the archive' });
    throw isStorageError(se) ? se : toStorageError(e, file, { op: 'read' });
  }
  try {
    db = openDb(copy);
    db.pragma('query_only = 1');
  } catch (e) {
    cleanup();
    throw toStorageError(e, opts.path ?? file, { op: 'open' });
  }
  return new Archive(db, { ...opts, path: opts.path ?? file, onClose: cleanup });
}

/**
 * The archive for a job that only reads: as usual in a writable folder; in a read-only one,
 * read-only in place or as a temporary snapshot, and never writing anything there.
 */
export function openArchiveForReading(file: string, opts: OpenArchiveOptions = {}): Archive {
  const dir = dirname(file);
  const exists = existsSync(file);
  if (exists ? writable(dir) && writable(file) : writable(nearestExisting(dir))) {
    try {
      return openArchiveForWriting(file, opts);
    } catch (e) {
      if (isStorageError(e) && e.kind === 'full') return exists ? openOnFullDisk(file, opts, e) : emptyArchive(file, opts);
      if (!(isStorageError(e) && e.kind === 'readonly')) throw e;
      if (!existsSync(file)) return emptyArchive(file, opts);
    }
  }
  if (!exists) return emptyArchive(file, opts);
  return openInPlace(file, opts) ?? openSnapshot(file, opts);
}

/**
 * The archive read on a disk too full for SQLite to open it as usual (`full`: it must create and
 * size the 32 KiB -shm file of a WAL archive closed cleanly; SQLITE_IOERR_SHMSIZE): opened in
 * EXCLUSIVE locking mode before its first read, in which SQLite keeps the WAL index in this
 * process's memory and never creates the -shm, and set `query_only` — nothing is written, and a
 * write attempted anyway fails as `readonly`. Other processes cannot open the archive meanwhile
 * (none could without room for the -shm; one that has it open holds the -shm, and then the usual
 * open works). An archive that needs migrating cannot be, there: `full` is thrown as it came.
 */
function openOnFullDisk(file: string, opts: OpenArchiveOptions, full: StorageError): Archive {
  let db: Db;
  try {
    db = new Database(file, { fileMustExist: true });
  } catch {
    throw full;
  }
  try {
    db.pragma('locking_mode = EXCLUSIVE');
    const v = db.pragma('user_version', { simple: true }) as number;
    if (v > latestVersion()) throw new ArchiveVersionError(v, latestVersion());
    if (v < latestVersion()) throw full;
    readerPragmas(db);
    db.pragma('temp_store = MEMORY'); // a sort's temporary file would meet the full disk too (the system temp folder is often on it)
    db.pragma('query_only = 1');
    new Statements(db).value(sql`SELECT count(*) FROM sqlite_schema`); // reads the schema now: damage shows here
  } catch (e) {
    db.close();
    if (e instanceof ArchiveVersionError || e === full) throw e;
    const s = asStorageError(e, opts.path ?? file, { op: 'open' });
    throw s === null || s.kind === 'full' ? full : s;
  }
  const path = opts.path ?? file;
  const note = `The disk of the archive at ${path} is full: it is read as it is and nothing is written to it; free some disk space before a command that writes.`;
  return new Archive(db, { ...opts, path, note, oneConnection: true });
}

/** No archive yet, and none may be created: an empty, query-only one in memory. */
function emptyArchive(file: string, opts: OpenArchiveOptions): Archive {
  const db = openDb(':memory:');
  db.pragma('query_only = 1');
  return new Archive(db, { ...opts, path: opts.path ?? file });
}

/**
 * A raw connection that reads the file as it is (no migration, `query_only`), for `loupe archive
 * check`. In a writable folder it is an ordinary connection, so SQLite removes the -wal / -shm
 * files it needs when it closes (a read-only connection would leave them behind); elsewhere it is
 * read-only, in place when SQLite can, else on a temporary copy (see the header).
 */
export function openReadOnlyDb(file: string): { db: Db; snapshot: boolean; close(): void } {
  if (writable(dirname(file)) && writable(file)) {
    let db: Db;
    try {
      db = new Database(file, { fileMustExist: true });
    } catch (e) {
      throw toStorageError(e, file, { op: 'open' });
    }
    try {
      db.pragma('query_only = 1');
    } catch (e) {
      db.close();
      throw toStorageError(e, file, { op: 'open' });
    }
    if (shmFull(db, file)) {
      // no room for the -shm: read alone, the WAL index in memory (openOnFullDisk); a damaged header still shows in the check
      db.close();
      try {
        db = new Database(file, { fileMustExist: true });
        db.pragma('locking_mode = EXCLUSIVE');
        db.pragma('query_only = 1');
      } catch (e) {
        throw toStorageError(e, file, { op: 'open' });
      }
    }
    const opened = db;
    return { db, snapshot: false, close: () => opened.close() };
  }
  try {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      db.pragma('user_version', { simple: true });
      return { db, snapshot: false, close: () => db.close() };
    } catch (e) {
      db.close();
      const code = String((e as { code?: unknown }).code ?? '');
      if (!(
        code === 'SQLITE_READONLY_DIRECTORY' ||
        code.startsWith('SQLITE_CANTOPEN') ||
        code === 'SQLITE_READONLY_CANTINIT' ||
        code === 'SQLITE_READONLY_RECOVERY'
      ))
        throw e;
    }
  } catch (e) {
    const code = String((e as { code?: unknown }).code ?? '');
    if (!(code === 'SQLITE_READONLY_DIRECTORY' || code.startsWith('SQLITE_CANTOPEN'))) throw toStorageError(e, file, { op: 'open' });
  }
  const tmp = freshTempDir(tmpdir(), 'loupe-readonly');
  const cleanup = () => rmSync(tmp, { recursive: true, force: true });
  try {
    const copy = join(tmp, 'loupe.db');
    copyFileSync(file, copy, constants.COPYFILE_FICLONE);
    if (existsSync(`${file}-wal`)) copyFileSync(`${file}-wal`, `${copy}-wal`, constants.COPYFILE_FICLONE);
    const db = new Database(copy, { readonly: true, fileMustExist: true });
    return {
      db,
      snapshot: true,
      close: () => {
        db.close();
        cleanup();
      },
    };
  } catch (e) {
    cleanup();
    throw toStorageError(e, file, { op: 'open' });
  }
}

/** Whether the first read of `db` fails for want of room on its disk (the -shm of a WAL archive cannot be made). */
function shmFull(db: Db, file: string): boolean {
  try {
    db.pragma('user_version', { simple: true });
    return false;
  } catch (e) {
    return asStorageError(e, file)?.kind === 'full';
  }
}

export function openArchiveIn(mode: ArchiveMode, file: string, opts: OpenArchiveOptions = {}): Archive {
  return mode === 'write' ? openArchiveForWriting(file, opts) : openArchiveForReading(file, opts);
}
