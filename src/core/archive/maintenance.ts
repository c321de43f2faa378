/**
 * `loupe archive check` and `loupe archive recover` (docs/archive.md "Checking and recovering").
 *
 * check: opens the file read-only as it is (no migration, nothing written), runs SQLite's
 * `integrity_check` (or `quick_check`), compares the tables and indexes with the schema of its
 * version, and counts items, ledger rows and walks.
 *
 * recover: works on a copy of the damaged file (and its -wal), so the damaged file is never
 * opened or changed, and copies what can be read into a NEW file with one of two engines:
 *   - `sqlite3`: SQLite's own `.recover` through the sqlite3 command-line program (the library
 *     has no recovery API), when that program is installed and its `.recover` works (it needs the
 *     `sqlite_dbpage` table, which some builds lack, Debian's 3.40 among them);
 *   - `copy`: the built-in table-by-table copy that skips unreadable rows (salvage.ts).
 * `auto` (the default) uses sqlite3 when it works and the copy otherwise (or when sqlite3's
 * result does not check out). Then: schema version restored (inferred from the tables when
 * page 1 was lost), rows SQLite could not place (`lost_and_found`) dropped and counted, migrated
 * to the current schema, derived data rebuilt (label rows, full-text index), integrity and schema
 * checked. Only when all of that checks out is the damaged file renamed aside
 * (`loupe.damaged-<time>.db`, with its -wal) and the recovered one put in its place; with `out`
 * the recovered archive is written there and the damaged file is left where it is.
 */
