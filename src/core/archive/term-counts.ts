/**
 * The rows frequency tables (src/core/analysis/frequency.ts, term-ids.ts) are counted from: the
 * texts of a query's items with their dates and counts (tokenized there), the per-author totals,
 * and — when the analysis index is current — each matching item's term ids of one field
 * (`an_item_terms`) and the terms behind a list of ids (`an_terms`). `q` is a parsed LibraryQuery
 * (filters only).
 */
import type { LibraryQuery } from '../../shared/query';
import { engagementSql } from '../analysis/engagement-sql';
import type { ArchiveCtx } from './context';
import { buildWhere } from './sql-query';
import { sql } from './sql';

/** text, lang, published_at, views, likes, comments, shares, saves */
export type TermItemRow = [string, string | null, number | null, number | null, number | null, number | null, number | null, number | null];

/** The dated counts of an item and its term ids of one field (a blob of uint32 LE, term-ids.ts): published_at, views, likes, comments, shares, saves, ids. */
export type TermIdsRow = [number | null, number | null, number | null, number | null, number | null, number | null, Buffer];

/** One author's totals over a query. */
export type AuthorCountRow = {
  platform: string;
  author_id: string | null;
  username: string | null;
  display_name: string | null;
  n: number;
  first: number | null;
  last: number | null;
} & Record<string, number | null>;

/** The items with a text, streamed (each is tokenized by the caller). */
export function termItems(c: ArchiveCtx, q: LibraryQuery): IterableIterator<TermItemRow> {
  const w = buildWhere(q);
  const text = `SELECT i.text, i.lang, i.published_at, i.views, i.likes, i.comments, i.shares, i.saves FROM items i
    WHERE ${[...w.clauses, 'i.text IS NOT NULL'].join(' AND ')}`;
  return c.st(text).raw(true).iterate(...w.params) as IterableIterator<TermItemRow>;
}

/** Per (platform, author id — or lower-cased username when the network gives no id): items, first/last publication, sums. */
export function authorCounts(c: ArchiveCtx, q: LibraryQuery): AuthorCountRow[] {
  const w = buildWhere(q);
  return c
    .st(
      `SELECT i.platform AS platform, max(i.author_id) AS author_id, max(i.author_username) AS username, max(i.author_display_name) AS display_name,
         count(*) AS n, min(i.published_at) AS first, max(i.published_at) AS last,
         sum(i.views) AS views, sum(i.likes) AS likes, sum(i.comments) AS comments, sum(i.shares) AS shares, sum(i.saves) AS saves,
         sum(${engagementSql('i')}) AS engagement
       FROM items i WHERE ${[...w.clauses, '(i.author_id IS NOT NULL OR i.author_username IS NOT NULL)'].join(' AND ')}
       GROUP BY i.platform, coalesce(i.author_id, '@' || lower(i.author_username))`,
    )
    .all(...w.params) as AuthorCountRow[];
}

/**
 * The matching items' term ids of one field (index field number), read with one `all()`
 * (better-sqlite3's row iterator costs ~3× more per row).
 */
export function itemTermIds(c: ArchiveCtx, q: LibraryQuery, fieldNo: number): TermIdsRow[] {
  const w = buildWhere(q);
  const text = `SELECT i.published_at, i.views, i.likes, i.comments, i.shares, i.saves, t.ids FROM items i
    JOIN an_item_terms t ON t.field = ? AND t.rid = i.rid${w.clauses.length ? ` WHERE ${w.clauses.join(' AND ')}` : ''}`;
  return c.st(text).raw(true).all(fieldNo, ...w.params) as TermIdsRow[];
}

/** (id, term) of the index's terms with these ids (given as a JSON array). */
export function termsById(c: ArchiveCtx, idsJson: string): Array<[number, string]> {
  const { st, args } = c.sql.of(sql`SELECT id, term FROM an_terms WHERE id IN (SELECT value FROM json_each(${idsJson}))`);
  return st.raw(true).all(...args) as Array<[number, string]>;
}
