/**
 * Export rows: every row of a query (or of explicit items) streamed in its sort order, from a
 * read-only connection opened for that export (docs/archive.md "Exports", docs/export.md).
 */
import Database from 'better-sqlite3';
import type { LibraryQuery } from '../../shared/query';
import { registerTermFunctions } from './term-filter';
import type { ExportRow, ExportRowSource, ItemRef, RidWalk } from '../ports';
import type { Db } from './connection';
import type { ArchiveCtx } from './context';
import { EXPORT_COLS, exportExtraSql, exportRowOf, type ExportTuple } from './export-row';
import { estimator, sampler } from './library';
import { buildWhere, parseQuery, sortColumn, sortPlan, type SortPlan, type Where } from './sql-query';
import { and, part, raw, sql, SqlPart, Statements, type SqlQuery } from './sql';

/** Which annotation tables have rows, as exportExtraSql takes them. */
function exportExtra(st: Statements): string {
  const has = (t: 'item_tags' | 'notes' | 'label_overrides'): boolean =>
    st.value<number>(sql`SELECT EXISTS (SELECT 1 FROM ${raw(t)}) AS x`) === 1;
  return exportExtraSql({ tags: has('item_tags'), notes: has('notes'), overrides: has('label_overrides') });
}

/**
 * The two phase statements of a sorted export (known sort values, then unknown), selecting `cols`.
 * The plan's and the filter's clauses are fixed fragments with their values in step (sql-query.ts),
 * spliced as parts.
 */
function exportStatements(plan: SortPlan, w: Where, cols: string): SqlQuery[] {
  const dir = raw(plan.dir === 'desc' ? 'DESC' : 'ASC');
  const known = new SqlPart(and([plan.known, ...w.clauses]), [...plan.knownParams, ...w.params]);
  const out = [
    sql`SELECT ${raw(cols)} FROM ${raw(plan.from0)} WHERE ${known}
          ORDER BY ${raw(plan.expr)} ${dir}, ${raw(plan.tie)} ${dir}`,
  ];
  if (plan.unknown !== null) {
    const unknown = new SqlPart(and([plan.unknown, ...(w.unknownClauses?.() ?? w.clauses)]), [...plan.unknownParams, ...w.params]);
    out.push(sql`SELECT ${raw(cols)} FROM items i WHERE ${unknown} ORDER BY i.rid ${dir}`);
  }
  return out;
}

/**
 * A connection of its own for one export: better-sqlite3 allows no other statement on a
 * connection while an iterator is open on it, and an export streams for seconds with awaits
 * in between (writes, progress), during which the app keeps querying and ingesting. A
 * read-only connection reads one WAL snapshot (consistent export, writers not blocked). An
 * in-memory archive cannot be opened twice, nor one opened alone on a full disk (open.ts): it
 * exports on its own connection.
 */
export function openReader(c: ArchiveCtx): { db: Db; st: Statements; close(): void } {
  const name = c.db.name;
  if (!name || name === ':memory:' || c.db.memory || c.oneConnection) return { db: c.db, st: new Statements(c.db), close: () => undefined };
  const db = new Database(name, { readonly: true, fileMustExist: true });
  registerTermFunctions(db);
  db.pragma('busy_timeout = 5000');
  db.pragma('cache_size = -16384'); // 16 MB: an export reads each page once
  return { db, st: new Statements(db), close: () => db.close() };
}

