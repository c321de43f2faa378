/**
 * Availability after re-checks (issue 29; docs/datasets.md "Re-check and attrition"), on the
 * archive's connection: the items a re-check reads, the marks a re-check leaves (`checked_at`,
 * `missing_since`, migration 0013), and the attrition table of a query. An item found missing is
 * never deleted: it keeps every row, reading and annotation it had.
 */
import type { AttritionRow } from '../../shared/contract-datasets';
import type { LibraryQuery } from '../../shared/query';
import type { ItemRef } from '../ports';
import { PUBLISHED_MONTH } from './bundle-row-facts';
import type { ArchiveCtx, ReadCtx } from './context';
import { buildWhere, parseQuery } from './sql-query';
import { sql, where } from './sql';

/** An item a re-check may read again: its key and its address. */
export interface RecheckRow extends ItemRef {
  url: string | null;
}

export type { AttritionRow };

/** The last attempt the ledger holds for one exact call of one source (not a dry run). */
export interface LastAttempt {
  callId: string;
  startedAt: number;
  status: number | null;
  errorType: string | null;
}

export function recheckRows(c: ReadCtx, input: LibraryQuery): RecheckRow[] {
  const w = buildWhere(parseQuery(input));
  return c.sql
    .rows<[string, string, string, string | null]>(
      sql`SELECT i.platform, i.kind, i.id, i.url FROM items i WHERE ${where(w)} ORDER BY i.rid`,
    )
    .map(([platform, kind, id, url]) => ({ platform, kind, id, url }));
}

/**
 * A re-check's answer for one item at `at`: found (`missing` false: available again if it was
 * missing before `at`) or not found (`missing_since` keeps the first time it was found missing).
 * Returns false when the item is not in the archive.
 */
export function markChecked(c: ArchiveCtx, ref: ItemRef, at: number, missing: boolean): boolean {
  const r = c.sql.run(
    sql`UPDATE items SET checked_at = max(COALESCE(checked_at, ${at}), ${at}),
          missing_since = CASE WHEN ${missing ? 1 : 0} THEN min(COALESCE(missing_since, ${at}), ${at}) WHEN missing_since <= ${at} THEN NULL
                               ELSE missing_since END
        WHERE platform = ${ref.platform} AND kind = ${ref.kind} AND id = ${ref.id}`,
  );
  return r.changes > 0;
}

/** An item's re-check marks: checked_at, missing_since (ms; null: never re-checked / available). */
export type Marks = [checked: number | null, missing: number | null];

/**
 * Two archives' marks of one item as one (a bundle's import, docs/datasets.md "Import"): each
 * stands for the re-checks it keeps — not found at `missing` and at `checked` when it has a
 * `missing`, else found at `checked` — applied in time order as markChecked applies a re-check
 * (found clears a mark at or before its time; not found keeps the first time). So the later
 * re-check decides whether the item is unavailable now, a later successful reading clears an older
 * missing mark, and `checked` is the later of the two. Merging marks with themselves, or with
 * none, gives them back.
 */
export function mergeMarks(a: Marks, b: Marks): Marks {
  const events: Array<[at: number, gone: boolean]> = [];
  for (const [checked, missing] of [a, b]) {
    if (missing !== null) events.push([missing, true]);
    if (checked !== null) events.push([checked, missing !== null]);
  }
  // time order; at one time the not-found first (a found at the same time clears it, as markChecked's `<=`)
  events.sort((x, y) => x[0] - y[0] || Number(y[1]) - Number(x[1]));
  let checked: number | null = null;
  let missing: number | null = null;
  for (const [at, gone] of events) {
    checked = checked === null ? at : Math.max(checked, at);
    if (gone) missing = missing === null ? at : Math.min(missing, at);
    else if (missing !== null && missing <= at) missing = null;
  }
  return [checked, missing];
}

/**
 * A bundle's marks merged into the items this archive holds (mergeMarks), in the caller's
 * transaction; an item it does not hold is skipped. Nothing is deleted. Returns the items changed.
 */
export function mergeMarksInto(c: ArchiveCtx, rid: number, other: Marks): boolean {
  const r = c.sql.rows<[number | null, number | null]>(sql`SELECT checked_at, missing_since FROM items WHERE rid = ${rid}`)[0];
  if (!r) return false;
  const [checked, missing] = mergeMarks(r, other);
  if (checked === r[0] && missing === r[1]) return false;
  c.sql.run(sql`UPDATE items SET checked_at = ${checked}, missing_since = ${missing} WHERE rid = ${rid}`);
  return true;
}

export function attrition(c: ReadCtx, input: LibraryQuery): AttritionRow[] {
  return attritionMarks(c, input).rows;
}

/**
 * The attrition table and the latest re-check mark (ms; null when none was re-checked) of the same
 * items, from one pass: a bundle is dated no earlier than the marks it carries (bundle.ts).
 */
export function attritionMarks(c: ReadCtx, input: LibraryQuery): { rows: AttritionRow[]; latestMark: number | null } {
  const w = buildWhere(parseQuery(input));
  const rows = c.sql.rows<[string, string | null, number, number, number, number | null, number | null]>(
    sql`SELECT i.platform, ${PUBLISHED_MONTH} AS month,
              sum(i.checked_at IS NOT NULL AND i.missing_since IS NULL), sum(i.missing_since IS NOT NULL), sum(i.checked_at IS NULL AND i.missing_since IS NULL),
              max(i.checked_at), max(i.missing_since)
         FROM items i WHERE ${where(w)} GROUP BY 1, 2 ORDER BY 1, month IS NULL, month`,
  );
  let latestMark: number | null = null;
  for (const r of rows) for (const t of [r[5], r[6]]) if (t !== null && (latestMark === null || t > latestMark)) latestMark = t;
  return {
    rows: rows.map(([platform, month, available, unavailable, notRechecked]) => ({
      platform,
      month,
      available,
      unavailable,
      notRechecked,
    })),
    latestMark,
  };
}

export function lastAttempt(c: ReadCtx, source: string, platform: string, endpoint: string, paramsHash: string): LastAttempt | undefined {
  const r = c.sql.rows<[string, number, number | null, string | null]>(
    sql`SELECT call_id, started_at, status, error_type FROM calls
        WHERE source = ${source} AND platform = ${platform} AND endpoint = ${endpoint} AND params_hash = ${paramsHash} AND dry_run = 0
        ORDER BY started_at DESC, id DESC LIMIT 1`,
  )[0];
  return r ? { callId: r[0], startedAt: r[1], status: r[2], errorType: r[3] } : undefined;
}
