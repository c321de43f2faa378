/**
 * Local storage failures (the archive file, the data folder, the disk), kept apart from network
 * and API failures: they are the user's machine, not the service, and the way out is local
 * (free space, fix permissions, `loupe archive check` / `loupe archive recover`).
 *
 * Every path that writes the archive converts driver errors with `toStorageError(e, path)`; the
 * request core stops before the next charged request at the first one (never spend on an answer
 * the archive cannot keep).
 *
 * The message is one sentence: what could not be done to which file, the cause (with the
 * driver's code), and the way out.
 */
import { readFileSync, statSync, statfsSync } from 'node:fs';
import { dirname } from 'node:path';
import { LoupeError } from '../shared/errors';

export type StorageErrorKind = 'full' | 'readonly' | 'damaged' | 'locked' | 'io';

/** What was being done when the failure happened (only changes the wording). */
export type StorageOp = 'write' | 'read' | 'open';

/** Its kind is the cause (full, readonly, …): the error table maps each to exit 6 / HTTP 507, crossing doors as kind `storage`. */
export class StorageError extends LoupeError {
  declare readonly kind: StorageErrorKind;
  readonly path: string;
  /** the driver's code (SQLITE_FULL, EROFS, …) when known */
  declare readonly code?: string;

  constructor(init: { kind: StorageErrorKind; path: string; message: string; code?: string; wayOut?: string }) {
    super(init.kind, init.message, { type: init.kind.toUpperCase(), wayOut: init.wayOut });
    this.name = 'StorageError';
    this.path = init.path;
    if (init.code !== undefined) (this as { code?: string }).code = init.code;
  }
}

export function isStorageError(e: unknown): e is StorageError {
  return e instanceof StorageError;
}

const CAUSE: Record<StorageErrorKind, string> = {
  full: 'the disk is full or a file-size limit was reached',
  readonly: 'it or its folder is read-only',
  damaged: 'the file is damaged or is not a Loupe archive',
  locked: 'another program holds it locked',
  io: 'the disk reported an input/output error',
};

const WAY_OUT: Record<StorageErrorKind, string> = {
  // every command that writes the archive can meet a full disk (a walk, a collection, an import, the
  // analysis index): the way out names how each continues, not only a walk's
  full: 'free some disk space, then run the command again — a walk continues with `loupe resume <walk>`, a collection with `loupe collect run <plan>`; what was stored is kept and nothing already paid for is bought again',
  readonly: 'make the data folder writable (or point --data-dir / LOUPE_HOME at a writable folder); reading commands still work',
  damaged: 'run `loupe archive check`, then `loupe archive recover` to copy what can be read into a new file (the damaged file is kept)',
  locked: 'close the other program using the archive and try again',
  io: 'check the disk, then run `loupe archive check`',
};

function kindOf(code: string, message: string): StorageErrorKind | null {
  const c = code.toUpperCase();
  const m = message.toLowerCase();
  if (c.startsWith('SQLITE_FULL') || c === 'ENOSPC' || c === 'EFBIG' || c === 'EDQUOT' || /database or disk is full|no space left/.test(m))
    return 'full';
  if (c.startsWith('SQLITE_READONLY') || c === 'EROFS' || c === 'EACCES' || c === 'EPERM' || /readonly database|read-only/.test(m))
    return 'readonly';
  if (c.startsWith('SQLITE_CORRUPT') || c.startsWith('SQLITE_NOTADB') || /malformed|not a database/.test(m)) return 'damaged';
  if (c.startsWith('SQLITE_BUSY') || c.startsWith('SQLITE_LOCKED') || /database is locked/.test(m)) return 'locked';
  if (c.startsWith('SQLITE_IOERR') || c.startsWith('SQLITE_CANTOPEN') || c === 'EIO' || /disk i\/o error/.test(m)) return 'io';
  return null;
}

