import Database from 'better-sqlite3';
import { accessSync, constants } from 'node:fs';
import type { Db } from './connection';
import { registerTermFunctions } from './term-filter';
import { MIGRATIONS, type Migration, type MigrationReport } from './migrations/index';
import { LoupeError } from '../../shared/errors';

export type { Db } from './connection';

/** Whether this process may write `path` (a file or a folder). */
export function writable(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** Thrown when the archive was written by a newer Loupe; nothing was changed. */
export class ArchiveVersionError extends LoupeError {
  readonly fileVersion: number;
  readonly knownVersion: number;
  constructor(fileVersion: number, knownVersion: number) {
    super(
      'archive_version',
      `This archive was written by a newer Loupe (schema ${fileVersion}); this version understands up to ${knownVersion}. ` +
        'Update Loupe or open another data folder.',
    );
    this.name = 'ArchiveVersionError';
    this.fileVersion = fileVersion;
    this.knownVersion = knownVersion;
  }
}

export function latestVersion(migrations: readonly Migration[] = MIGRATIONS): number {
  return migrations.length === 0 ? 0 : migrations[migrations.length - 1].version;
}

function checkMigrationList(migrations: readonly Migration[]): void {
  migrations.forEach((m, i) => {
    if (m.version !== i + 1) throw new Error(`migration list broken: position ${i + 1} holds version ${m.version} (${m.name})`);
  });
}

/**
 * Where a migration is: step `step` of the `steps` this opening applies (version `version`,
 * `name`), `done` of `total` units of its work (items; 0 of 0 when the step starts or cannot
 * count), in the step's own words.
 */
export interface MigrationProgress {
  version: number;
  name: string;
  step: number;
  steps: number;
  done: number;
  total: number;
  words: string;
}

export type OnMigrationProgress = (p: MigrationProgress) => void;

/**
 * Applies every migration newer than `PRAGMA user_version`, each in its own
 * transaction together with the user_version bump. Refuses (and changes nothing)
 * when the file is newer than the app. `onProgress` hears each step start and whatever the
 * step reports (a migration gets a reporter only when there is a listener: without one, 0010
 * keeps its stderr lines).
 */
export function migrate(
  db: Db,
  migrations: readonly Migration[] = MIGRATIONS,
  onProgress?: OnMigrationProgress,
): { from: number; to: number } {
  checkMigrationList(migrations);
  const from = db.pragma('user_version', { simple: true }) as number;
  const known = latestVersion(migrations);
  if (from > known) throw new ArchiveVersionError(from, known);
  const due = migrations.filter((m) => m.version > from);
  due.forEach((m, i) => {
    const at = { version: m.version, name: m.name, step: i + 1, steps: due.length };
    const words = `schema step ${m.version} (${m.name})`;
    const report: MigrationReport | undefined = onProgress && ((done, total, w) => onProgress({ ...at, done, total, words: w ?? words }));
    // IMMEDIATE, and the version read again under the write lock: two processes opening a new
    // (or older) archive at the same moment (the app and the CLI) apply each step once
    db.transaction(() => {
      if ((db.pragma('user_version', { simple: true }) as number) >= m.version) return;
      report?.(0, 0);
      m.up(db, report);
      db.pragma(`user_version = ${m.version}`);
    }).immediate();
  });
  return { from, to: Math.max(from, known) };
}

/**
 * Opens (creating if needed) an archive file or ':memory:', migrated (`onProgress`: see migrate).
 * The schema version is read BEFORE any pragma that writes, so a newer file is
 * left byte-for-byte untouched.
 */
export function openDb(file: string, migrations: readonly Migration[] = MIGRATIONS, onProgress?: OnMigrationProgress): Db {
  const db = openConnection(file, migrations);
  try {
    migrate(db, migrations, onProgress);
    registerTermFunctions(db);
    return db;
  } catch (e) {
    db.close();
    throw e;
  }
}

/**
 * The connection openDb migrates: the version checked (ArchiveVersionError for a newer file,
 * nothing written), then the archive's pragmas. The migration worker (prepare-worker.ts) uses it.
 */
export function openConnection(file: string, migrations: readonly Migration[] = MIGRATIONS): Db {
  const db = new Database(file);
  try {
    const v = db.pragma('user_version', { simple: true }) as number;
    const known = latestVersion(migrations);
    if (v > known) throw new ArchiveVersionError(v, known);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    db.pragma('cache_size = -65536'); // 64 MB page cache (indexes of a 1M-item archive)
    db.pragma('temp_store = FILE');
    // Checkpoint the WAL every 16 384 pages (64 MB) instead of 1 000: an ingest batch dirties
    // thousands of index pages, and each checkpoint copies and syncs them into the file; with the
    // default almost every 1 000-row batch checkpointed (measured +20-25 % ingest at 100k posts).
    // journal_size_limit trims the WAL file back after a checkpoint.
    db.pragma('wal_autocheckpoint = 16384');
    db.pragma('journal_size_limit = 67108864');
    return db;
  } catch (e) {
    db.close();
    throw e;
  }
}
