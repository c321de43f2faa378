/**
 * The rows the analysis charts (src/core/analysis/charts.ts) are folded from: items per UTC day
 * and key (a platform, a tag, a label value group), and items per decade of an engagement count.
 * `q` is a parsed LibraryQuery (its filters; sort and paging are ignored).
 */
import type { EngagementField, LibraryQuery } from '../../shared/query';
import { DAY_SQL } from './days';
import type { ReadCtx } from './context';
import { buildWhere, type Where } from './sql-query';
import { and, raw, sql, SqlPart } from './sql';

/** Rows of (day, key, count): what every time chart is folded from. */
export interface DayRow {
  d: number;
  k: string | number;
  c: number;
}

/** A label value group as SQL: reals in 0..1 to their hundredth (floor), everything else as is. */
const LABEL_KEY = "iif(typeof(l.value) = 'real' AND l.value BETWEEN 0 AND 1, CAST(l.value * 100 AS INTEGER) / 100.0, l.value)";
const KEY = raw(LABEL_KEY);
const DAY = raw(DAY_SQL);

/** Dated items per day and platform, tag, or value group of one label field (definite values only). */
export function dayRows(c: ReadCtx, q: LibraryQuery, by: 'platform' | 'tag' | 'label', family?: string, field?: string): DayRow[] {
  const w = buildWhere(q);
  const where = and([...w.clauses, 'i.published_at IS NOT NULL']);
  const filters = new SqlPart(where, w.params);
  if (by === 'label') {
    const ff = fieldIdOf(c, family, field);
    if (ff === undefined) return [];
    const p = labelProbe(c, w, where, ff, true);
    if (p)
      return c.sql.all<DayRow>(
        sql`${raw(p.with)} SELECT ${DAY} AS d, ${KEY} AS k, count(*) AS c FROM ${raw(p.from)} WHERE ${new SqlPart(p.where, w.params)} GROUP BY d, k`,
      );
    return c.sql.all<DayRow>(
      sql`SELECT ${DAY} AS d, ${KEY} AS k, count(*) AS c FROM item_labels l JOIN items i ON i.rid = l.item_rid
       WHERE l.ff = (SELECT ff FROM label_fields WHERE family = ${family} AND field = ${field}) AND l.value < x'' AND ${filters} GROUP BY d, k`,
    );
  }
  if (by === 'platform') {
    return c.sql.all<DayRow>(sql`SELECT ${DAY} AS d, i.platform AS k, count(*) AS c FROM items i WHERE ${filters} GROUP BY d, k`);
  }
  return c.sql.all<DayRow>(
    sql`SELECT ${DAY} AS d, t.name AS k, count(*) AS c FROM items i JOIN item_tags it ON it.item_rid = i.rid JOIN tags t ON t.tag_id = it.tag_id
     WHERE ${filters} GROUP BY d, t.tag_id`,
  );
}

/** Most distinct values of a label field read per item of a selective query (labelProbe). */
const MAX_VALUES = 64;
/** Most (item, value) probes labelProbe makes; past it, the field's label rows drive. */
const MAX_PROBES = 200_000;

/** The label_fields id of (family, field), or undefined for a field never seen. */
export function fieldIdOf(c: ReadCtx, family?: string, field?: string): number | undefined {
  return c.sql.value<number>(sql`SELECT ff FROM label_fields WHERE family = ${family} AND field = ${field}`);
}

/**
 * The label rows of one field for a query holding few items (a text search, an author, a tag, a
 * label condition: a clause `i.rid IN (...)` SQLite drives from), as SQL pieces: the query's
 * items first, each probed in the item_labels key (ff, value, item_rid) once per distinct value
 * of the field, instead of every label row of the field (~1M at 1M posts) joined to its item and
 * tested against the query (3.7 s cold for a search matching 3,571 items). The distinct values
 * are found by skipping through the key (one probe per value); the same rows come out (each
 * (ff, value, item) is one key, each item one row of `items`). `definite`: values below x'' only
 * (null labels are stored as blobs). Null when the query is not selective or the field has too
 * many values: then the label rows drive. Use as `${with} SELECT … FROM ${from} WHERE ${where}`
 * with the query's parameters; the rows are `l` and `i`.
 */
