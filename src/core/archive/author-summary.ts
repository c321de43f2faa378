/**
 * The analysis index's author summary (docs/analysis.md "The analysis index"): one narrow row per
 * item that has an author — (platform, kind, UTC day, rid) → the author's key id, likes, views —
 * so the Library's top authors of a plain query (networks, kinds, dates on day boundaries) group a
 * few bytes per item instead of reading each item's wide row (~4 KB at 1M posts: the top authors of
 * one network's 203k posts read ~0.8 GB).
 *
 *  - `an_author_keys`: one id per (platform, author key); the key is the one `topAuthors` groups
 *    on — the author id, or '@' + the lower-cased username when the network gives no id;
 *  - `an_author_items`: the rows (with the item's publication time and its five counts, for the
 *    authors' frequency table), keyed so that a network, a kind and a date range are one range;
 *  - `an_author_totals`: per (platform, kind, author) the items, first and last publication and the
 *    sums of the five counts and of engagement (null when none is known), which answer a query
 *    without dates (~47k rows for a network of 203k posts at 1M). New items are added to them; the
 *    authors a change touches are summed again from their rows (`an_author_items_ak`);
 *  - `an_author_dirty`: items changed or deleted since they were summarised (their old key), filled
 *    by triggers, replayed by `applyAuthorChanges`.
 *
 * Kept by src/core/analysis/analysis-index.ts with its own watermark (`an_state` 'authors_upto'):
 * an index built before the summary existed fills it in the background, from the first item.
 */
import type { AuthorCount, LibraryQuery } from '../../shared/query';
import type { ArchiveCtx, ReadCtx } from './context';
import { engagementSql } from './engagement-sql';
import { buildWhere, parseQuery } from './sql-query';
import { and, part, raw, sql, SqlPart, whereAnd } from './sql';

const UPTO = "(SELECT v FROM an_state WHERE k = 'authors_upto')";
/** the group key of topAuthors (aggregates.ts spells the same) */
export const AUTHOR_KEY = "coalesce(i.author_id, '@' || lower(i.author_username))";
const HAS_AUTHOR = '(i.author_id IS NOT NULL OR i.author_username IS NOT NULL)';
const ROW_COLUMNS = 'platform, kind, day, rid, ak, pub, views, likes, comments, shares, saves';

/** The summary's tables and triggers; `dayOf` spells an item's UTC day (analysis-index.ts). */
export function authorSchema(dayOf: (col: string) => string): string {
  const old = `old.rid, old.platform, old.kind, ${dayOf('old.published_at')}`;
  return /* sql */ `
CREATE TABLE IF NOT EXISTS an_author_keys (id INTEGER PRIMARY KEY, platform TEXT NOT NULL, akey TEXT NOT NULL, byname INTEGER NOT NULL, UNIQUE (platform, akey));
CREATE TABLE IF NOT EXISTS an_author_items (
  platform TEXT NOT NULL, kind TEXT NOT NULL, day INTEGER NOT NULL, rid INTEGER NOT NULL, ak INTEGER NOT NULL,
  pub INTEGER, views, likes, comments, shares, saves,
  PRIMARY KEY (platform, kind, day, rid)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS an_author_items_ak ON an_author_items (ak);
CREATE TABLE IF NOT EXISTS an_author_totals (
  platform TEXT NOT NULL, kind TEXT NOT NULL, ak INTEGER NOT NULL, n INTEGER NOT NULL, first INTEGER, last INTEGER,
  views, likes, comments, shares, saves, engagement,
  PRIMARY KEY (platform, kind, ak)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS an_author_dirty (rid INTEGER PRIMARY KEY, platform TEXT, kind TEXT, day INTEGER);
CREATE TRIGGER IF NOT EXISTS an_author_changed AFTER UPDATE OF platform, kind, published_at, views, likes, comments, shares, saves, author_id, author_username ON items
  WHEN old.rid <= ${UPTO} AND (old.platform IS NOT new.platform OR old.kind IS NOT new.kind OR old.published_at IS NOT new.published_at
    OR old.likes IS NOT new.likes OR old.views IS NOT new.views OR old.comments IS NOT new.comments
    OR old.shares IS NOT new.shares OR old.saves IS NOT new.saves OR old.author_id IS NOT new.author_id OR old.author_username IS NOT new.author_username)
BEGIN
  INSERT OR IGNORE INTO an_author_dirty VALUES (${old});
END;
CREATE TRIGGER IF NOT EXISTS an_author_deleted AFTER DELETE ON items WHEN old.rid <= ${UPTO}
BEGIN
  INSERT OR IGNORE INTO an_author_dirty VALUES (${old});
END;
`;
}

