/**
 * The analysis index's author summary (docs/analysis.md "The analysis index"): one narrow row per
 * item that has an author — (platform, kind, UTC day, rid) → the author's key id, likes, views —
 * so the Library's top authors of a plain query (networks, kinds, dates on day boundaries) group a
 * few bytes per item instead of reading each item's wide row (~4 KB at 1M posts: the top authors of
 * one network's 203k posts read ~0.8 GB).
 *
 *  - `an_author_keys`: one id per (platform, author key); the key is the one `topAuthors` groups
 *    on — the author id, or '@' + the lower-cased username when the network gives no id;
 *  - `an_author_items`: the rows, keyed so that a network, a kind and a date range are one range;
 *  - `an_author_totals`: their sums per (platform, kind, author): items, likes, views (nulls as 0),
 *    which answer a query without dates (~47k rows for a network of 203k posts at 1M);
 *  - `an_author_dirty`: items changed or deleted since they were summarised (their old key), filled
 *    by triggers, replayed by `applyAuthorChanges`.
 *
 * Kept by src/core/analysis/analysis-index.ts with its own watermark (`an_state` 'authors_upto'):
 * an index built before the summary existed fills it in the background, from the first item.
 */
import type { AuthorCount, LibraryQuery } from '../../shared/query';
import type { ArchiveCtx } from './context';
import { buildWhere, parseQuery } from './sql-query';
import { and } from './sql';

const UPTO = "(SELECT v FROM an_state WHERE k = 'authors_upto')";
/** the group key of topAuthors (aggregates.ts spells the same) */
export const AUTHOR_KEY = "coalesce(i.author_id, '@' || lower(i.author_username))";
const HAS_AUTHOR = '(i.author_id IS NOT NULL OR i.author_username IS NOT NULL)';