/** Rows as arrays (cheaper than objects at a million rows): EXPORT_COLS, then exportExtra's. */
function* iterateRows(st: Statements, q: SqlQuery): IterableIterator<ExportRow> {
  for (const r of st.iterateRows<ExportTuple>(q)) yield exportRowOf(r);
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
 * from it (a row a worker no longer finds). null for an archive in memory or one opened alone
 * on a full disk (no other connection can open it).
 */
function ridWalk(c: ArchiveCtx, plan: SortPlan, w: Where): RidWalk | null {
  const file = c.db.name;
  if (!file || file === ':memory:' || c.db.memory || c.oneConnection) return null;
  const reader = openReader(c);
  let watch: Database.Database | null = null;
  try {
    // the archive's data version, read before the snapshot starts: when it has not changed, nothing
    // was committed since (another connection's: a connection does not see its own commits in it)
    watch = new Database(file, { readonly: true, fileMustExist: true });
    // as the reader and the workers wait: a busy moment (a recovery, a checkpoint) must not fail the export
    watch.pragma('busy_timeout = 5000');
    const watching = new Statements(watch);
    const version = (): number | undefined => watching.value<number>(sql`PRAGMA data_version`);
    const before = version();
    let current = true;
    reader.db.exec('BEGIN');
    reader.st.value(sql`SELECT count(*) FROM sqlite_master`); // the snapshot starts here
    const extra = exportExtra(reader.st);
    const cols = raw(`${EXPORT_COLS}${extra}`);
    const statements = exportStatements(plan, w, 'i.rid');
    const read = headThenRest(reader.st, statements);
    let rids: number[] = [];
    let at = 0;
    let reads = 0;
    return {
      file,
      extra,
      next(max) {
        if (at === rids.length && reads < 2) {
          rids = reads++ === 0 ? read.head(max) : read.rest();
          at = 0;
        }
        const out = rids.slice(at, at + max);
        at += out.length;
        return out;
      },
      rows(rids) {
        return rids.map((rid) => {
          const r = reader.st.rows<ExportTuple>(sql`SELECT ${cols} FROM items i WHERE i.rid = ${rid}`)[0];
          if (!r) throw new Error(`export: item ${rid} is not in the archive's snapshot`);
          return exportRowOf(r);
        });
      },
      snapshot: reader.st,
      current() {
        if (current && version() !== before) current = false;
        return current;
      },
      close() {
        if (reader.db.inTransaction) reader.db.exec('COMMIT');
        reader.close();
        watch?.close();
      },
    };
  } catch (e) {
    reader.close();
    watch?.close();
    throw e;
  }
}

/**
 * A walk's rids in two reads. The first (`head`) reads only the rids asked for, in the sort's
 * order: where an index gives that order (the default sort by date: only ties are sorted, a few
 * rows at a time) `LIMIT` returns them at once instead of after the whole result, so the export's
 * workers start on them while `rest` reads every other rid in one native call (iterating them one
 * row at a time cost the exporting thread ~2 µs a rid; 1M rids are ~8 MB). A phase whose plan sorts
 * all its rows first (`USE TEMP B-TREE FOR ORDER BY`) is read whole by the first read: a LIMIT there
 * would sort everything twice. Both reads are in the walk's snapshot and the order is total (the
 * rid breaks ties), so the rest past the head's rows (`OFFSET`) holds every other rid once.
 */
function headThenRest(st: Statements, statements: SqlQuery[]): { head(max: number): number[]; rest(): number[] } {
  const phases = statements.map((q) => ({ q, taken: 0, done: false }));
  const sortsAll = (q: SqlQuery): boolean =>
    st.rows<[number, number, number, string]>(sql`EXPLAIN QUERY PLAN ${part(q)}`).some((r) => r[3] === 'USE TEMP B-TREE FOR ORDER BY');
  return {
    head(max) {
      let out: number[] = [];
      for (const p of phases) {
        const need = max - out.length;
        if (need <= 0) break;
        const whole = sortsAll(p.q);
        const got = st.values<number>(whole ? p.q : sql`${part(p.q)} LIMIT ${need}`);
        p.taken = got.length;
        p.done = whole || got.length < need;
        out = out.concat(got);
      }
      return out;
    },
    rest() {
      const left = phases.filter((p) => !p.done);
      for (const p of phases) p.done = true;
      return left.flatMap((p) => st.values<number>(p.taken > 0 ? sql`${part(p.q)} LIMIT -1 OFFSET ${p.taken}` : p.q));
    },
  };
}

function* exportFrom(c: ArchiveCtx, plan: SortPlan, w: Where): IterableIterator<ExportRow> {
  const reader = openReader(c);
  try {
    for (const q of exportStatements(plan, w, `${EXPORT_COLS}${exportExtra(reader.st)}`)) yield* iterateRows(reader.st, q);
  } finally {
    reader.close();
  }
}

/** Export rows of explicit items, in the given order; unknown refs are skipped. */
export function* exportRowsFor(c: ArchiveCtx, refs: ItemRef[]): IterableIterator<ExportRow> {
  const reader = openReader(c);
  try {
    const cols = raw(`${EXPORT_COLS}${exportExtra(reader.st)}`);
    for (const ref of refs) {
      const r = reader.st.value<number>(
        sql`SELECT rid FROM items WHERE platform = ${ref.platform} AND kind = ${ref.kind} AND id = ${ref.id}`,
      );
      if (r === undefined) continue;
      yield* iterateRows(reader.st, sql`SELECT ${cols} FROM items i WHERE i.rid = ${r}`);
    }
  } finally {
    reader.close();
  }
}
