/**
 * The built-in recovery engine of `loupe archive recover` (docs/archive.md "Checking and
 * recovering"): a table-by-table copy of a damaged archive into a new file that skips what
 * cannot be read.
 *
 * SQLite's own `.recover` (sqlite3 command-line program) needs the `sqlite_dbpage` virtual
 * table, which some builds leave out (Debian's sqlite3 3.40 among them: its `.recover` fails
 * with "SQL logic error"), and better-sqlite3's build has no recovery API. So this engine reads
 * through the ordinary SQL interface:
 *
 * - the new file gets the schema of the damaged file's version (the same migrations), so every
 *   table has the same columns;
 * - a rowid table is read in rowid order in batches; where a read fails on a damaged page, rows
 *   are read one at a time up to the damage, then the smallest rowid bound whose seek no longer
 *   touches the damaged page is found (exponential probe, then binary search) and reading goes on
 *   from there: only the rows of the unreadable pages are lost;
 * - a WITHOUT ROWID table is read in key order up to the damage, then backwards from its end up
 *   to the damage (its middle is lost);
 * - the full-text index and the label rows are not copied (rebuilt from the items afterwards);
 * - rows left pointing at a lost parent (a tag of a lost item, …) are dropped, as the foreign
 *   keys say.
 *
 * Page 1 (the header and the schema table) must be readable; otherwise nothing can be placed.
 */
import Database from 'better-sqlite3';
import { migrate, type Db } from './db';
import { MIGRATIONS } from './migrations/index';
import { list as values, raw, sql, Statements, type RawSql } from './sql';

export interface SalvageTable {
  name: string;
  copied: number;
  /** stretches of unreadable rows skipped */
  gaps: number;
  /** set when the table could not be read at all */
  error?: string;
}

export interface SalvageResult {
  schema: number;
  tables: SalvageTable[];
  /** rows dropped afterwards because their parent row was lost */
  orphans: number;
}

const BATCH = 256;
const MIN_ROWID = -(2n ** 63n);
const MAX_ROWID = 2n ** 63n - 1n;

function isDamage(e: unknown): boolean {
  if (!(e instanceof Error)) return false;
  const code = String((e as { code?: unknown }).code ?? '');
  return (
    code.startsWith('SQLITE_CORRUPT') ||
    code.startsWith('SQLITE_NOTADB') ||
    code.startsWith('SQLITE_IOERR') ||
    /malformed|not a database/i.test(e.message)
  );
}

const q = (name: string) => `"${name.replace(/"/g, '""')}"`;
/** A quoted name as a fragment of a template (names come from the schema, never from a user). */
const name = (n: string): RawSql => raw(q(n));

/** The schema version from the tables present, for a file whose user_version was lost. */
export function inferVersion(db: Db): number {
  const s = new Statements(db);
  const has = (type: string, n: string) => s.value(sql`SELECT 1 FROM sqlite_schema WHERE type = ${type} AND name = ${n}`) !== undefined;
  if (!has('table', 'items')) return 0;
  const cols = (t: string) => (has('table', t) ? s.all<{ name: string }>(sql`PRAGMA table_info(${name(t)})`).map((c) => c.name) : []);
  const fts = s.value<string>(sql`SELECT sql FROM sqlite_schema WHERE name = 'items_fts'`);
  if (cols('items').includes('followers')) return 10;
  if (has('view', 'items_view')) return 9;
  if (fts && fts.includes('content="items"')) return 8;
  if (cols('calls').includes('key_name')) return 7;
  // 6 changed data only: a file of schema 6 reads as 5 and runs 6 again (it finds nothing to do)
  if (cols('walks').includes('owner_pid')) return 5;
  if (has('table', 'label_fields')) return 4;
  if (has('index', 'items_platform_kind_published')) return 3;
  if (has('table', 'watchlists')) return 2;
  return 1;
}