export const AUTHOR_DROP = /* sql */ `DROP TRIGGER IF EXISTS an_author_changed; DROP TRIGGER IF EXISTS an_author_deleted;
DROP TABLE IF EXISTS an_author_keys; DROP TABLE IF EXISTS an_author_items; DROP TABLE IF EXISTS an_author_totals; DROP TABLE IF EXISTS an_author_dirty;`;

/** Whether the summary's tables exist (an index created before them, on a read-only connection, has none). */
export function authorTablesExist(c: ArchiveCtx): boolean {
  return c.st("SELECT 1 FROM sqlite_master WHERE name = 'an_author_dirty'").get() !== undefined;
}

const SUMS = ['views', 'likes', 'comments', 'shares', 'saves', 'engagement'];
/** (platform, kind, ak) → items, first, last and the six sums of summary rows (`a`), as SQL aggregates */
const TOTALS_OF = `a.platform, a.kind, a.ak, count(*), min(a.pub), max(a.pub), sum(a.views), sum(a.likes), sum(a.comments), sum(a.shares), sum(a.saves), sum(${engagementSql('a')})`;
const TOTALS_COLUMNS = 'platform, kind, ak, n, first, last, views, likes, comments, shares, saves, engagement';

/** Adds new rows (`from`, aliased `a`) to the totals: counts add up, first / last widen, a sum stays null while no count is known. */
function addToTotals(c: ArchiveCtx, from: string): void {
  c.db.exec(
    `INSERT INTO an_author_totals (${TOTALS_COLUMNS})
     SELECT ${TOTALS_OF} FROM ${from} a WHERE true GROUP BY a.platform, a.kind, a.ak
     ON CONFLICT DO UPDATE SET n = n + excluded.n,
       first = CASE WHEN first IS NULL OR excluded.first < first THEN excluded.first ELSE first END,
       last = CASE WHEN last IS NULL OR excluded.last > last THEN excluded.last ELSE last END,
       ${SUMS.map((k) => `${k} = CASE WHEN excluded.${k} IS NULL THEN ${k} ELSE coalesce(${k}, 0) + excluded.${k} END`).join(', ')}`,
  );
}

/** Summarises the items matching `where` (over `items i`): their authors' keys, their rows and the totals. Call inside a transaction. */
function addAuthorRows(c: ArchiveCtx, where: SqlPart, dayOf: (col: string) => string, totals: boolean): void {
  c.sql.run(
    sql`INSERT OR IGNORE INTO an_author_keys (platform, akey, byname)
     SELECT i.platform, ${raw(AUTHOR_KEY)}, i.author_id IS NULL FROM items i WHERE ${where} AND ${raw(HAS_AUTHOR)}`,
  );
  c.db.exec(`CREATE TEMP TABLE IF NOT EXISTS an_author_new (${ROW_COLUMNS}); DELETE FROM temp.an_author_new`);
  c.sql.run(
    sql`INSERT INTO temp.an_author_new (${raw(ROW_COLUMNS)})
     SELECT i.platform, i.kind, ${raw(dayOf('i.published_at'))}, i.rid, k.id, i.published_at, i.views, i.likes, i.comments, i.shares, i.saves
     FROM items i JOIN an_author_keys k ON k.platform = i.platform AND k.akey = ${raw(AUTHOR_KEY)}
     WHERE ${where} AND ${raw(HAS_AUTHOR)}`,
  );
  c.db.exec(`INSERT INTO an_author_items (${ROW_COLUMNS}) SELECT ${ROW_COLUMNS} FROM temp.an_author_new ORDER BY platform, kind, day, rid`);
  if (totals) addToTotals(c, 'temp.an_author_new');
  else c.db.exec('INSERT OR IGNORE INTO temp.an_author_touched SELECT DISTINCT platform, kind, ak FROM temp.an_author_new');
  c.db.exec('DELETE FROM temp.an_author_new');
}

/** Summarises the items with from < rid ≤ to (from 0: the summary starts empty). Call inside a transaction. */
export function addAuthorsBetween(c: ArchiveCtx, from: number, to: number, dayOf: (col: string) => string): void {
  if (from === 0) c.db.exec('DELETE FROM an_author_items; DELETE FROM an_author_totals; DELETE FROM an_author_dirty');
  addAuthorRows(c, part(sql`i.rid > ${from} AND i.rid <= ${to}`), dayOf, true);
}

