/**
 * Growth over a period (issue 29; docs/archive.md "Library query model"): how much one count of an
 * item grew between two times, read from its metric history (readings.ts). The Library filters
 * (`growth.min` / `growth.max`) and sorts (`sort: growth`) by it.
 *
 *   growth = v(to) − v(from)
 *
 * v(t) is the count of the item's latest reading at or before t (readings are kept only when the
 * counts change, so it is the figure as last seen by then); `to` defaults to the latest reading.
 * When the item had no reading by `from` (it was first read inside the period), its first reading
 * stands in for v(from): the growth since it was first seen. Null when either end is null (the
 * network does not give the count) or when the item was first read after `to`. An item whose counts
 * were read once, or never changed, has growth 0 over any period after its first reading.
 *
 * The times are written into the SQL as integer literals (validated numbers) and the count's column
 * comes from a fixed list, so the expression needs no parameters and can be a sort expression.
 */
import { ENGAGEMENT_FIELDS, type LibraryQuery } from '../../shared/query';
import { QueryError, timeBound } from './query-error';

/** The period in ms (sql-query.ts reads the query's bounds) and the count. */
export interface GrowthSpec {
  field: string;
  from: number;
  to: number;
  min?: number;
  max?: number;
}

function col(field: string): string {
  if (!(ENGAGEMENT_FIELDS as readonly string[]).includes(field)) throw new Error(`unknown count for growth: ${field}`);
  return field;
}
const int = (n: number): number => {
  if (!Number.isFinite(n)) throw new Error('growth: a time is not a number');
  return Math.trunc(n);
};

/** The count `f` as last read at or before `t` (ms), or null. */
function valueAt(f: string, t: number): string {
  return `CASE WHEN COALESCE(i.counts_at, i.first_seen_at) <= ${t} THEN i.${f}
    ELSE (SELECT r.${f} FROM item_readings r WHERE r.item_rid = i.rid AND r.read_at <= ${t} ORDER BY r.read_at DESC LIMIT 1) END`;
}

/**
 * When the item was first read. Items whose counts never changed (counts_at null) have no past
 * readings: first_seen_at. Otherwise the oldest past reading (readings.ts keeps counts_at set
 * whenever item_readings holds a row of the item).
 */
const FIRST_AT = `CASE WHEN i.counts_at IS NULL THEN i.first_seen_at
    ELSE COALESCE((SELECT min(r.read_at) FROM item_readings r WHERE r.item_rid = i.rid), i.counts_at) END`;

/** The count at the item's first reading. */
function firstValue(f: string): string {
  return `CASE WHEN i.counts_at IS NULL OR NOT EXISTS (SELECT 1 FROM item_readings r WHERE r.item_rid = i.rid) THEN i.${f}
    ELSE (SELECT r.${f} FROM item_readings r WHERE r.item_rid = i.rid ORDER BY r.read_at LIMIT 1) END`;
}

/** The growth of one count over the period, as an SQL expression over `items i` (null when unknown). */
export function growthExpr(g: GrowthSpec): string {
  const f = col(g.field);
  const from = int(g.from);
  // the count at `from`, or the first reading's when the item was first read after `from` (a null count stays null)
  return `((${valueAt(f, int(g.to))}) - (CASE WHEN (${FIRST_AT}) <= ${from} THEN ${valueAt(f, from)} ELSE ${firstValue(f)} END))`;
}

/** The filter of `min` / `max`, or null when neither is given. */
export function growthClause(g: GrowthSpec): string | null {
  const parts: string[] = [];
  const e = growthExpr(g);
  if (g.min !== undefined && Number.isFinite(g.min)) parts.push(`${e} >= ${g.min}`);
  if (g.max !== undefined && Number.isFinite(g.max)) parts.push(`${e} <= ${g.max}`);
  return parts.length ? parts.join(' AND ') : null;
}

/** The query's growth period in ms (a date-only `to`: its whole day; none: the latest reading). */
export function growthSpec(g: NonNullable<LibraryQuery['growth']>): GrowthSpec {
  const from = timeBound(g.from, false);
  const to = g.to === undefined ? 8_640_000_000_000_000 : timeBound(g.to, true);
  if (to < from) throw new QueryError('growth: the period ends before it starts');
  return { field: g.field, from, to, min: g.min, max: g.max };
}
