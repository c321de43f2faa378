/**
 * The rows a network is built from (src/core/analysis/network-source.ts folds them into facts):
 * a library query's items read down to what a network needs — text, likes, parent, three label
 * values taken from the labels JSON by SQLite, the author only when asked, the analyst's
 * overrides as a JSON array when there are any — and the authors of replies' parents
 * (network-export.ts). Streamed on the archive's connection in archive order.
 */
import type { LibraryQuery } from '../../shared/query';
import type { ReadCtx } from './context';
import { buildWhere } from './sql-query';
import { list, raw, sql, SqlPart } from './sql';

/** platform, kind, id, text, likes, parent id, sponsored.p, intent.label, sentiment.label, author id / username / display name, followers, overrides JSON */
export type FactRow = [
  string,
  string,
  string,
  string | null,
  number | null,
  string | null,
  unknown,
  string | null,
  string | null,
  string | null,
  string | null,
  string | null,
  unknown,
  string | null,
];

/** An archived item's author (the parent of a reply). */
export interface ParentAuthorRow {
  id: string;
  author_id: string | null;
  author_username: string | null;
  author_display_name: string | null;
}

/** A label value of the stored labels JSON, as JSON.parse would give it: a number or text, else null (objects, arrays, booleans). */
const labelValue = (path: string, types: string): string =>
  `iif(json_type(i.labels, '${path}') IN (${types}), json_extract(i.labels, '${path}'), NULL)`;

/** The fact rows of every item `q` (parsed) matches, in archive order; without `authors` the author columns are NULL (not read). */
export function factRows(c: ReadCtx, q: LibraryQuery, authors: boolean): IterableIterator<FactRow> {
  const w = buildWhere(q);
  const hasOverrides = (c.sql.get<{ x: number }>(sql`SELECT EXISTS (SELECT 1 FROM label_overrides) AS x`)?.x ?? 0) === 1;
  const ov = hasOverrides
    ? '(SELECT json_group_array(json_array(o.family, o.field, json(o.value))) FROM label_overrides o WHERE o.item_rid = i.rid)'
    : 'NULL';
  const author = authors ? 'i.author_id, i.author_username, i.author_display_name, i.followers' : 'NULL, NULL, NULL, NULL';
  const select = `SELECT i.platform, i.kind, i.id, i.text, i.likes, i.parent_id,
      ${labelValue('$.sponsored.p', "'integer', 'real', 'text'")}, ${labelValue('$.intent.label', "'text'")}, ${labelValue('$.sentiment.label', "'text'")},
      ${author}, ${ov}
    FROM items i`;
  const where = w.clauses.length ? `WHERE ${w.clauses.join(' AND ')}` : '';
  const filters = new SqlPart(where, w.params);
  const rids = where ? fewRids(c, filters) : null;
  if (rids) return byRid(c, select, rids);
  return c.sql.iterateRows<FactRow>(sql`${raw(select)} ${filters} ORDER BY i.rid`);
}

/** rids looked up per statement (a JSON array bound as one parameter) */
const RID_CHUNK = 2000;

/**
 * The rids the query matches, ascending, when they are fewer than a quarter of the archive; else
 * null. `… ORDER BY i.rid` makes SQLite (no statistics) walk the whole table in rid order even for
 * a date range holding 10 % of it (1M items: ~1 s of CPU); without the ORDER BY it reads the range
 * from its index (~0.1 s), and the rows are then looked up by rid, in order (~0.55 s). A wide
 * match stops the count early and keeps the walk, which is then the cheaper read.
 */
function fewRids(c: ReadCtx, filters: SqlPart): Float64Array | null {
  const top = c.sql.get<{ m: number | null }>(sql`SELECT max(rid) AS m FROM items`)?.m ?? 0;
  const limit = Math.floor(top / 4);
  const out: number[] = [];
  for (const [rid] of c.sql.iterateRows<[number]>(sql`SELECT i.rid FROM items i ${filters}`)) {
    if (out.length >= limit) return null;
    out.push(rid);
  }
  return Float64Array.from(out).sort();
}

/** The rows of `rids` (ascending) in that order: the same rows, in the same order, as the walk. */
function* byRid(c: ReadCtx, select: string, rids: Float64Array): IterableIterator<FactRow> {
  const from = raw(select);
  for (let k = 0; k < rids.length; k += RID_CHUNK)
    yield* c.sql.iterateRows<FactRow>(
      sql`${from} WHERE i.rid IN (SELECT value FROM json_each(${JSON.stringify(Array.from(rids.subarray(k, k + RID_CHUNK)))})) ORDER BY i.rid`,
    );
}

/** Authors of archived items of one platform by id (any number of ids; read 500 at a time). */
export function parentAuthors(c: ReadCtx, platform: string, ids: string[]): ParentAuthorRow[] {
  const out: ParentAuthorRow[] = [];
  for (let i = 0; i < ids.length; i += 500) {
    const chunk = ids.slice(i, i + 500);
    const rows = c.sql.all<ParentAuthorRow>(
      sql`SELECT id, author_id, author_username, author_display_name FROM items WHERE platform = ${platform} AND id IN (${list(chunk)})`,
    );
    for (const r of rows) out.push(r);
  }
  return out;
}