/** Items changed or deleted since they were summarised. */
export function authorChanges(c: ReadCtx): number {
  return (c.sql.get<{ n: number }>(sql`SELECT count(*) AS n FROM an_author_dirty`) as { n: number }).n;
}

/** Replays the logged changes: each changed item's old row goes, its current one (if it still has an author) comes. Call inside a transaction. */
export function applyAuthorChanges(c: ArchiveCtx, dayOf: (col: string) => string): void {
  if (authorChanges(c) === 0) return;
  // the authors the changed items had and have now: their totals are summed again from their rows
  c.db
    .exec(`CREATE TEMP TABLE IF NOT EXISTS an_author_touched (platform, kind, ak, PRIMARY KEY (platform, kind, ak)); DELETE FROM temp.an_author_touched;
    INSERT OR IGNORE INTO temp.an_author_touched SELECT a.platform, a.kind, a.ak FROM an_author_items a
      JOIN an_author_dirty d ON a.platform = d.platform AND a.kind = d.kind AND a.day = d.day AND a.rid = d.rid;
    DELETE FROM an_author_items WHERE (platform, kind, day, rid) IN (SELECT platform, kind, day, rid FROM an_author_dirty)`);
  addAuthorRows(c, part(sql`i.rid IN (SELECT rid FROM an_author_dirty)`), dayOf, false);
  c.db.exec(`DELETE FROM an_author_totals WHERE (platform, kind, ak) IN (SELECT platform, kind, ak FROM temp.an_author_touched);
    INSERT INTO an_author_totals (${TOTALS_COLUMNS})
      SELECT ${TOTALS_OF} FROM an_author_items a
      WHERE a.ak IN (SELECT ak FROM temp.an_author_touched) AND (a.platform, a.kind, a.ak) IN (SELECT platform, kind, ak FROM temp.an_author_touched)
      GROUP BY a.platform, a.kind, a.ak;
    DELETE FROM temp.an_author_touched`);
  c.db.exec('DELETE FROM an_author_dirty');
}

/**
 * The top `n` authors of a plain query (`clauses` over an_author_items' platform, kind and day:
 * AnalysisTables.plainFilter), in topAuthors' order — items, then likes, then network and key —
 * with the username and display name of the author's latest archived item the query matches.
 */
export function summaryTopAuthors(c: ReadCtx, q: LibraryQuery, clauses: string[], params: unknown[], n: number): AuthorCount[] {
  const pq = parseQuery(q);
  // without dates the totals answer (a row per author and kind); with dates, the items' rows of the range
  const grouped =
    pq.since === undefined && pq.until === undefined
      ? `SELECT ak, sum(n) AS n, coalesce(sum(likes), 0) AS likes, coalesce(sum(views), 0) AS views FROM an_author_totals WHERE ${and(clauses)} GROUP BY ak`
      : `SELECT ak, count(*) AS n, coalesce(sum(likes), 0) AS likes, coalesce(sum(views), 0) AS views FROM an_author_items WHERE ${and(clauses)} GROUP BY +ak`;
  const top = c.sql.all<{ platform: string; akey: string; byname: number; n: number; likes: number; views: number }>(
    sql`SELECT k.platform AS platform, k.akey AS akey, k.byname AS byname, x.n AS n, x.likes AS likes, x.views AS views
       FROM (${new SqlPart(grouped, params)}) x
       JOIN an_author_keys k ON k.id = x.ak
       ORDER BY x.n DESC, x.likes DESC, k.platform, k.akey LIMIT ${Math.max(1, Math.floor(n))}`,
  );
  const names = authorNames(c, pq, top);
  return top.map((r, k) => {
    const { username, displayName } = names[k];
    const authorId = r.byname ? null : r.akey;
    return {
      bucket: username ?? displayName ?? authorId ?? '',
      value: r.n,
      platform: r.platform,
      authorId,
      username,
      displayName,
      likes: r.likes,
      views: r.views,
    };
  });
}

/** An author as the summary and the grouped queries key them: network, key (id, or '@' + lower-cased username), whether the key is a username. */
export interface AuthorKey {
  platform: string;
  akey: string;
  byname: number;
}