function copyRowidTable(src: Statements, tgt: Statements, table: string, cols: string[], ipk: boolean, out: SalvageTable): void {
  const T = name(table);
  const L = raw(cols.map(q).join(', '));
  const batch = (after: bigint) =>
    src.rows<unknown[]>(sql`SELECT rowid, ${L} FROM ${T} WHERE rowid > ${after} ORDER BY rowid LIMIT ${BATCH}`);
  const one = (after: bigint): unknown[] | undefined =>
    src.rows<unknown[]>(sql`SELECT rowid, ${L} FROM ${T} WHERE rowid > ${after} ORDER BY rowid LIMIT 1`)[0];
  // with an INTEGER PRIMARY KEY the rowid is that column: inserted through it
  const ins = {
    run: (r: unknown[]) =>
      ipk
        ? tgt.run(sql`INSERT OR IGNORE INTO ${T} (${L}) VALUES (${values(r.slice(1))})`)
        : tgt.run(sql`INSERT OR IGNORE INTO ${T} (rowid, ${L}) VALUES (${values(r)})`),
  };
  const readable = (bound: bigint): boolean => {
    try {
      one(bound);
      return true;
    } catch (e) {
      if (!isDamage(e)) throw e;
      return false;
    }
  };
  /** The smallest bound > `bad` whose seek works, or null when none does. */
  const skipPast = (bad: bigint): bigint | null => {
    let step = 1n;
    let found: bigint | null = null;
    while (bad + step <= MAX_ROWID) {
      if (readable(bad + step)) {
        found = bad + step;
        break;
      }
      bad += step;
      step *= 2n;
    }
    if (found === null) return null;
    let good: bigint = found;
    while (good - bad > 1n) {
      const mid: bigint = bad + (good - bad) / 2n;
      if (readable(mid)) good = mid;
      else bad = mid;
    }
    return good;
  };
  let after: bigint = MIN_ROWID;
  for (;;) {
    let rows: unknown[][];
    try {
      rows = batch(after);
    } catch (e) {
      if (!isDamage(e)) throw e;
      // one row at a time up to the damage, then past it
      for (;;) {
        let r: unknown[] | undefined;
        try {
          r = one(after);
        } catch (e2) {
          if (!isDamage(e2)) throw e2;
          break;
        }
        if (!r) return;
        ins.run(r);
        out.copied++;
        after = r[0] as bigint;
      }
      out.gaps++;
      const next = skipPast(after);
      if (next === null) return;
      after = next;
      continue;
    }
    if (rows.length === 0) return;
    for (const r of rows) ins.run(r);
    out.copied += rows.length;
    after = rows[rows.length - 1][0] as bigint;
    if (rows.length < BATCH) return;
  }
}

function copyKeyedTable(src: Statements, tgt: Statements, table: string, cols: string[], pk: string[], out: SalvageTable): void {
  const T = name(table);
  const L = raw(cols.map(q).join(', '));
  const K = raw(pk.map(q).join(', '));
  const at = pk.map((k) => cols.indexOf(k));
  const keyOf = (r: unknown[]) => at.map((i) => r[i]);
  const order = { ASC: raw(pk.map((k) => `${q(k)} ASC`).join(', ')), DESC: raw(pk.map((k) => `${q(k)} DESC`).join(', ')) };
  const past = { ASC: raw('>'), DESC: raw('<') };
  const first = (dir: 'ASC' | 'DESC', n: number): unknown[][] =>
    src.rows<unknown[]>(sql`SELECT ${L} FROM ${T} ORDER BY ${order[dir]} LIMIT ${n}`);
  const next = (dir: 'ASC' | 'DESC', n: number, key: unknown[]): unknown[][] =>
    src.rows<unknown[]>(sql`SELECT ${L} FROM ${T} WHERE (${K}) ${past[dir]} (${values(key)}) ORDER BY ${order[dir]} LIMIT ${n}`);
  const ins = (r: unknown[]) => tgt.run(sql`INSERT OR IGNORE INTO ${T} (${L}) VALUES (${values(r)})`);
  /** Reads in one direction until the end or the damage; true when the end was reached. */
  const sweep = (dir: 'ASC' | 'DESC'): boolean => {
    let key: unknown[] | null = null;
    let n = BATCH;
    for (;;) {
      let rows: unknown[][];
      try {
        rows = key === null ? first(dir, n) : next(dir, n, key);
      } catch (e) {
        if (!isDamage(e)) throw e;
        if (n === 1) return false;
        n = 1; // up to the damage one row at a time
        continue;
      }
      for (const r of rows) ins(r);
      out.copied += rows.length;
      if (rows.length < n) return true;
      key = keyOf(rows[rows.length - 1]);
    }
  };
  if (sweep('ASC')) return;
  out.gaps++;
  sweep('DESC');
}

