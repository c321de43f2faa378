/**
 * Export rows: every row of a query (or of explicit items) streamed in its sort order, from a
 * read-only connection opened for that export (docs/archive.md "Exports", docs/export.md).
 */
import Database, { type Statement } from 'better-sqlite3';
import type { LibraryQuery } from '../../shared/query';
import { registerTermFunctions } from './term-filter';
import type { ExportRow, ExportRowSource, ItemRef, RidWalk } from '../ports';
import type { Db } from './connection';
import type { ArchiveCtx } from './context';
import { EXPORT_COLS, exportExtraSql, exportRowOf, type ExportTuple } from './export-row';
import { estimator, sampler } from './library';
import { buildWhere, parseQuery, sortColumn, sortPlan, type SortPlan, type Where } from './sql-query';
import { and } from './sql';

/** Which annotation tables have rows, as exportExtraSql takes them. */
function exportExtra(db: Db): string {
  const has = (t: string): boolean => db.prepare(`SELECT EXISTS (SELECT 1 FROM ${t}) AS x`).pluck().get() === 1;
  return exportExtraSql({ tags: has('item_tags'), notes: has('notes'), overrides: has('label_overrides') });
}

/** The two phase statements of a sorted export (known sort values, then unknown), selecting `cols`. */
function exportStatements(plan: SortPlan, w: Where, cols: string): Array<{ sql: string; params: unknown[] }> {
  const dir = plan.dir === 'desc' ? 'DESC' : 'ASC';
  const out = [
    {
      sql: `SELECT ${cols} FROM ${plan.from0} WHERE ${and([plan.known, ...w.clauses])}
          ORDER BY ${plan.expr} ${dir}, ${plan.tie} ${dir}`,
      params: [...plan.knownParams, ...w.params],
    },
  ];
  if (plan.unknown !== null) {
    out.push({
      sql: `SELECT ${cols} FROM items i WHERE ${and([plan.unknown, ...(w.unknownClauses?.() ?? w.clauses)])} ORDER BY i.rid ${dir}`,
      params: [...plan.unknownParams, ...w.params],
    });
  }
  return out;
}

/**
 * A connection of its own for one export: better-sqlite3 allows no other statement on a
 * connection while an iterator is open on it, and an export streams for seconds with awaits
 * in between (writes, progress), during which the app keeps querying and ingesting. A
 * read-only connection reads one WAL snapshot (consistent export, writers not blocked). An
 * in-memory archive cannot be opened twice: it exports on its own connection (tests only).
 */
export function openReader(c: ArchiveCtx): { db: Db; close(): void } {
  const name = c.db.name;
  if (!name || name === ':memory:' || c.db.memory) return { db: c.db, close: () => undefined };
  const db = new Database(name, { readonly: true, fileMustExist: true });
  registerTermFunctions(db);
  db.pragma('busy_timeout = 5000');
  db.pragma('cache_size = -16384'); // 16 MB: an export reads each page once
  return { db, close: () => db.close() };
}

/** Rows as arrays (cheaper than objects at a million rows): EXPORT_COLS, then exportExtra's. */
function* iterateRows(st: Statement, params: unknown[]): IterableIterator<ExportRow> {
  for (const r of st.raw(true).iterate(...params) as IterableIterator<ExportTuple>) yield exportRowOf(r);
}

/**
 * Every row of a query, in its sort order, streamed (constant memory) for exports, from a
 * read-only connection of its own (one snapshot; the archive stays usable meanwhile).
 * `after` and `limit` are ignored: an export is the whole result. The query is checked at
 * the call (bad input throws before any row); the connection closes when the iteration ends.
 */
export function iterateExportRows(c: ArchiveCtx, input: LibraryQuery): ExportRowSource {
  const q = parseQuery(input);
  const plan = sortPlan(q);
  const w = buildWhere(q, estimator(c), sortColumn(plan), { dir: plan.dir, sample: sampler(c) });
  // the rows are read when iterated (a source that is never iterated opens nothing)
  return Object.assign(exportFrom(c, plan, w), { ridWalk: () => ridWalk(c, plan, w) });
}

/**
 * The export's rows as rids in export order, for export workers that read the rows themselves
 * (src/core/export/csv-rids.ts): the exporting thread then reads integers only. The walk holds one
 * read transaction from its start to close(), so the rids are one snapshot and `rows` reads
 * from it (a row a worker no longer finds). null for an archive in memory (no other connection
 * can open it).
 */
function ridWalk(c: ArchiveCtx, plan: SortPlan, w: Where): RidWalk | null {
  const file = c.db.name;
  if (!file || file === ':memory:' || c.db.memory) return null;
  const reader = openReader(c);
  try {
    reader.db.exec('BEGIN');
    reader.db.prepare('SELECT count(*) FROM sqlite_master').get(); // the snapshot starts here
    const extra = exportExtra(reader.db);
    const statements = exportStatements(plan, w, 'i.rid');
    let open: Iterator<number> | null = null;
    let done = false;
    function* all(): Generator<number> {
      for (const { sql, params } of statements)
        yield* reader.db
          .prepare(sql)
          .pluck()
          .iterate(...params) as IterableIterator<number>;
    }
    const it = all();
    return {
      file,
      extra,
      next(max) {
        const out: number[] = [];
        if (done) return out;
        open = it;
        for (let r = it.next(); ; r = it.next()) {
          if (r.done) {
            done = true;
            open = null;
            break;
          }
          out.push(r.value);
          if (out.length >= max) break;
        }
        return out;
      },
      rows(rids) {
        if (open) throw new Error('export: read the remaining rids before reading rows on the walk');
        const one = reader.db.prepare(`SELECT ${EXPORT_COLS}${extra} FROM items i WHERE i.rid = ?`).raw(true);
        return rids.map((rid) => {
          const r = one.get(rid) as ExportTuple | undefined;
          if (!r) throw new Error(`export: item ${rid} is not in the archive's snapshot`);
          return exportRowOf(r);
        });
      },
      close() {
        if (!done) it.return?.(undefined);
        if (reader.db.inTransaction) reader.db.exec('COMMIT');
        reader.close();
      },
    };
  } catch (e) {
    reader.close();
    throw e;
  }
}

function* exportFrom(c: ArchiveCtx, plan: SortPlan, w: Where): IterableIterator<ExportRow> {
  const reader = openReader(c);
  try {
    for (const { sql, params } of exportStatements(plan, w, `${EXPORT_COLS}${exportExtra(reader.db)}`)) {
      yield* iterateRows(reader.db.prepare(sql), params);
    }
  } finally {
    reader.close();
  }
}

/** Export rows of explicit items, in the given order; unknown refs are skipped. */
export function* exportRowsFor(c: ArchiveCtx, refs: ItemRef[]): IterableIterator<ExportRow> {
  const reader = openReader(c);
  try {
    const rid = reader.db.prepare('SELECT rid FROM items WHERE platform = ? AND kind = ? AND id = ?').pluck();
    const one = reader.db.prepare(`SELECT ${EXPORT_COLS}${exportExtra(reader.db)} FROM items i WHERE i.rid = ?`);
    for (const ref of refs) {
      const r = rid.get(ref.platform, ref.kind, ref.id) as number | undefined;
      if (r === undefined) continue;
      yield* iterateRows(one, [r]);
    }
  } finally {
    reader.close();
  }
}
