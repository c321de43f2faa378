/**
 * The rows comparisons (src/core/analysis/compare.ts) are computed from: one series' totals
 * (items, engagement, the sums behind the engagement rates by views and by followers), its items
 * per UTC day, its top posts, and for overperformance the dated posts with an author and each
 * account's history in publication order. `q` is a parsed LibraryQuery (filters only).
 */
import type { PostBrief } from '../../shared/analysis';
import type { LibraryQuery } from '../../shared/query';
import { DAY_SQL } from './days';
import { engagementSql } from './engagement-sql';
import type { ReadCtx } from './context';
import { buildWhere } from './sql-query';
import { raw, sql, where } from './sql';

const E = engagementSql('i');
/** the author's followers as the library shows them (items.followers, src/shared/record-fields.ts) */
const FOLLOWERS = 'i.followers';

const BRIEF_COLS = `i.platform AS platform, i.kind AS kind, i.id AS id, i.published_at AS publishedAt,
  coalesce(i.author_username, i.author_display_name, i.author_id) AS author, substr(i.text, 1, 280) AS text, i.url AS url, i.views AS views, ${E} AS engagement`;

/** n items; e their engagement; ev / v engagement and views where views > 0; ef / f engagement and followers where followers > 0 */
export interface SeriesTotals {
  n: number;
  e: number | null;
  ev: number | null;
  v: number | null;
  ef: number | null;
  f: number | null;
}

export function seriesTotals(c: ReadCtx, q: LibraryQuery): SeriesTotals {
  const w = buildWhere(q);
  return c.sql.get<SeriesTotals>(
    sql`SELECT count(*) AS n, sum(${raw(E)}) AS e,
         sum(CASE WHEN i.views > 0 THEN ${raw(E)} END) AS ev, sum(CASE WHEN ${raw(E)} IS NOT NULL THEN nullif(i.views, 0) END) AS v,
         sum(CASE WHEN ${raw(FOLLOWERS)} > 0 THEN ${raw(E)} END) AS ef, sum(CASE WHEN ${raw(E)} IS NOT NULL AND ${raw(FOLLOWERS)} > 0 THEN ${raw(FOLLOWERS)} END) AS f
       FROM items i WHERE ${where(w)}`,
  ) as SeriesTotals;
}

/** Dated items per UTC day number, in day order. */
export function seriesDays(c: ReadCtx, q: LibraryQuery): Array<{ d: number; c: number }> {
  const w = buildWhere(q);
  return c.sql.all<{ d: number; c: number }>(
    sql`SELECT ${raw(DAY_SQL)} AS d, count(*) AS c FROM items i WHERE ${where(w, 'i.published_at IS NOT NULL')} GROUP BY d ORDER BY d`,
  );
}

/** The `top` posts of highest known engagement (ties: archive order). */
export function topPosts(c: ReadCtx, q: LibraryQuery, top: number): PostBrief[] {
  const w = buildWhere(q);
  return c.sql.all<PostBrief>(
    sql`SELECT ${raw(BRIEF_COLS)} FROM items i WHERE ${where(w, `${E} IS NOT NULL`)} ORDER BY ${raw(E)} DESC, i.rid LIMIT ${top}`,
  );
}

export type AuthoredPost = PostBrief & { rid: number; authorId: string | null; username: string | null };

/** The dated posts with an author id or username. */
export function authoredPosts(c: ReadCtx, q: LibraryQuery): AuthoredPost[] {
  const w = buildWhere(q);
  return c.sql.all<AuthoredPost>(
    sql`SELECT i.rid AS rid, i.author_id AS authorId, i.author_username AS username, ${raw(BRIEF_COLS)} FROM items i
       WHERE ${where(w, 'i.published_at IS NOT NULL', '(i.author_id IS NOT NULL OR i.author_username IS NOT NULL)')}`,
  );
}

const ENG = raw(E);

/** One account's dated posts (of one platform and record kind) in publication order, then archive order: rid and engagement. By author id, or by username (case-insensitive) among posts without one. */
export function accountHistory(
  c: ReadCtx,
  authorId: string | null,
  username: string | null,
  platform: string,
  kind: string,
): Array<{ rid: number; e: number | null }> {
  return authorId !== null
    ? c.sql.all(
        sql`SELECT i.rid AS rid, ${ENG} AS e FROM items i WHERE i.author_id = ${authorId} AND i.platform = ${platform} AND i.kind = ${kind} AND i.published_at IS NOT NULL ORDER BY i.published_at, i.rid`,
      )
    : c.sql.all(
        sql`SELECT i.rid AS rid, ${ENG} AS e FROM items i WHERE i.author_id IS NULL AND i.author_username = ${username} COLLATE NOCASE AND i.platform = ${platform} AND i.kind = ${kind} AND i.published_at IS NOT NULL ORDER BY i.published_at, i.rid`,
      );
}

/** The rids of the items `q` matches: how far comparison series overlap. */
export function seriesRids(c: ReadCtx, q: LibraryQuery): number[] {
  const w = buildWhere(q);
  return c.sql.values<number>(sql`SELECT i.rid FROM items i WHERE ${where(w)}`);
}