/** Deletes rows whose foreign key points at a row that is gone; returns how many. */
function dropOrphans(s: Statements): number {
  let n = 0;
  const tables = s.values<string>(sql`SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`);
  for (let round = 0; round < 4; round++) {
    let changed = 0;
    for (const t of tables) {
      const fks = s.all<{
        id: number;
        table: string;
        from: string;
        to: string | null;
      }>(sql`PRAGMA foreign_key_list(${name(t)})`);
      const byId = new Map<number, Array<{ table: string; from: string; to: string | null }>>();
      for (const fk of fks) byId.set(fk.id, [...(byId.get(fk.id) ?? []), fk]);
      for (const parts of byId.values()) {
        const parent = parts[0].table;
        const match = raw(parts.map((p) => `p.${q(p.to ?? 'rowid')} = c.${q(p.from)}`).join(' AND '));
        const notNull = raw(parts.map((p) => `c.${q(p.from)} IS NOT NULL`).join(' AND '));
        changed += s.run(
          sql`DELETE FROM ${name(t)} AS c WHERE ${notNull} AND NOT EXISTS (SELECT 1 FROM ${name(parent)} p WHERE ${match})`,
        ).changes;
      }
    }
    n += changed;
    if (changed === 0) break;
  }
  return n;
}

/** Copies what can be read from `source` (a damaged archive) into a new file `target`. */
export function salvageInto(source: string, target: string): SalvageResult {
  const src = new Database(source, { readonly: true, fileMustExist: true });
  let tgt: Db | null = null;
  try {
    let schema = src.pragma('user_version', { simple: true }) as number;
    if (schema === 0) schema = inferVersion(src);
    if (schema === 0) throw new Error('no Loupe tables could be read from it');
    if (schema > MIGRATIONS.length) throw new Error(`it was written by a newer Loupe (schema ${schema})`);
    tgt = new Database(target);
    migrate(tgt, MIGRATIONS.slice(0, schema));
    tgt.pragma('foreign_keys = OFF');
    const srcSchema = new Statements(src);
    // rows are read with their integers as BigInt: copied exactly, whatever their size
    const srcRows = new Statements(src, { safeIntegers: true });
    const tgtSql = new Statements(tgt);
    const srcTables = new Map(
      srcSchema
        .all<{ name: string; sql: string | null }>(sql`SELECT name, sql FROM sqlite_schema WHERE type = 'table'`)
        .map((t) => [t.name, t.sql ?? '']),
    );
    const tables = tgtSql
      .all<{ name: string; sql: string }>(
        sql`SELECT name, sql FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY rootpage`,
      )
      .filter((t) => !t.name.startsWith('items_fts') && t.name !== 'item_labels');
    const out: SalvageTable[] = [];
    for (const t of tables) {
      const rec: SalvageTable = { name: t.name, copied: 0, gaps: 0 };
      out.push(rec);
      if (!srcTables.has(t.name)) {
        rec.error = 'missing from the damaged file';
        continue;
      }
      const info = tgtSql.all<{ name: string; pk: number; type: string }>(sql`PRAGMA table_info(${name(t.name)})`);
      let srcCols: Set<string>;
      try {
        srcCols = new Set(srcSchema.all<{ name: string }>(sql`PRAGMA table_info(${name(t.name)})`).map((c) => c.name));
      } catch (e) {
        rec.error = e instanceof Error ? e.message : String(e);
        continue;
      }
      const cols = info.map((c) => c.name).filter((c) => srcCols.has(c));
      const pk = info
        .filter((c) => c.pk > 0)
        .sort((a, b) => a.pk - b.pk)
        .map((c) => c.name);
      const withoutRowid = /WITHOUT\s+ROWID/i.test(t.sql);
      const ipk = pk.length === 1 && info.find((c) => c.name === pk[0])?.type.toUpperCase() === 'INTEGER' && cols.includes(pk[0]);
      const copy = tgt.transaction(() => {
        if (withoutRowid) copyKeyedTable(srcRows, tgtSql, t.name, cols, pk, rec);
        else copyRowidTable(srcRows, tgtSql, t.name, cols, ipk, rec);
      });
      try {
        copy();
      } catch (e) {
        rec.error = e instanceof Error ? e.message : String(e);
      }
    }
    const orphans = tgt.transaction(() => dropOrphans(tgtSql))();
    tgt.pragma(`user_version = ${schema}`);
    return { schema, tables: out, orphans };
  } finally {
    src.close();
    tgt?.close();
  }
}
