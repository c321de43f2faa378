/**
 * Export rows: every row of a query (or of explicit items) streamed in its sort order, from a
 * read-only connection opened for that export (docs/archive.md "Exports", docs/export.md).
 */
import Database, { type Statement } from 'better-sqlite3';
import type { LibraryQuery } from '../../shared/query';
import { registerTermFunctions } from '../analysis/term-filter';
import type { ExportRow, ItemRef } from '../ports';
import type { Db } from './connection';
import type { ArchiveCtx } from './context';
import type { Json } from './extract';
import { overridesObject } from './labels';
import { estimator, sampler } from './library';
import { buildWhere, parseQuery, sortColumn, sortPlan, type SortPlan, type Where } from './sql-query';
import { and } from './sql';

/**
 * An export row straight from the archive: the record is parsed on first use only, so an export
 * that hands `recordJson` to its worker threads never parses it on the reading thread.
 */
class StoredExportRow implements ExportRow {
  private parsed: Json | undefined;
  constructor(
    readonly platform: string,
    readonly kind: string,
    readonly id: string,
    readonly recordJson: string,
    readonly firstSeenAt: number,
    readonly lastSeenAt: number,
    readonly tags: string[],
    readonly note: string | null,
    readonly overrides: Record<string, Record<string, unknown>>,
  ) {}
  get record(): Json {
    return (this.parsed ??= JSON.parse(this.recordJson) as Json);
  }
}

/** Only what an ExportRow carries (the record is `raw`): fewer strings copied out per row. */
const EXPORT_COLS = 'i.platform, i.kind, i.id, i.raw, i.first_seen_at, i.last_seen_at';
const EXPORT_TAGS = `(SELECT json_group_array(name) FROM (SELECT t.name FROM item_tags it JOIN tags t ON t.tag_id = it.tag_id
         WHERE it.item_rid = i.rid ORDER BY t.name COLLATE NOCASE))`;
const EXPORT_NOTE = '(SELECT text FROM notes n WHERE n.item_rid = i.rid)';
const EXPORT_OV =
  '(SELECT json_group_array(json_array(o.family, o.field, json(o.value), o.at)) FROM label_overrides o WHERE o.item_rid = i.rid)';

/**
 * The annotation columns of an export row (tags, note, overrides: columns 6, 7, 8). A table
 * without rows gets a constant instead of a per-row subquery, and when all three are empty
 * (most bulk archives) the columns are left out: better-sqlite3 pays per column and row
 * (-30 % SQLite time for the subqueries, a further -25 % reading time for the columns).
 */
function exportExtra(db: Db): string {
  const has = (t: string): boolean => db.prepare(`SELECT EXISTS (SELECT 1 FROM ${t}) AS x`).pluck().get() === 1;
  const [tags, notes, ov] = [has('item_tags'), has('notes'), has('label_overrides')];
  if (!tags && !notes && !ov) return '';
  return `,
      ${tags ? EXPORT_TAGS : "'[]'"} AS tags_json,
      ${notes ? EXPORT_NOTE : 'NULL'} AS note,
      ${ov ? EXPORT_OV : "'[]'"} AS ov_json`;
}

/** The two phase statements of a sorted export (known sort values, then unknown). */
function exportStatements(plan: SortPlan, w: Where, extra: string): Array<{ sql: string; params: unknown[] }> {
  const dir = plan.dir === 'desc' ? 'DESC' : 'ASC';
  const out = [
    {
      sql: `SELECT ${EXPORT_COLS}${extra} FROM ${plan.from0} WHERE ${and([plan.known, ...w.clauses])}
          ORDER BY ${plan.expr} ${dir}, ${plan.tie} ${dir}`,
      params: [...plan.knownParams, ...w.params],
    },
  ];
  if (plan.unknown !== null) {
    out.push({
      sql: `SELECT ${EXPORT_COLS}${extra} FROM items i WHERE ${and([plan.unknown, ...(w.unknownClauses?.() ?? w.clauses)])} ORDER BY i.rid ${dir}`,
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
  type Raw = [string, string, string, string, number, number, string?, (string | null)?, string?];
  for (const r of st.raw(true).iterate(...params) as IterableIterator<Raw>) {
    const [platform, kind, id, raw, firstSeen, lastSeen, tagsJson = '[]', note = null, ovJson = '[]'] = r;
    // most items carry no tags / overrides: skip parsing the empty arrays
    const ov =
      ovJson === '[]'
        ? []
        : (JSON.parse(ovJson) as Array<[string, string, unknown, number]>).map(([family, field, value, at]) => ({ family, field, value, at }));
    yield new StoredExportRow(
      platform, kind, id, raw, firstSeen, lastSeen, tagsJson === '[]' ? [] : (JSON.parse(tagsJson) as string[]), note, overridesObject(ov),
    );
  }
}

/**
 * Every row of a query, in its sort order, streamed (constant memory) for exports, from a
 * read-only connection of its own (one snapshot; the archive stays usable meanwhile).
 * `after` and `limit` are ignored: an export is the whole result. The query is checked at
 * the call (bad input throws before any row); the connection closes when the iteration ends.
 */
export function iterateExportRows(c: ArchiveCtx, input: LibraryQuery): IterableIterator<ExportRow> {
  const q = parseQuery(input);
  const plan = sortPlan(q);
  const w = buildWhere(q, estimator(c), sortColumn(plan), { dir: plan.dir, sample: sampler(c) });
  return exportFrom(c, plan, w);
}

function* exportFrom(c: ArchiveCtx, plan: SortPlan, w: Where): IterableIterator<ExportRow> {
  const reader = openReader(c);
  try {
    for (const { sql, params } of exportStatements(plan, w, exportExtra(reader.db))) {
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