/**
 * The username and display name of each author's latest archived item the query `q` (parsed)
 * matches: one index lookup per author (items_author_id, or items_author_name for a username key).
 */
export function authorNames(
  c: ReadCtx,
  q: LibraryQuery,
  keys: AuthorKey[],
): Array<{ username: string | null; displayName: string | null }> {
  if (keys.length === 0) return [];
  const f = whereAnd(buildWhere(q)); // built once: one statement for every key
  type Names = { username: string | null; display_name: string | null };
  return keys.map((r) => {
    const names = r.byname
      ? c.sql.get<Names>(
          sql`SELECT i.author_username AS username, i.author_display_name AS display_name FROM items i INDEXED BY items_author_name
     WHERE ${f}i.platform = ${r.platform} AND i.author_id IS NULL AND i.author_username = ${r.akey.slice(1)} COLLATE NOCASE AND '@' || lower(i.author_username) = ${r.akey} ORDER BY i.rid DESC LIMIT 1`,
        )
      : c.sql.get<Names>(
          sql`SELECT i.author_username AS username, i.author_display_name AS display_name FROM items i INDEXED BY items_author_id
     WHERE ${f}i.platform = ${r.platform} AND i.author_id = ${r.akey} ORDER BY i.rid DESC LIMIT 1`,
        );
    return { username: names?.username ?? null, displayName: names?.display_name ?? null };
  });
}

/**
 * Every author's items, first and last publication and sums (views, likes, comments, shares,
 * saves, engagement: null when none is known) over a plain query, from the summary's rows — the
 * authors' frequency table (term-counts.ts authorCounts spells the same over the items).
 */
export function summaryAuthorRows(
  c: ReadCtx,
  q: LibraryQuery,
  clauses: string[],
  params: unknown[],
  order: AuthorOrder,
): { distinct: number; rows: AuthorTotalsRow[] } {
  const pq = parseQuery(q);
  // without dates the totals answer (a row per author and kind); with dates, the items' rows of the range
  const grouped =
    pq.since === undefined && pq.until === undefined
      ? `SELECT a.ak AS ak, sum(a.n) AS n, min(a.first) AS first, max(a.last) AS last, ${SUMS.map((k) => `sum(a.${k}) AS ${k}`).join(', ')}
         FROM an_author_totals a WHERE ${and(clauses)} GROUP BY a.ak`
      : `SELECT a.ak AS ak, count(*) AS n, min(a.pub) AS first, max(a.pub) AS last, sum(a.views) AS views, sum(a.likes) AS likes,
           sum(a.comments) AS comments, sum(a.shares) AS shares, sum(a.saves) AS saves, sum(${engagementSql('a')}) AS engagement
         FROM an_author_items a WHERE ${and(clauses)} GROUP BY +a.ak`;
  // frequency.ts rankTerms's order: the sort column (unknown values last either way), more items, the key
  const col = order.sort === 'count' || order.sort === 'occurrences' ? 'n' : ORDER_COLUMNS.includes(order.sort) ? order.sort : 'n';
  const rows = c.sql.all<AuthorTotalsRow & { distinct_n: number }>(
    sql`SELECT k.platform AS platform, k.akey AS akey, k.byname AS byname, x.n AS n, x.first AS first, x.last AS last,
         x.views AS views, x.likes AS likes, x.comments AS comments, x.shares AS shares, x.saves AS saves, x.engagement AS engagement,
         count(*) OVER () AS distinct_n
       FROM (${new SqlPart(grouped, params)}) x JOIN an_author_keys k ON k.id = x.ak
       ORDER BY x.${raw(col)} IS NULL, x.${raw(col)} ${raw(order.dir === 'asc' ? 'ASC' : 'DESC')}, x.n DESC, k.platform, k.akey LIMIT ${order.limit}`,
  );
  return { distinct: rows[0]?.distinct_n ?? 0, rows: rows.map(({ distinct_n: _d, ...r }) => r as AuthorTotalsRow) };
}

/** How a frequency table ranks its rows: a FREQUENCY_SORTS column, a direction, how many. */
export interface AuthorOrder {
  sort: string;
  dir: 'asc' | 'desc';
  limit: number;
}
const ORDER_COLUMNS = ['first', 'last', ...SUMS];

/** One author's totals over a query, keyed as AuthorKey. */
export type AuthorTotalsRow = AuthorKey & { n: number; first: number | null; last: number | null } & Record<string, number | null>;