import Database from 'better-sqlite3';
import { spawn, spawnSync } from 'node:child_process';
import { accessSync, constants, copyFileSync, existsSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import { isStorageError } from '../storage-error';
import { LoupeError, type ErrorKind } from '../../shared/errors';
import { openArchive } from './archive';
import { latestVersion, migrate, type Db } from './db';
import { MIGRATIONS } from './migrations/index';
import { openReadOnlyDb } from './open';
import { inferVersion, salvageInto } from './salvage';
import { ctxOf } from './context';
import { raw, sql, Statements } from './sql';
import type { ArchiveCheckReport } from '../../shared/contract-maintenance';

/** The check's report is the contract's (src/shared/contract-maintenance.ts): one definition for both. */
export type CheckReport = ArchiveCheckReport;

const MAX_LISTED = 20;

function errText(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  const code = (e as { code?: unknown }).code;
  return typeof code === 'string' && !e.message.includes(code) ? `${e.message} (${code})` : e.message;
}

/** Tables, indexes and triggers of a schema version, by "type name". */
function schemaObjects(db: Db): Set<string> {
  const rows = new Statements(db).all<{ type: string; name: string }>(
    sql`SELECT type, name FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%'`,
  );
  return new Set(rows.map((r) => `${r.type} ${r.name}`));
}

function expectedObjects(version: number): Set<string> {
  const db = new Database(':memory:');
  try {
    migrate(db, MIGRATIONS.slice(0, Math.min(version, MIGRATIONS.length)));
    return schemaObjects(db);
  } finally {
    db.close();
  }
}

export function checkArchive(file: string, opts: { quick?: boolean } = {}): CheckReport {
  const quick = !!opts.quick;
  const r: CheckReport = {
    path: file,
    exists: existsSync(file),
    healthy: false,
    problems: [],
    schema: null,
    latest: latestVersion(),
    items: null,
    ledgerRows: null,
    walks: null,
    quick,
    snapshot: false,
  };
  if (!r.exists) return { ...r, healthy: true };
  let conn: ReturnType<typeof openReadOnlyDb>;
  try {
    conn = openReadOnlyDb(file);
  } catch (e) {
    r.problems.push(`it cannot be opened: ${isStorageError(e) && e.code ? errText(e).replace(/^.*?: /, '') : errText(e)}`);
    return r;
  }
  r.snapshot = conn.snapshot;
  const db = conn.db;
  try {
    try {
      r.schema = db.pragma('user_version', { simple: true }) as number;
    } catch (e) {
      r.problems.push(`its header cannot be read: ${errText(e)}`);
      return r;
    }
    if (r.schema > r.latest)
      r.problems.push(`it was written by a newer Loupe (schema ${r.schema}; this one understands up to ${r.latest})`);
    try {
      const rows = db.pragma(quick ? 'quick_check' : 'integrity_check') as Array<Record<string, string>>;
      const lines = rows.map((x) => String(Object.values(x)[0]));
      if (!(lines.length === 1 && lines[0] === 'ok')) {
        for (const l of lines.slice(0, MAX_LISTED)) r.problems.push(l);
        if (lines.length > MAX_LISTED) r.problems.push(`… and ${lines.length - MAX_LISTED} more problem(s)`);
      }
    } catch (e) {
      r.problems.push(`the integrity check stopped: ${errText(e)}`);
    }
    if (r.schema <= r.latest) {
      try {
        const have = schemaObjects(db);
        const missing = [...expectedObjects(r.schema)].filter((o) => !have.has(o));
        if (missing.length > 0) r.problems.push(`missing from its schema: ${missing.slice(0, MAX_LISTED).join(', ')}`);
      } catch (e) {
        r.problems.push(`its schema cannot be read: ${errText(e)}`);
      }
    }
    const s = new Statements(db);
    const count = (table: string): number | null => {
      try {
        return s.value<number>(sql`SELECT count(*) AS n FROM ${raw(table)}`) ?? 0;
      } catch (e) {
        r.problems.push(`${table} cannot be counted: ${errText(e)}`);
        return null;
      }
    };
    r.items = count('items');
    r.ledgerRows = count('calls');
    r.walks = count('walks');
  } finally {
    conn.close();
  }
  r.healthy = r.problems.length === 0;
  return r;
}

// ───────────────────────── recover ─────────────────────────

export type RecoverFailure = 'no_sqlite3' | 'missing' | 'out_exists' | 'failed' | 'healthy' | 'not_in_place';

/** What each failure is in the error model: the user's mistake (nothing to recover, no such file, the output exists) or the disk's. */
const RECOVER_KIND: Record<RecoverFailure, ErrorKind> = {
  healthy: 'validation',
  missing: 'not_found',
  out_exists: 'validation',
  no_sqlite3: 'storage',
  failed: 'storage',
  not_in_place: 'storage',
};

export class RecoverError extends LoupeError {
  constructor(
    readonly reason: RecoverFailure,
    message: string,
  ) {
    super(RECOVER_KIND[reason], message);
    this.name = 'RecoverError';
  }
}

export type RecoverEngine = 'auto' | 'sqlite3' | 'copy';

export const SQLITE3_INSTALL_HINT =
  'install the sqlite3 command-line program, built with the sqlite_dbpage table (Debian/Ubuntu: `sudo apt-get install sqlite3`; macOS: it comes with the system, or `brew install sqlite`; Windows: `winget install SQLite.SQLite`), or name one with LOUPE_SQLITE3=/path/to/sqlite3 — or use the built-in copy: --engine copy';

/**
 * The sqlite3 program to use (explicit path, else `sqlite3` on PATH) when it runs and its
 * `.recover` works (it needs the sqlite_dbpage table), or null.
 */
export function findSqlite3(explicit?: string | null): string | null {
  const prog = explicit || 'sqlite3';
  const r = spawnSync(prog, [':memory:', '.recover'], { encoding: 'utf8', timeout: 10_000 });
  if (r.error || r.status !== 0 || /error/i.test(r.stderr ?? '') || !/COMMIT/.test(r.stdout ?? '')) return null;
  return prog;
}

export interface RecoverReport {
  /** the damaged archive */
  path: string;
  /** where the recovered archive is now (the archive's path when put in place) */
  recovered: string;
  /** where the damaged file was moved, null with `out` */
  aside: string | null;
  inPlace: boolean;
  /** the engine that produced the recovered archive */
  engine: 'sqlite3' | 'copy';
  items: number;
  ledgerRows: number;
  walks: number;
  /** rows found but not placed in a table (sqlite3's lost_and_found; dropped, they stay in the damaged file) */
  unplaced: number;
  /** the copy engine: stretches of unreadable rows skipped, and rows dropped whose parent was lost */
  skipped: number;
  orphans: number;
  schemaFrom: number;
  schemaTo: number;
}

function stamp(at: number): string {
  return new Date(at).toISOString().replace(/[:.]/g, '-');
}

/** `sqlite3 <file> .recover | sqlite3 <target>`; resolves with the programs' stderr. */
function runRecover(prog: string, file: string, target: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let err = '';
    const note = (d: Buffer) => {
      if (err.length < 4000) err += d.toString('utf8');
    };
    const src = spawn(prog, [file, '.recover'], { stdio: ['ignore', 'pipe', 'pipe'] });
    const dst = spawn(prog, [target], { stdio: ['pipe', 'ignore', 'pipe'] });
    src.stderr.on('data', note);
    dst.stderr.on('data', note);
    dst.stdin.on('error', () => undefined); // dst died: reported through its exit
    src.stdout.pipe(dst.stdin);
    let open = 2;
    const done = () => {
      if (--open === 0) resolve(err);
    };
    src.on('error', reject);
    dst.on('error', reject);
    src.on('close', done);
    dst.on('close', done);
  });
}