/** The soft RLIMIT_FSIZE in bytes (Linux), or null when unlimited / unknown. */
function fileSizeLimit(): number | null {
  try {
    const m = /^Max file size\s+(\S+)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
    return m && /^\d+$/.test(m[1]) ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

/**
 * Whether a failed write at `path` looks like a full disk or a file-size limit: SQLite reports
 * ENOSPC as SQLITE_FULL, but a write past the file-size limit (EFBIG) only as SQLITE_IOERR_WRITE.
 */
function looksFull(path: string): boolean {
  try {
    const fs = statfsSync(dirname(path));
    if (fs.bavail * fs.bsize < 1024 * 1024) return true;
  } catch {
    /* unknown */
  }
  const limit = fileSizeLimit();
  if (limit === null) return false;
  for (const f of [path, `${path}-wal`, `${path}-journal`]) {
    try {
      if (statSync(f).size + 64 * 1024 >= limit) return true;
    } catch {
      /* absent */
    }
  }
  return false;
}

/**
 * Whether a file of `bytes` fits in `dir`: the free space there and this process's file-size
 * limit (for a writer whose failure says only "I/O error", like SQLite's backup API).
 */
export function roomFor(dir: string, bytes: number): boolean {
  try {
    const fs = statfsSync(dir);
    if (fs.bavail * fs.bsize < bytes) return false;
  } catch {
    /* unknown */
  }
  const limit = fileSizeLimit();
  return limit === null || limit >= bytes;
}

const VERB: Record<StorageOp, string> = { write: 'could not be written', read: 'could not be read', open: 'could not be opened' };

/**
 * A StorageError made from its parts. `what` names the file ("the archive" by default; e.g.
 * "the settings file", "the data folder").
 */
export interface StorageErrorWording {
  op?: StorageOp;
  /** the file named, "the archive" by default */
  what?: string;
  /** replaces the way out (e.g. for a file the user chose, outside the data folder) */
  wayOut?: string;
}

export function storageError(
  kind: StorageErrorKind,
  path: string,
  opts: StorageErrorWording & { detail?: string; code?: string } = {},
): StorageError {
  const what = opts.what ?? 'the archive';
  const detail = opts.detail ? ` (${opts.detail})` : '';
  const lead = what.charAt(0).toUpperCase() + what.slice(1);
  return new StorageError({
    kind,
    path,
    code: opts.code,
    wayOut: opts.wayOut ?? WAY_OUT[kind],
    message: `${lead} at ${path} ${VERB[opts.op ?? 'write']}: ${CAUSE[kind]}${detail}; ${opts.wayOut ?? WAY_OUT[kind]}.`,
  });
}

/**
 * The StorageError for a driver/file-system error, or null when `e` is not a storage failure.
 * `op` and `what` only change the wording (default: writing the archive).
 */
export function asStorageError(e: unknown, path: string, opts: StorageErrorWording = {}): StorageError | null {
  if (e instanceof StorageError) return e;
  if (!(e instanceof Error)) return null;
  const code = String((e as { code?: unknown }).code ?? '');
  let kind = kindOf(code, e.message);
  if (!kind) return null;
  if (kind === 'io' && /^SQLITE_IOERR_(WRITE|SHORT_WRITE|FSYNC|TRUNCATE|SHMSIZE|SHMOPEN)$/.test(code) && looksFull(path)) kind = 'full';
  const msg = e.message.replace(/\.$/, '');
  const detail = code && !msg.includes(code) ? `${code}: ${msg}` : msg;
  return storageError(kind, path, { ...opts, detail, code: code || undefined });
}

/**
 * A file system's failure writing a file the user named (ENOSPC, EFBIG, EROFS, …: an errno code,
 * not the archive's SQLite) as the storage error for `file`; null for anything else. A write
 * stream's error carries no path, so it would otherwise reach the top as "Internal error".
 */
export function fileWriteError(e: unknown, file: string, opts: StorageErrorWording): StorageError | null {
  if (!(e instanceof Error) || e instanceof LoupeError) return null;
  const code = (e as NodeJS.ErrnoException).code;
  if (typeof code !== 'string' || !/^E[A-Z]+$/.test(code)) return null;
  return asStorageError(e, file, opts);
}

/** Like asStorageError, but returns `e` unchanged when it is not a storage failure. */
export function toStorageError(e: unknown, path: string, opts: StorageErrorWording = {}): unknown {
  return asStorageError(e, path, opts) ?? e;
}

export function storageWayOut(kind: StorageErrorKind): string {
  return WAY_OUT[kind];
}
