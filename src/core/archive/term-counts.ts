/**
 * The rows frequency tables (src/core/analysis/frequency.ts, term-ids.ts) are counted from: the
 * texts of a query's items with their dates and counts (tokenized there), the per-author totals,
 * and — when the analysis index is current — each matching item's term ids of one field
 * (`an_item_terms`) and the terms behind a list of ids (`an_terms`). `q` is a parsed LibraryQuery
 * (filters only).
 */
import type { LibraryQuery } from '../../shared/query';
import { engagementSql } from './engagement-sql';
import type { ReadCtx } from './context';
import { dayOf } from './analysis-index';
import { buildWhere } from './sql-query';
import { raw, sql, SqlPart, where } from './sql';
import { AUTHOR_KEY, type AuthorTotalsRow } from './author-summary';

/** text, lang, published_at, views, likes, comments, shares, saves */
export type TermItemRow = [string, string | null, number | null, number | null, number | null, number | null, number | null, number | null];

/** An item's publication time, counts and term ids of one field: one an_item_terms blob (term-ids.ts encodeItemTerms). */
export type TermIdsRow = Buffer;

/** One author's totals over a query (author-summary.ts: its key, items, first/last publication, sums). */
export type AuthorCountRow = AuthorTotalsRow;

const AKEY = raw(AUTHOR_KEY);
const ENGAGEMENT = raw(engagementSql('i'));

export function termItems(c: ReadCtx, q: LibraryQuery): IterableIterator<TermItemRow> {
  const w = buildWhere(q);
  return c.sql
    .iterateRows<TermItemRow>(sql`SELECT i.text, i.lang, i.published_at, i.views, i.likes, i.comments, i.shares, i.saves FROM items i
    WHERE ${where(w, 'i.text IS NOT NULL')}`);
}

/**
 * Per (platform, author id — or lower-cased username when the network gives no id): items,
 * first/last publication, sums. Names are read for the authors shown only (author-summary.ts
 * authorNames); a plain query's rows come from the analysis index's author summary when it is current.
 */
export function authorCounts(c: ReadCtx, q: LibraryQuery): AuthorCountRow[] {
  const w = buildWhere(q);
  return c.sql.all<AuthorCountRow>(
    sql`SELECT i.platform AS platform, ${AKEY} AS akey, max(i.author_id IS NULL) AS byname,
         count(*) AS n, min(i.published_at) AS first, max(i.published_at) AS last,
         sum(i.views) AS views, sum(i.likes) AS likes, sum(i.comments) AS comments, sum(i.shares) AS shares, sum(i.saves) AS saves,
         sum(${ENGAGEMENT}) AS engagement
       FROM items i WHERE ${where(w, '(i.author_id IS NOT NULL OR i.author_username IS NOT NULL)')}
       GROUP BY i.platform, ${AKEY}`,
  );
}

/**
 * The matching items' term ids of one field (index field number) with their publication times and
 * counts as an_item_terms holds them (equal to the items' while the index is current): one blob
 * per item, read with one `all()` (better-sqlite3's row iterator costs ~3× more per row). The items drive the join
 * (CROSS JOIN: SQLite would otherwise walk an_item_terms over the query's dates and fetch each
 * item by rid); each item's term row is found by (field, its UTC day, rid), so an index on the
 * publication time hands them over in key order and they are read from neighbouring pages, and no
 * `items` row is read when the query's filters are answered by an index alone.
 */
export function itemTermIds(c: ReadCtx, q: LibraryQuery, fieldNo: number): TermIdsRow[] {
  const w = buildWhere(withAllKinds(c, q));
  return c.sql.values<TermIdsRow>(sql`SELECT t.data FROM items i
    CROSS JOIN an_item_terms t ON t.field = ${fieldNo} AND t.day = ${raw(dayOf('i.published_at'))} AND t.rid = i.rid${new SqlPart(w.clauses.length ? ` WHERE ${w.clauses.join(' AND ')}` : '', w.params)}`);
}

/**
 * A query of some platforms and dates but no kinds, with the kinds those platforms' items have
 * spelled out (the same items): items_platform_kind_published then reads the date range of each
 * (platform, kind) instead of every index entry of the platforms (200,000 entries for one network
 * of a 1M-post archive, ~15 ms). The kinds are found by a seek per kind on that index.
 */
function withAllKinds(c: ReadCtx, q: LibraryQuery): LibraryQuery {
  if (!q.platforms?.length || q.kinds?.length || (q.since === undefined && q.until === undefined)) return q;
  const kinds = new Set<string>();
  for (const p of q.platforms) {
    let k = c.sql.value<string>(sql`SELECT kind FROM items WHERE platform = ${p} ORDER BY platform, kind LIMIT 1`);
    for (let n = 0; k !== undefined; n++) {
      if (n >= 64) return q; // many kinds: the index's range per kind no longer pays
      kinds.add(k);
      k = c.sql.value<string>(sql`SELECT kind FROM items WHERE platform = ${p} AND kind > ${k} ORDER BY platform, kind LIMIT 1`);
    }
  }
  return kinds.size === 0 ? q : { ...q, kinds: [...kinds] };
}

/** (id, term) of the index's terms with these ids (given as a JSON array). */
export function termsById(c: ReadCtx, idsJson: string): Array<[number, string]> {
  return c.sql.rows<[number, string]>(sql`SELECT id, term FROM an_terms WHERE id IN (SELECT value FROM json_each(${idsJson}))`);
}