export function labelProbe(
  c: ReadCtx,
  w: Where,
  where: string,
  ff: number,
  definite: boolean,
): { with: string; from: string; where: string } | null {
  if (!w.clauses.some((s) => s.startsWith('i.rid IN ('))) return null;
  const keep = definite ? "v < x''" : 'v IS NOT NULL';
  const values = `vals(v) AS (SELECT (SELECT min(value) FROM item_labels WHERE ff = ${ff})
      UNION ALL SELECT (SELECT min(value) FROM item_labels WHERE ff = ${ff} AND value > vals.v) FROM vals WHERE vals.${keep} LIMIT ${MAX_VALUES + 2})`;
  const nv = c.sql.value<number>(sql`WITH RECURSIVE ${raw(values)} SELECT count(*) AS n FROM vals WHERE ${raw(keep)}`) ?? 0;
  if (nv > MAX_VALUES) return null;
  const cap = Math.floor(MAX_PROBES / Math.max(1, nv));
  const n =
    c.sql.value<number>(
      sql`SELECT count(*) AS n FROM (SELECT 1 FROM items i WHERE ${new SqlPart(where, w.params)} LIMIT ${raw(String(cap + 1))})`,
    ) ?? 0;
  if (n > cap) return null;
  return {
    with: `WITH RECURSIVE ${values}, wanted(v) AS MATERIALIZED (SELECT v FROM vals WHERE ${keep})`,
    from: 'items i CROSS JOIN wanted CROSS JOIN item_labels l',
    where: `${where} AND l.ff = ${ff} AND l.value = wanted.v AND l.item_rid = i.rid`,
  };
}

const ENGAGEMENT: Record<EngagementField, string> = {
  views: 'i.views',
  likes: 'i.likes',
  comments: 'i.comments',
  shares: 'i.shares',
  saves: 'i.saves',
};

/** The counts with an index of their own (items_views, items_likes, items_comments, items_shares); saves has none. */
const INDEXED: ReadonlySet<EngagementField> = new Set(['views', 'likes', 'comments', 'shares']);

/** The decade of a count as SQL: -1 for 0 or less, else the number of digits of its integer part - 1. */
const decadeSql = (col: string): string => `CASE WHEN ${col} <= 0 THEN -1 ELSE length(CAST(CAST(${col} AS INTEGER) AS TEXT)) - 1 END`;

/** Items per decade of one count: b = -1 for 0 or less, else the number of digits - 1; unknown counts left out. */
export function engagementDecades(c: ReadCtx, q: LibraryQuery, field: EngagementField): Array<{ b: number; c: number }> {
  const w = buildWhere(q);
  const col = ENGAGEMENT[field];
  if (w.clauses.length === 0 && INDEXED.has(field)) return decadesByRange(c, col);
  return c.sql.all<{ b: number; c: number }>(
    sql`SELECT ${raw(decadeSql(col))} AS b, count(*) AS c
     FROM items i WHERE ${new SqlPart(and([...w.clauses, `${col} IS NOT NULL`]), w.params)} GROUP BY b ORDER BY b`,
  );
}

/**
 * Without filters, over the count's own index: one range count per decade instead of the decade
 * expression grouped over every row, which sorts all of them (~160 ms at 1M posts; the ranges
 * ~25 ms). The ranges are exactly the expression's: 0 or less → -1; (0, 10) → 0 (reals below 1
 * too: their integer part is 0, one digit); [10^b, 10^(b+1)) → b; ≥ 10^18 → 18 (CAST saturates at
 * 2^63 - 1, 19 digits). Numbers sort before text, so `< ''` keeps each range to numbers; text and
 * blob values (the extraction never writes them) are grouped by the expression itself.
 */
function decadesByRange(c: ReadCtx, col: string): Array<{ b: number; c: number }> {
  const counts = new Map<number, number>();
  const add = (b: number, n: number): void => {
    if (n > 0) counts.set(b, (counts.get(b) ?? 0) + n);
  };
  const count = (range: string): number => c.sql.value<number>(sql`SELECT count(*) AS c FROM items i WHERE ${raw(range)}`) ?? 0;
  add(-1, count(`${col} <= 0`));
  add(0, count(`${col} > 0 AND ${col} < 10`));
  for (let b = 1; b < 18; b++) add(b, count(`${col} >= ${10n ** BigInt(b)} AND ${col} < ${10n ** BigInt(b + 1)}`));
  add(18, count(`${col} >= ${10n ** 18n} AND ${col} < ''`));
  const other = c.sql.all<{ b: number; c: number }>(
    sql`SELECT ${raw(decadeSql(col))} AS b, count(*) AS c FROM items i WHERE ${raw(col)} >= '' GROUP BY b`,
  );
  for (const r of other) add(r.b, r.c);
  return [...counts].sort((x, y) => x[0] - y[0]).map(([b, n]) => ({ b, c: n }));
}