function removeDb(f: string): void {
  for (const x of [f, `${f}-wal`, `${f}-shm`, `${f}-journal`]) rmSync(x, { force: true });
}

export async function recoverArchive(
  file: string,
  opts: { out?: string; sqlite3?: string | null; engine?: RecoverEngine; now?: () => number; force?: boolean } = {},
): Promise<RecoverReport> {
  if (!existsSync(file)) throw new RecoverError('missing', `There is no archive at ${file} to recover.`);
  const engine = opts.engine ?? 'auto';
  const prog = engine === 'copy' ? null : findSqlite3(opts.sqlite3);
  if (engine === 'sqlite3' && !prog) {
    throw new RecoverError(
      'no_sqlite3',
      `Recovering with --engine sqlite3 needs SQLite's own .recover, which runs through the sqlite3 program, and ${opts.sqlite3 ? `"${opts.sqlite3}"` : 'sqlite3'} was not found or its .recover does not work: ${SQLITE3_INSTALL_HINT}; nothing was changed.`,
    );
  }
  if (!opts.force) {
    const c = checkArchive(file, { quick: true });
    if (c.healthy)
      throw new RecoverError(
        'healthy',
        `The archive at ${file} passes the check; there is nothing to recover (use --force to rebuild it anyway).`,
      );
  }
  const now = (opts.now ?? Date.now)();
  const dir = dirname(file);
  const ext = extname(file);
  const base = basename(file, ext);
  const target = opts.out ?? join(dir, `${base}.recovering-${stamp(now)}${ext}`);
  if (existsSync(target)) throw new RecoverError('out_exists', `${target} already exists; choose another --out (nothing was changed).`);
  if (!opts.out) {
    try {
      accessSync(dir, constants.W_OK);
    } catch {
      throw new RecoverError(
        'failed',
        `Could not recover the archive at ${file}: its folder is not writable, so the recovered archive cannot be put in its place; use --out FILE somewhere writable (nothing was changed).`,
      );
    }
  }
  // the engines read a copy: the damaged file is never opened, so nothing appears beside it
  let work: string;
  try {
    work = mkdtempSync(join(dirname(target), `.${base}.recover-`));
  } catch (e) {
    throw new RecoverError(
      'failed',
      `Could not recover the archive at ${file}: no room for a working copy beside ${target} (${errText(e)}); nothing was changed.`,
    );
  }
  const fail = (why: string): never => {
    throw new RecoverError('failed', `Could not recover the archive at ${file}: ${why}; the damaged file is unchanged.`);
  };
  try {
    const source = join(work, 'damaged.db');
    try {
      copyFileSync(file, source, constants.COPYFILE_FICLONE);
      if (existsSync(`${file}-wal`)) copyFileSync(`${file}-wal`, `${source}-wal`, constants.COPYFILE_FICLONE);
    } catch (e) {
      fail(`it could not be copied for recovery (${errText(e)})`);
    }
    let report: RecoverReport | null = null;
    let firstError: unknown = null;
    for (const eng of prog ? (['sqlite3', 'copy'] as const) : (['copy'] as const)) {
      if (eng === 'copy' && engine === 'sqlite3') break;
      removeDb(target);
      try {
        report = await recoverInto(source, file, target, eng, prog, fail);
        break;
      } catch (e) {
        firstError ??= e;
      }
    }
    if (!report) throw firstError;
    if (opts.out) return report;

    // the damaged file aside (with its -wal; the -shm is only an index of it), the copy in place
    const aside = join(dir, `${base}.damaged-${stamp(now)}${ext}`);
    try {
      renameSync(file, aside);
      if (existsSync(`${file}-wal`)) renameSync(`${file}-wal`, `${aside}-wal`);
      if (existsSync(`${file}-shm`)) renameSync(`${file}-shm`, `${aside}-shm`);
      renameSync(target, file);
    } catch (e) {
      throw new RecoverError(
        'not_in_place',
        `The recovered archive is at ${target}, but it could not be put in place (${errText(e)}); the damaged file is ${existsSync(file) ? `still at ${file}` : `at ${aside}`}.`,
      );
    }
    return { ...report, recovered: file, aside, inPlace: true };
  } catch (e) {
    if (!(e instanceof RecoverError && e.reason === 'not_in_place')) removeDb(target);
    if (e instanceof RecoverError) throw e;
    throw new RecoverError('failed', `Could not recover the archive at ${file}: ${errText(e)}; the damaged file is unchanged.`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** One engine: `source` (a copy of the damaged `file`) → `target`, checked; throws RecoverError. */
async function recoverInto(
  source: string,
  file: string,
  target: string,
  engine: 'sqlite3' | 'copy',
  prog: string | null,
  fail: (why: string) => never,
): Promise<RecoverReport> {
  let skipped = 0;
  let orphans = 0;
  if (engine === 'sqlite3') {
    let stderr = '';
    try {
      stderr = await runRecover(prog as string, source, target);
    } catch (e) {
      fail(`the sqlite3 program failed to run (${errText(e)})`);
    }
    if (!existsSync(target)) fail(`sqlite3 produced nothing${stderr ? ` (${stderr.trim().split('\n')[0]})` : ''}`);
  } else {
    try {
      const r = salvageInto(source, target);
      skipped = r.tables.reduce((n, t) => n + t.gaps, 0);
      orphans = r.orphans;
    } catch (e) {
      fail(`nothing could be read from it (${errText(e)})`);
    }
  }

  // 1. restore the schema version, drop what SQLite could not place
  let schemaFrom = 0;
  let unplaced = 0;
  try {
    const db = new Database(target);
    try {
      const ok = (db.pragma('integrity_check') as Array<Record<string, string>>).map((x) => String(Object.values(x)[0]));
      if (!(ok.length === 1 && ok[0] === 'ok')) fail(`the recovered copy does not pass the integrity check (${ok[0]})`);
      schemaFrom = db.pragma('user_version', { simple: true }) as number;
      if (schemaFrom === 0) schemaFrom = inferVersion(db);
      if (schemaFrom === 0) fail('no Loupe tables could be read from it');
      if (schemaFrom > latestVersion()) fail(`it was written by a newer Loupe (schema ${schemaFrom})`);
      db.pragma(`user_version = ${schemaFrom}`);
      const s = new Statements(db);
      const lost = s.values<string>(sql`SELECT name FROM sqlite_schema WHERE type = 'table' AND name LIKE 'lost_and_found%'`);
      for (const t of lost) {
        unplaced += s.value<number>(sql`SELECT count(*) AS n FROM ${raw(`"${t}"`)}`) ?? 0;
        db.exec(`DROP TABLE "${t}"`);
      }
    } finally {
      db.close();
    }
  } catch (e) {
    if (e instanceof RecoverError) throw e;
    fail(`the recovered copy cannot be read (${errText(e)})`);
  }

  // 2. migrate, rebuild derived data, check again
  let items = 0;
  let ledgerRows = 0;
  let walks = 0;
  try {
    const a = openArchive(target);
    try {
      a.rebuildDerived();
      const ok = (ctxOf(a).db.pragma('integrity_check') as Array<Record<string, string>>).map((x) => String(Object.values(x)[0]));
      if (!(ok.length === 1 && ok[0] === 'ok')) fail(`the rebuilt copy does not pass the integrity check (${ok[0]})`);
      const have = schemaObjects(ctxOf(a).db);
      const missing = [...expectedObjects(latestVersion())].filter((o) => !have.has(o));
      if (missing.length > 0) fail(`the recovered copy lacks ${missing.slice(0, 5).join(', ')}`);
      const n = (t: string) => ctxOf(a).sql.value<number>(sql`SELECT count(*) AS n FROM ${raw(t)}`) ?? 0;
      items = n('items');
      ledgerRows = n('calls');
      walks = n('walks');
    } finally {
      a.close(); // checkpoints and removes the copy's -wal before it is moved
    }
  } catch (e) {
    if (e instanceof RecoverError) throw e;
    fail(`the recovered copy does not open as an archive (${errText(e)})`);
  }
  return {
    path: file,
    recovered: target,
    aside: null,
    inPlace: false,
    engine,
    items,
    ledgerRows,
    walks,
    unplaced,
    skipped,
    orphans,
    schemaFrom,
    schemaTo: latestVersion(),
  };
}