/** The summary's tables and triggers; `dayOf` spells an item's UTC day (analysis-index.ts). */
export function authorSchema(dayOf: (col: string) => string): string {
  const old = `old.rid, old.platform, old.kind, ${dayOf('old.published_at')}`;
  return /* sql */ `
CREATE TABLE IF NOT EXISTS an_author_keys (id INTEGER PRIMARY KEY, platform TEXT NOT NULL, akey TEXT NOT NULL, byname INTEGER NOT NULL, UNIQUE (platform, akey));
CREATE TABLE IF NOT EXISTS an_author_items (
  platform TEXT NOT NULL, kind TEXT NOT NULL, day INTEGER NOT NULL, rid INTEGER NOT NULL, ak INTEGER NOT NULL, likes, views,
  PRIMARY KEY (platform, kind, day, rid)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS an_author_totals (
  platform TEXT NOT NULL, kind TEXT NOT NULL, ak INTEGER NOT NULL, n INTEGER NOT NULL, likes NOT NULL, views NOT NULL,
  PRIMARY KEY (platform, kind, ak)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS an_author_dirty (rid INTEGER PRIMARY KEY, platform TEXT, kind TEXT, day INTEGER);
CREATE TRIGGER IF NOT EXISTS an_author_changed AFTER UPDATE OF platform, kind, published_at, likes, views, author_id, author_username ON items
  WHEN old.rid <= ${UPTO} AND (old.platform IS NOT new.platform OR old.kind IS NOT new.kind OR old.published_at IS NOT new.published_at
    OR old.likes IS NOT new.likes OR old.views IS NOT new.views OR old.author_id IS NOT new.author_id OR old.author_username IS NOT new.author_username)
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

/** Adds the rows of temp.an_author_new to (sign 1) or takes them from (-1) the totals. */
function addToTotals(c: ArchiveCtx, from: string, sign: 1 | -1): void {
  c.db.exec(
    `INSERT INTO an_author_totals (platform, kind, ak, n, likes, views)
     SELECT platform, kind, ak, ${sign} * count(*), ${sign} * coalesce(sum(likes), 0), ${sign} * coalesce(sum(views), 0) FROM ${from} WHERE true GROUP BY platform, kind, ak
     ON CONFLICT DO UPDATE SET n = n + excluded.n, likes = likes + excluded.likes, views = views + excluded.views`,
  );
}

/** Summarises the items matching `where` (over `items i`): their authors' keys, their rows and the totals. Call inside a transaction. */
function addAuthorRows(c: ArchiveCtx, where: string, params: unknown[], dayOf: (col: string) => string): void {
  c.st(
    `INSERT OR IGNORE INTO an_author_keys (platform, akey, byname)
     SELECT i.platform, ${AUTHOR_KEY}, i.author_id IS NULL FROM items i WHERE ${where} AND ${HAS_AUTHOR}`,
  ).run(...params);
  c.db.exec('CREATE TEMP TABLE IF NOT EXISTS an_author_new (platform, kind, day, rid, ak, likes, views); DELETE FROM temp.an_author_new');
  c.st(
    `INSERT INTO temp.an_author_new (platform, kind, day, rid, ak, likes, views)
     SELECT i.platform, i.kind, ${dayOf('i.published_at')}, i.rid, k.id, i.likes, i.views
     FROM items i JOIN an_author_keys k ON k.platform = i.platform AND k.akey = ${AUTHOR_KEY}
     WHERE ${where} AND ${HAS_AUTHOR}`,
  ).run(...params);
  c.db.exec('INSERT INTO an_author_items (platform, kind, day, rid, ak, likes, views) SELECT * FROM temp.an_author_new ORDER BY platform, kind, day, rid');
  addToTotals(c, 'temp.an_author_new', 1);
  c.db.exec('DELETE FROM temp.an_author_new');
}

/** Summarises the items with from < rid ≤ to (from 0: the summary starts empty). Call inside a transaction. */
export function addAuthorsBetween(c: ArchiveCtx, from: number, to: number, dayOf: (col: string) => string): void {
  if (from === 0) c.db.exec('DELETE FROM an_author_items; DELETE FROM an_author_totals; DELETE FROM an_author_dirty');
  addAuthorRows(c, 'i.rid > ? AND i.rid <= ?', [from, to], dayOf);
}

/** Items changed or deleted since they were summarised. */
export function authorChanges(c: ArchiveCtx): number {
  return (c.st('SELECT count(*) AS n FROM an_author_dirty').get() as { n: number }).n;
}

/** Replays the logged changes: each changed item's old row goes, its current one (if it still has an author) comes. Call inside a transaction. */
export function applyAuthorChanges(c: ArchiveCtx, dayOf: (col: string) => string): void {
  if (authorChanges(c) === 0) return;
  const old = '(SELECT a.* FROM an_author_items a JOIN an_author_dirty d ON a.platform = d.platform AND a.kind = d.kind AND a.day = d.day AND a.rid = d.rid)';
  addToTotals(c, old, -1);
  c.db.exec('DELETE FROM an_author_items WHERE (platform, kind, day, rid) IN (SELECT platform, kind, day, rid FROM an_author_dirty)');
  c.db.exec('DELETE FROM an_author_totals WHERE n <= 0');
  addAuthorRows(c, 'i.rid IN (SELECT rid FROM an_author_dirty)', [], dayOf);
  c.db.exec('DELETE FROM an_author_dirty');
}

/**
 * The top `n` authors of a plain query (`clauses` over an_author_items' platform, kind and day:
 * AnalysisTables.plainFilter), in topAuthors' order — items, then likes, then network and key —
 * with the username and display name of the author's latest archived item the query matches.
 */
export function summaryTopAuthors(c: ArchiveCtx, q: LibraryQuery, clauses: string[], params: unknown[], n: number): AuthorCount[] {
  const pq = parseQuery(q);
  // without dates the totals answer (a row per author and kind); with dates, the items' rows of the range
  const grouped =
    pq.since === undefined && pq.until === undefined
      ? `SELECT ak, sum(n) AS n, sum(likes) AS likes, sum(views) AS views FROM an_author_totals WHERE ${and(clauses)} GROUP BY ak`
      : `SELECT ak, count(*) AS n, coalesce(sum(likes), 0) AS likes, coalesce(sum(views), 0) AS views FROM an_author_items WHERE ${and(clauses)} GROUP BY ak`;
  const top = c
    .st(
      `SELECT k.platform AS platform, k.akey AS akey, k.byname AS byname, x.n AS n, x.likes AS likes, x.views AS views
       FROM (${grouped}) x
       JOIN an_author_keys k ON k.id = x.ak
       ORDER BY x.n DESC, x.likes DESC, k.platform, k.akey LIMIT ?`,
    )
    .all(...params, Math.max(1, Math.floor(n))) as Array<{ platform: string; akey: string; byname: number; n: number; likes: number; views: number }>;
  if (top.length === 0) return [];
  const w = buildWhere(pq);
  // the names of the author's latest archived item the query matches (the grouped query's choice)
  const byId = c.st(
    `SELECT i.author_username AS username, i.author_display_name AS display_name FROM items i INDEXED BY items_author_id
     WHERE ${and([...w.clauses, 'i.platform = ?', 'i.author_id = ?'])} ORDER BY i.rid DESC LIMIT 1`,
  );
  const byName = c.st(
    `SELECT i.author_username AS username, i.author_display_name AS display_name FROM items i INDEXED BY items_author_name
     WHERE ${and([...w.clauses, 'i.platform = ?', 'i.author_id IS NULL', 'i.author_username = ? COLLATE NOCASE', "'@' || lower(i.author_username) = ?"])} ORDER BY i.rid DESC LIMIT 1`,
  );
  return top.map((r) => {
    const names = (r.byname ? byName.get(...w.params, r.platform, r.akey.slice(1), r.akey) : byId.get(...w.params, r.platform, r.akey)) as
      | { username: string | null; display_name: string | null }
      | undefined;
    const username = names?.username ?? null;
    const displayName = names?.display_name ?? null;
    const authorId = r.byname ? null : r.akey;
    return { bucket: username ?? displayName ?? authorId ?? '', value: r.n, platform: r.platform, authorId, username, displayName, likes: r.likes, views: r.views };
  });
}
