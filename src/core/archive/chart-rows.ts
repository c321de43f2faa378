/**
 * The rows the analysis charts (src/core/analysis/charts.ts) are folded from: items per UTC day
 * and key (a platform, a tag, a label value group), and items per decade of an engagement count.
 * `q` is a parsed LibraryQuery (its filters; sort and paging are ignored).
 */
import type { EngagementField, LibraryQuery } from '../../shared/query';
import { DAY_SQL } from '../analysis/buckets';
import type { ArchiveCtx } from './context';
import { buildWhere, LABEL_FIELD } from './sql-query';
import { and } from './sql';


/** Rows of (day, key, count): what every time chart is folded from. */
export interface DayRow {
  d: number;
  k: string | number;
  c: number;
}

/** A label value group as SQL: reals in 0..1 to their hundredth (floor), everything else as is. */
const LABEL_KEY = "iif(typeof(l.value) = 'real' AND l.value BETWEEN 0 AND 1, CAST(l.value * 100 AS INTEGER) / 100.0, l.value)";

/** Dated items per day and platform, tag, or value group of one label field (definite values only). */
export function dayRows(c: ArchiveCtx, q: LibraryQuery, by: 'platform' | 'tag' | 'label', family?: string, field?: string): DayRow[] {
  const w = buildWhere(q);
  const where = and([...w.clauses, 'i.published_at IS NOT NULL']);
  if (by === 'label') {
    return c.st(
      `SELECT ${DAY_SQL} AS d, ${LABEL_KEY} AS k, count(*) AS c FROM item_labels l JOIN items i ON i.rid = l.item_rid
       WHERE l.ff = ${LABEL_FIELD} AND l.value < x'' AND ${where} GROUP BY d, k`,
    ).all(family, field, ...w.params) as DayRow[];
  }
  if (by === 'platform') {
    return c.st(`SELECT ${DAY_SQL} AS d, i.platform AS k, count(*) AS c FROM items i WHERE ${where} GROUP BY d, k`).all(...w.params) as DayRow[];
  }
  return c.st(
    `SELECT ${DAY_SQL} AS d, t.name AS k, count(*) AS c FROM items i JOIN item_tags it ON it.item_rid = i.rid JOIN tags t ON t.tag_id = it.tag_id
     WHERE ${where} GROUP BY d, t.tag_id`,
  ).all(...w.params) as DayRow[];
}

const ENGAGEMENT: Record<EngagementField, string> = { views: 'i.views', likes: 'i.likes', comments: 'i.comments', shares: 'i.shares', saves: 'i.saves' };

/** Items per decade of one count: b = -1 for 0 or less, else the number of digits - 1; unknown counts left out. */
export function engagementDecades(c: ArchiveCtx, q: LibraryQuery, field: EngagementField): Array<{ b: number; c: number }> {
  const w = buildWhere(q);
  const col = ENGAGEMENT[field];
  return c.st(
    `SELECT CASE WHEN ${col} <= 0 THEN -1 ELSE length(CAST(CAST(${col} AS INTEGER) AS TEXT)) - 1 END AS b, count(*) AS c
     FROM items i WHERE ${and([...w.clauses, `${col} IS NOT NULL`])} GROUP BY b ORDER BY b`,
  ).all(...w.params) as Array<{ b: number; c: number }>;
}
